// The shop's answers to the payment sheet, as pure functions of the request, the order and the customer's choices.
// Apple Pay JS's events (onshippingmethodselected, onshippingcontactselected, oncouponcodechanged), the Payment
// Request API's (shippingoptionchange, shippingaddresschange, paymentmethodchange with a coupon code) and the
// playground's simulated sheet all call them, so the total the sheet shows is the one the order's payment.total gets,
// which the server checks the payment's amount against. "Show source" prints these functions as they are written
// (Function.prototype.toString), which is why their comments sit inside them.

/** The shop's rules, listed in docs/dashboard.md. */
export const SHOP = {
  shipsTo: ["US", "CA"],
  domesticOnly: ["express"],
  coupons: { WELCOME10: { percentOff: 10, label: "Discount (WELCOME10)" } },
};

export function openSheet(request) {
  // The sheet as it opens: the request's selected (else first) shipping method and its coupon code, no address yet.
  const { shippingMethods, couponCode } = offerOf(request);
  const chosen = shippingMethods.find((method) => method.selected) ?? shippingMethods[0];
  const offered = shippingMethods.map((method) => method.identifier);
  return { shippingMethod: chosen?.identifier, shippingContact: null, couponCode, offered };
}

export function shippingMethodSelected(request, order, sheet, shippingMethod) {
  // onshippingmethodselected, shippingoptionchange: the chosen method's price becomes a line and part of the total.
  const next = { ...sheet, shippingMethod: shippingMethod.identifier };
  const { total, lineItems } = priceSheet(request, order, next);
  return { sheet: next, update: { newTotal: total, newLineItems: lineItems } };
}

export function shippingContactSelected(request, order, sheet, shippingContact) {
  // onshippingcontactselected, shippingaddresschange: an address the shop cannot serve gets field errors before
  // payment, and no shipping method; one it can gets the methods offered there.
  const methods = shippingMethodsFor(request, shippingContact);
  const offered = methods.map((method) => method.identifier);
  // Apple Pay selects the first method of a new list: send a list only when it changes, and select as the sheet does.
  const changed = offered.join() !== sheet.offered.join();
  const shippingMethod = changed ? offered[0] : sheet.shippingMethod;
  const next = { ...sheet, shippingContact, offered, shippingMethod };
  const { total, lineItems, contactErrors } = priceSheet(request, order, next);
  const update = { newTotal: total, newLineItems: lineItems, errors: contactErrors };
  if (changed) update.newShippingMethods = methods;
  return { sheet: next, update };
}

export function couponCodeChanged(request, order, sheet, couponCode) {
  // oncouponcodechanged, or paymentmethodchange with a couponCode: a known coupon adds a discount line, any other code
  // is an error (which, unlike an address error, does not stop the customer paying without it).
  const next = { ...sheet, couponCode };
  const { total, lineItems, couponErrors } = priceSheet(request, order, next);
  return { sheet: next, update: { newTotal: total, newLineItems: lineItems, errors: couponErrors } };
}

export function priceSheet(request, order, sheet) {
  // What the sheet shows for the customer's choices: the shipping methods offered, the lines, the total, the errors.
  const { currency, label } = offerOf(request);
  const digits = minorUnits(currency);
  const shippingMethods = shippingMethodsFor(request, sheet.shippingContact);
  const method = shippingMethods.find((offered) => offered.identifier === sheet.shippingMethod) ?? shippingMethods[0];
  const code = (sheet.couponCode ?? "").trim().toUpperCase();
  const coupon = Object.hasOwn(SHOP.coupons, code) ? SHOP.coupons[code] : undefined;
  const goods = goodsValue(request, order, digits);
  const shipping = method ? toMinor(method.amount, digits) : 0;
  const discount = coupon ? Math.round((goods * coupon.percentOff) / 100) : 0;
  const line = (name, value) => ({ label: name, amount: fromMinor(value, digits), type: "final" });
  const lineItems = [line("Subtotal", goods)];
  if (method) lineItems.push(line(method.label, shipping));
  if (coupon) lineItems.push(line(coupon.label, -discount));
  return {
    shippingMethods,
    shippingMethod: method?.identifier,
    lineItems,
    total: line(label ?? "Total", goods + shipping - discount),
    contactErrors: sheet.shippingContact ? addressErrors(sheet.shippingContact) : [],
    couponErrors: code && !coupon ? [{ code: "couponCodeInvalid", message: `${code} is not a valid coupon code.` }] : [],
  };
}

export function shippingMethodsFor(request, shippingContact) {
  // The methods offered to an address: none where the shop cannot deliver (the Payment Request API shows address
  // errors only then), and outside the merchant's own country none of the domestic-only ones.
  const { country, shippingMethods } = offerOf(request);
  if (!shippingContact) return shippingMethods;
  if (addressErrors(shippingContact).length) return [];
  if (shippingContact.countryCode.toUpperCase() === country) return shippingMethods;
  return shippingMethods.filter((method) => !SHOP.domesticOnly.includes(method.identifier));
}

