// The "Show source" panel: the code a merchant's own server, web page or app runs for the playground's current
// payloads, with the orderDetails of the last payment made here.
import { APPLE_PAY_VERSION } from "./checkout-request.js";
import * as sheet from "./checkout-sheet.js";

/**
 * `value` as JSON indented by two spaces, lines after the first by `indent` more; short lists of plain values stay on
 * one line (`["visa", "masterCard"]`), as people write them.
 */
export function formatJSON(value, indent = 0) {
  const pad = " ".repeat(indent);
  if (Array.isArray(value)) {
    const line = `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
    if (value.every((item) => item === null || typeof item !== "object") && line.length <= 72) return line;
    return `[\n${value.map((item) => `${pad}  ${formatJSON(item, indent + 2)}`).join(",\n")}\n${pad}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, member]) => member !== undefined);
    if (!entries.length) return "{}";
    return `{\n${entries.map(([key, member]) => `${pad}  ${JSON.stringify(key)}: ${formatJSON(member, indent + 2)}`).join(",\n")}\n${pad}}`;
  }
  return JSON.stringify(value);
}

const json = formatJSON;

function detailsComment(orderDetails, indent) {
  const pad = " ".repeat(indent);
  if (!orderDetails) return `${pad}// Pay or simulate a payment above to see its orderDetails here.`;
  return `${pad}// The last payment here answered:\n${json(orderDetails).replace(/^/gm, `${pad}// `)}`;
}

const postJSON = `// A call to your own server, which calls OrderTrack with its secret API key (never the browser).
async function postJSON(path, body) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(\`\${path} answered \${response.status}\`);
  return response.json();
}`;

// The development server's test token: a simulated payment, as the playground's. Production refuses it.
const TEST_TOKEN = "tok_applepay_simulated";

function curl({ origin, order }) {
  return `# Your server, with the token the browser posts (event.payment.token or response.details.token) and the order.
# It answers 201 with orderDetails for Apple Pay and the order (with a real token also the decrypted payment and its
# transactionId). As printed it runs against a development server: "${TEST_TOKEN}" makes a simulated payment there,
# which production refuses; put the token Apple Pay gives the page in its place.
curl -X POST '${origin}/api/v1/apple_pay/payments' \\
  -H "Authorization: Bearer $ORDERTRACK_API_KEY" \\
  -H 'Content-Type: application/json' \\
  --data-binary @- <<'JSON'
${json({ token: TEST_TOKEN, order })}
JSON

# Merchant validation, with the validationURL the browser's event gives:
curl -X POST '${origin}/api/v1/apple_pay/sessions' \\
  -H "Authorization: Bearer $ORDERTRACK_API_KEY" \\
  -H 'Content-Type: application/json' \\
  -d '{"validationURL": "https://apple-pay-gateway.apple.com/paymentservices/paymentSession", "domain": "shop.example.com"}'`;
}

// The shop's handlers as the playground runs them: Show source prints the functions themselves.
const HANDLERS = [
  sheet.shippingMethodSelected, sheet.shippingContactSelected, sheet.couponCodeChanged, sheet.openSheet, sheet.priceSheet,
  sheet.shippingMethodsFor, sheet.addressErrors, sheet.offerOf, sheet.goodsValue, sheet.minorUnits, sheet.toMinor,
  sheet.fromMinor, sheet.regionName,
];
const PAYMENT_REQUEST_HANDLERS = [sheet.paymentDetailsUpdate, sheet.contactFromAddress];

function handlers(extra = []) {
  return `// The shop's answers to the sheet's changes; the playground's page runs these very functions (checkout-sheet.js).
// Prices and coupons are your server's to decide: it applies the same rules to the choices it is sent when it builds
// the order, whose payment.total (the sheet's total) and payment.summaryItems (its lines) the payment is checked
// against. SHOP: the countries the shop ships to, the shipping methods only offered within the merchant's country,
// the coupon codes.
const SHOP = ${json(sheet.SHOP)};

${[...HANDLERS, ...extra].map(String).join("\n\n")}`;
}

const applePayErrors = `// Safari's ApplePayError objects for the handlers' plain errors.
function applePayErrors(errors = []) {
  return errors.map(({ code, contactField, message }) => new ApplePayError(code, contactField, message));
}`;

function cart(order) {
  return `// The cart, as the order content lists it: the handlers price its lineItems.
const order = ${json({ lineItems: order.lineItems ?? [] })};`;
}

function applePayJS({ applePayRequest, order, orderDetails }) {
  return `// In your Apple Pay button's click handler.
const request = ${json(applePayRequest)};
${cart(order)}
const session = new ApplePaySession(${APPLE_PAY_VERSION}, request);
// The customer's choices on the sheet: each handler answers from them and the event, and keeps them for the next.
let sheet = openSheet(request);

session.onvalidatemerchant = async (event) => {
  const merchantSession = await postJSON("/apple-pay/session", { validationURL: event.validationURL, domain: location.hostname });
  session.completeMerchantValidation(merchantSession);
};

session.onshippingmethodselected = (event) => {
  const answer = shippingMethodSelected(request, order, sheet, event.shippingMethod);
  sheet = answer.sheet;
  session.completeShippingMethodSelection(answer.update);
};

session.onshippingcontactselected = (event) => {
  const answer = shippingContactSelected(request, order, sheet, event.shippingContact);
  sheet = answer.sheet;
  session.completeShippingContactSelection({ ...answer.update, errors: applePayErrors(answer.update.errors) });
};

session.oncouponcodechanged = (event) => {
  const answer = couponCodeChanged(request, order, sheet, event.couponCode);
  sheet = answer.sheet;
  session.completeCouponCodeChange({ ...answer.update, errors: applePayErrors(answer.update.errors) });
};

session.onpaymentauthorized = async (event) => {
  try {
    // Your server prices the order for the sheet's choices: its payment.total is the amount just authorized.
    const { orderDetails } = await postJSON("/apple-pay/pay", { token: event.payment.token, sheet });
${detailsComment(orderDetails, 4)}
    session.completePayment({ status: ApplePaySession.STATUS_SUCCESS, orderDetails });
  } catch {
    session.completePayment({ status: ApplePaySession.STATUS_FAILURE });
  }
};

session.begin();

${applePayErrors}

${handlers()}

${postJSON}`;
}

