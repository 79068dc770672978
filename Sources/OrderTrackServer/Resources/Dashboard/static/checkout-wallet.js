// The real Apple Pay flows, in Safari with Apple Pay: merchant validation and then the payment token go to the server,
// whose orderDetails complete the payment. Only Safari has these APIs, so no automated browser test reaches them.
import { APPLE_PAY_VERSION } from "./checkout-request.js";

/** Whether this browser can show the Apple Pay sheet. */
export function applePayAvailable() {
  try {
    return Boolean(window.ApplePaySession && window.ApplePaySession.canMakePayments());
  } catch {
    return false; // canMakePayments throws on pages that are not served over https
  }
}

// `server.validateMerchant(validationURL)` answers Apple's merchant session; `server.pay(token)` answers the checkout
// (with orderDetails) or throws with a message. Both flows must start in the click handler, as Safari requires.

/** Apple Pay JS: an ApplePaySession for `request`; resolves when the sheet closes. */
export function payWithApplePayJS(request, server) {
  return new Promise((resolve) => {
    const session = new ApplePaySession(APPLE_PAY_VERSION, request);
    session.onvalidatemerchant = async (event) => {
      try {
        session.completeMerchantValidation(await server.validateMerchant(event.validationURL));
      } catch {
        session.abort();
        resolve();
      }
    };
    session.onpaymentauthorized = async (event) => {
      try {
        const { orderDetails } = await server.pay(event.payment.token);
        session.completePayment({ status: ApplePaySession.STATUS_SUCCESS, orderDetails });
      } catch (error) {
        const errors = [new ApplePayError("unknown", undefined, error.message)];
        session.completePayment({ status: ApplePaySession.STATUS_FAILURE, errors });
      }
      resolve();
    };
    session.oncancel = () => resolve();
    session.begin();
  });
}

/** The Payment Request API with Apple Pay as the method: `shape` holds `methodData` and `details`. */
export async function payWithPaymentRequest(shape, server) {
  const request = new PaymentRequest(shape.methodData, shape.details, shape.options);
  request.onmerchantvalidation = (event) => event.complete(server.validateMerchant(event.validationURL));
  let response;
  try {
    response = await request.show();
  } catch (error) {
    if (error.name === "AbortError") return; // the customer closed the sheet
    throw error;
  }
  try {
    const { orderDetails } = await server.pay(response.details.token);
    await response.complete("success", { data: { orderDetails } });
  } catch {
    await response.complete("fail"); // the page already shows why
  }
}