export function addressErrors(shippingContact) {
  // Before the customer authorizes, the address is redacted, but its country and postal code are there. Safari may
  // send the country code in lowercase ("us").
  const countryCode = (shippingContact.countryCode ?? "").toUpperCase();
  if (!SHOP.shipsTo.includes(countryCode)) {
    const where = shippingContact.country || regionName(countryCode) || "The country";
    const message = `${where} is not one of our shipping countries (${SHOP.shipsTo.map(regionName).join(", ")}).`;
    return [{ code: "shippingContactInvalid", contactField: "country", message }];
  }
  if (!shippingContact.postalCode?.trim()) {
    return [{ code: "shippingContactInvalid", contactField: "postalCode", message: "Add the postal code of this address." }];
  }
  return [];
}

export function offerOf(request) {
  // What the handlers read from a request in either shape: Apple Pay JS's ApplePayPaymentRequest, or the Payment
  // Request API's { methodData, details, options }.
  if (!request.methodData) {
    const { currencyCode, countryCode, total, shippingMethods = [], couponCode = "" } = request;
    return { currency: currencyCode, country: countryCode, label: total?.label, amount: total?.amount, shippingMethods, couponCode };
  }
  const data = request.methodData.find((method) => method.supportedMethods === "https://apple.com/apple-pay")?.data ?? {};
  const { total, shippingOptions = [] } = request.details ?? {};
  const shippingMethods = shippingOptions.map((option) => ({
    label: option.label,
    detail: "",
    amount: option.amount?.value,
    identifier: option.id,
    selected: option.selected,
  }));
  const { currency, value } = total?.amount ?? {};
  return { currency, country: data.countryCode, label: total?.label, amount: value, shippingMethods, couponCode: data.couponCode ?? "" };
}

export function goodsValue(request, order, digits) {
  // The goods' price in minor units: the order's line items (the price of one, times the quantity), or for an order
  // without prices the request's total.
  const priced = (order?.lineItems ?? []).filter((item) => item.price?.amount !== undefined);
  if (!priced.length) return toMinor(offerOf(request).amount, digits);
  return priced.reduce((sum, item) => sum + Math.round(toMinor(item.price.amount, digits) * (item.quantity ?? 1)), 0);
}

export function minorUnits(currency) {
  // Amounts are counted in minor units (cents), which add up exactly; the currency says how many digits they have.
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    return 2;
  }
}

export function toMinor(amount, digits) {
  const value = Number(amount);
  return Number.isFinite(value) ? Math.round(value * 10 ** digits) : 0;
}

export function fromMinor(value, digits) {
  return (value / 10 ** digits).toFixed(digits);
}

export function regionName(code) {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code);
  } catch {
    return code; // not a region code
  }
}

// MARK: The Payment Request API's shapes

export function paymentDetailsUpdate(request, order, sheet, update) {
  // A handler's Apple Pay update as the Payment Request API's PaymentDetailsUpdate, for event.updateWith(): every
  // shipping option offered with the chosen one selected, address errors by field, other errors (a coupon's) as
  // paymentMethodErrors (Safari wants them as ApplePayError objects).
  const { currency } = offerOf(request);
  const item = ({ label, amount }) => ({ label, amount: { currency, value: amount } });
  const { shippingMethods, shippingMethod } = priceSheet(request, order, sheet);
  const details = {
    total: item(update.newTotal),
    displayItems: update.newLineItems.map(item),
    shippingOptions: shippingMethods.map((method) => ({
      id: method.identifier,
      ...item(method),
      selected: method.identifier === shippingMethod,
    })),
  };
  const addressFields = { country: "country", countryCode: "country", postalCode: "postalCode", locality: "city", administrativeArea: "region" };
  const errors = update.errors ?? [];
  const inAddress = errors.filter((error) => error.code === "shippingContactInvalid" && addressFields[error.contactField]);
  if (inAddress.length) {
    details.shippingAddressErrors = Object.fromEntries(inAddress.map((error) => [addressFields[error.contactField], error.message]));
  }
  const others = errors.filter((error) => !inAddress.includes(error));
  if (others.length) details.paymentMethodErrors = others;
  return details;
}

export function contactFromAddress(address) {
  // The Payment Request API's PaymentAddress (redacted until the customer authorizes) as the contact the handlers read.
  return {
    countryCode: address?.country ?? "",
    postalCode: address?.postalCode ?? "",
    locality: address?.city ?? "",
    administrativeArea: address?.region ?? "",
  };
}

// MARK: The order

/**
 * The order content with the sheet's totals, as the merchant's server builds it: payment.total is the sheet's total
 * (the amount the payment is checked against) and payment.summaryItems its lines.
 */
export function orderWithPayment(order, request, priced) {
  const { currency } = offerOf(request);
  const money = (amount) => ({ amount, currency });
  const summaryItems = priced.lineItems.map((line) => ({ label: line.label, value: money(line.amount) }));
  return { ...order, payment: { ...order.payment, total: money(priced.total.amount), summaryItems } };
}