function paymentRequest({ paymentRequestShape, order, orderDetails }) {
  return `// In your Apple Pay button's click handler (an async function).
const request = ${json(paymentRequestShape)};
${cart(order)}
const payment = new PaymentRequest(request.methodData, request.details, request.options);
// The customer's choices on the sheet: each handler answers from them and the event, and keeps them for the next.
let sheet = openSheet(request);

payment.onmerchantvalidation = (event) => {
  event.complete(postJSON("/apple-pay/session", { validationURL: event.validationURL, domain: location.hostname }));
};

payment.onshippingoptionchange = (event) => {
  const answer = shippingMethodSelected(request, order, sheet, { identifier: payment.shippingOption });
  sheet = answer.sheet;
  event.updateWith(paymentDetailsUpdate(request, order, sheet, answer.update));
};

payment.onshippingaddresschange = (event) => {
  const answer = shippingContactSelected(request, order, sheet, contactFromAddress(payment.shippingAddress));
  sheet = answer.sheet;
  event.updateWith(paymentDetailsUpdate(request, order, sheet, answer.update));
};

payment.onpaymentmethodchange = (event) => {
  // Apple Pay reports a coupon code as a payment method change; a change of card leaves the total as it is.
  if (typeof event.methodDetails?.couponCode !== "string") return;
  const answer = couponCodeChanged(request, order, sheet, event.methodDetails.couponCode);
  sheet = answer.sheet;
  const details = paymentDetailsUpdate(request, order, sheet, answer.update);
  event.updateWith({ ...details, paymentMethodErrors: applePayErrors(details.paymentMethodErrors) });
};

const response = await payment.show();
try {
  // Your server prices the order for the sheet's choices: its payment.total is the amount just authorized.
  const { orderDetails } = await postJSON("/apple-pay/pay", { token: response.details.token, sheet });
${detailsComment(orderDetails, 2)}
  await response.complete("success", { data: { orderDetails } });
} catch {
  await response.complete("fail");
}

${applePayErrors}

${handlers(PAYMENT_REQUEST_HANDLERS)}

${postJSON}`;
}

function swift({ orderDetails }) {
  const value = (key) => JSON.stringify(orderDetails?.[key] ?? `<${key} from your server>`);
  return `import PassKit

// PKPaymentAuthorizationControllerDelegate: your app sends payment.token to your server, which posts it with the
// order to /api/v1/apple_pay/payments (see curl) and answers orderDetails.
func paymentAuthorizationController(
    _ controller: PKPaymentAuthorizationController, didAuthorizePayment payment: PKPayment,
    handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
) {
    let result = PKPaymentAuthorizationResult(status: .success, errors: nil)
    // Your server's orderDetails (here, ${orderDetails ? "those of the last payment made in the playground" : "placeholders until a payment"}):
    result.orderDetails = PKPaymentOrderDetails(
        orderTypeIdentifier: ${value("orderTypeIdentifier")},
        orderIdentifier: ${value("orderIdentifier")},
        webServiceURL: URL(string: ${value("webServiceURL")})!,
        authenticationToken: ${value("authenticationToken")})
    completion(result)
}`;
}

function serverSwift({ origin, order }) {
  return `// Your server (Swift, with Hummingbird and OrderTrackClient, the client generated from OrderTrack's OpenAPI
// document): the page posts Apple Pay's token here; the route creates the order through OrderTrack with the secret
// API key and answers the orderDetails for Apple Pay.
import Foundation
import Hummingbird
import OrderTrackClient

let orderTrack = OrderTrack(
    serverURL: URL(string: "${origin}")!, apiKey: ProcessInfo.processInfo.environment["ORDERTRACK_API_KEY"]!)

extension Components.Schemas.OrderDetails: @retroactive ResponseEncodable {}

router.post("apple-pay/pay") { request, context -> Components.Schemas.OrderDetails in
    // {"token": …} as Apple Pay gave it to the page (against a development server, "${TEST_TOKEN}").
    struct Posted: Decodable { var token: Components.Schemas.ApplePayCheckoutRequest.TokenPayload }
    let posted = try await request.decode(as: Posted.self, context: context)
    // The order this checkout sold (from your cart), as OrderTrack's order content.
    let order = try JSONDecoder().decode(Components.Schemas.OrderContent.self, from: Data(#"""
${json(order)}
"""#.utf8))
    // Error answers throw OrderTrackError (status, code, param, problems).
    let output = try await orderTrack.call { try await $0.applePayCheckout(body: .json(.init(token: posted.token, order: order))) }
    // 201: the order was created. A retry of the same payment answers 200 with the first answer (output.ok).
    switch try output.created.body.json {
    case .ApplePayCheckout(let checkout): return checkout.orderDetails
    case .SimulatedCheckout(let checkout): return checkout.orderDetails
    }
}`;
}

const sources = { curl, serverSwift, applePayJS, paymentRequest, swift };

/** The code of one tab (`curl`, `applePayJS`, `paymentRequest` or `swift`) for the current payloads. */
export function sourceFor(kind, payloads) {
  return sources[kind](payloads);
}
