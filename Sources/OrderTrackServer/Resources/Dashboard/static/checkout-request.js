// The payment request in the two shapes the playground edits: Apple Pay JS's ApplePayPaymentRequest, and the Payment
// Request API's method data and details, where Apple Pay is the "https://apple.com/apple-pay" method.
export const APPLE_PAY_METHOD = "https://apple.com/apple-pay";
export const APPLE_PAY_VERSION = 13;

/** Method data and details for `new PaymentRequest(methodData, details)` asking for what `request` asks. */
export function toPaymentRequestAPI(request, merchantIdentifier) {
  const { countryCode, currencyCode, merchantCapabilities, supportedNetworks, total = {}, lineItems, ...rest } = request;
  const item = (line) => ({ label: line.label, amount: { currency: currencyCode, value: line.amount } });
  const details = { total: item(total) };
  if (lineItems?.length) details.displayItems = lineItems.map(item);
  const data = { version: APPLE_PAY_VERSION, merchantIdentifier, merchantCapabilities, supportedNetworks, countryCode, ...rest };
  return { methodData: [{ supportedMethods: APPLE_PAY_METHOD, data }], details };
}

/** The ApplePayPaymentRequest asking for what Payment Request method data and details ask. */
export function toApplePayJS(shape) {
  const data = applePayMethod(shape)?.data ?? {};
  const { version, merchantIdentifier, countryCode, merchantCapabilities, supportedNetworks, ...rest } = data;
  const total = shape.details?.total ?? {};
  const line = (item) => ({ label: item.label, amount: item.amount?.value, type: "final" });
  const request = { countryCode, currencyCode: total.amount?.currency, merchantCapabilities, supportedNetworks, ...rest, total: line(total) };
  if (shape.details?.displayItems?.length) request.lineItems = shape.details.displayItems.map(line);
  return request;
}

/** The Apple Pay entry of Payment Request method data. */
export function applePayMethod(shape) {
  return shape.methodData?.find?.((method) => method.supportedMethods === APPLE_PAY_METHOD);
}

/** The amount and currency the payment sheet would charge, from either shape. */
export function totalOf(method, payload) {
  if (method === "paymentRequest") {
    const amount = payload.details?.total?.amount ?? {};
    return { amount: amount.value, currency: amount.currency };
  }
  return { amount: payload.total?.amount, currency: payload.currencyCode };
}

/** Whether two decimal amounts are the same number ("47.5" and "47.50" are). */
export function sameAmount(left, right) {
  return left !== undefined && right !== undefined && Number(left) === Number(right);
}
