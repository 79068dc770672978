// The payment request in the two shapes the playground edits: Apple Pay JS's ApplePayPaymentRequest, and the Payment
// Request API's method data, details and options, where Apple Pay is the "https://apple.com/apple-pay" method.
export const APPLE_PAY_METHOD = "https://apple.com/apple-pay";
export const APPLE_PAY_VERSION = 13;

// The contact fields the Payment Request API asks for with options rather than in Apple Pay's method data.
const CONTACT_OPTIONS = { postalAddress: "requestShipping", name: "requestPayerName", email: "requestPayerEmail", phone: "requestPayerPhone" };
const PICKUP_TYPES = ["storePickup", "servicePickup"];

/** Method data, details and options for `new PaymentRequest(methodData, details, options)` asking for what `request` asks. */
export function toPaymentRequestAPI(request, merchantIdentifier) {
  const {
    countryCode, currencyCode, merchantCapabilities, supportedNetworks, total = {}, lineItems, shippingMethods,
    requiredShippingContactFields = [], shippingType, ...rest
  } = request;
  const amount = (value) => ({ currency: currencyCode, value });
  const details = { total: { label: total.label, amount: amount(total.amount) } };
  if (lineItems?.length) details.displayItems = lineItems.map((line) => ({ label: line.label, amount: amount(line.amount) }));
  // Apple Pay JS (version 13) starts with the first method selected. The options have no detail or delivery dates.
  if (shippingMethods?.length) {
    details.shippingOptions = shippingMethods.map((method, index) => ({
      id: method.identifier, label: method.label, amount: amount(method.amount), selected: index === 0,
    }));
  }
  const options = {};
  const unmapped = requiredShippingContactFields.filter((field) => !CONTACT_OPTIONS[field]);
  for (const field of requiredShippingContactFields) if (CONTACT_OPTIONS[field]) options[CONTACT_OPTIONS[field]] = true;
  if (options.requestShipping) options.shippingType = PICKUP_TYPES.includes(shippingType) ? "pickup" : (shippingType ?? "shipping");
  const data = { version: APPLE_PAY_VERSION, merchantIdentifier, merchantCapabilities, supportedNetworks, countryCode, ...rest };
  if (unmapped.length) data.requiredShippingContactFields = unmapped;
  if (shippingType && !options.requestShipping) data.shippingType = shippingType;
  const shape = { methodData: [{ supportedMethods: APPLE_PAY_METHOD, data }], details };
  if (Object.keys(options).length) shape.options = options;
  return shape;
}

/**
 * The ApplePayPaymentRequest asking for what Payment Request method data, details and options ask. `known` shipping
 * methods give back the detail and delivery dates that the Payment Request API's options cannot carry.
 */
export function toApplePayJS(shape, known = []) {
  const data = applePayMethod(shape)?.data ?? {};
  const { version, merchantIdentifier, countryCode, merchantCapabilities, supportedNetworks, requiredShippingContactFields = [], ...rest } = data;
  const { total = {}, displayItems, shippingOptions } = shape.details ?? {};
  const options = shape.options ?? {};
  const line = (item) => ({ label: item.label, amount: item.amount?.value, type: "final" });
  const request = { countryCode, currencyCode: total.amount?.currency, merchantCapabilities, supportedNetworks, ...rest };
  const fields = [...requiredShippingContactFields];
  for (const [field, option] of Object.entries(CONTACT_OPTIONS)) if (options[option] && !fields.includes(field)) fields.push(field);
  if (fields.length) request.requiredShippingContactFields = fields;
  if (options.requestShipping) request.shippingType = options.shippingType === "pickup" ? "storePickup" : (options.shippingType ?? "shipping");
  if (shippingOptions?.length) {
    // Apple Pay JS (version 13) selects the first method: the selected option goes first.
    const ordered = [...shippingOptions].sort((left, right) => Number(Boolean(right.selected)) - Number(Boolean(left.selected)));
    request.shippingMethods = ordered.map((option) => {
      const before = known.find((method) => method.identifier === option.id) ?? {};
      const method = { label: option.label, detail: before.detail ?? "", amount: option.amount?.value, identifier: option.id };
      if (before.dateComponentsRange) method.dateComponentsRange = before.dateComponentsRange;
      return method;
    });
  }
  if (displayItems?.length) request.lineItems = displayItems.map(line);
  request.total = line(total);
  return request;
}

/** The Apple Pay entry of Payment Request method data. */
export function applePayMethod(shape) {
  return shape.methodData?.find?.((method) => method.supportedMethods === APPLE_PAY_METHOD);
}

/** Whether two decimal amounts are the same number ("47.5" and "47.50" are). */
export function sameAmount(left, right) {
  return left !== undefined && right !== undefined && Number(left) === Number(right);
}
