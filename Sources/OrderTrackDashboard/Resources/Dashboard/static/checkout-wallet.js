// The real Apple Pay flows, in Safari with Apple Pay: merchant validation, the sheet's changes answered by the shop's
// handlers (checkout-sheet.js), then the payment token goes to the server, whose orderDetails complete the payment.
// Only Safari has these APIs, so no automated browser test reaches them; the page's simulated sheet calls the same
// handlers.
import { APPLE_PAY_VERSION } from "./checkout-request.js";
import {
  contactFromAddress, couponCodeChanged, openSheet, paymentDetailsUpdate, shippingContactSelected, shippingMethodSelected,
} from "./checkout-sheet.js";

/** Whether this browser can show the Apple Pay sheet. */
export function applePayAvailable() {
  try {
    return Boolean(window.ApplePaySession && window.ApplePaySession.canMakePayments());
  } catch {
    return false; // canMakePayments throws on pages that are not served over https
  }
}

/** Safari's ApplePayError objects for the handlers' plain errors ({code, contactField, message}). */
export function applePayErrors(errors = []) {
  return errors.map(({ code, contactField, message }) => new ApplePayError(code, contactField, message));
}

// `server.validateMerchant(validationURL)` answers Apple's merchant session; `server.pay(token, sheet)` answers the
// checkout (with orderDetails) or throws with a message, given the sheet's final choices, which price the order. Both
// flows must start in the click handler, as Safari requires. `order` is the order content, whose line items the
// handlers price.

/** Apple Pay JS: an ApplePaySession for `request`; resolves when the sheet closes. */
export function payWithApplePayJS(request, order, server) {
  return new Promise((resolve) => {
    const session = new ApplePaySession(APPLE_PAY_VERSION, request);
    // The customer's choices so far: each handler answers from them and the event, and the order is priced by them.
    let sheet = openSheet(request);
    const answered = (answer) => {
      sheet = answer.sheet;
      return answer.update;
    };
    session.onvalidatemerchant = async (event) => {
      try {
        session.completeMerchantValidation(await server.validateMerchant(event.validationURL));
      } catch {
        session.abort();
        resolve();
      }
    };
    session.onshippingmethodselected = (event) => {
      session.completeShippingMethodSelection(answered(shippingMethodSelected(request, order, sheet, event.shippingMethod)));
    };
    session.onshippingcontactselected = (event) => {
      const update = answered(shippingContactSelected(request, order, sheet, event.shippingContact));
      session.completeShippingContactSelection({ ...update, errors: applePayErrors(update.errors) });
    };
    session.oncouponcodechanged = (event) => {
      const update = answered(couponCodeChanged(request, order, sheet, event.couponCode));
      session.completeCouponCodeChange({ ...update, errors: applePayErrors(update.errors) });
    };
    session.onpaymentauthorized = async (event) => {
      try {
        const { orderDetails } = await server.pay(event.payment.token, sheet);
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

/** The Payment Request API with Apple Pay as the method: `shape` holds `methodData`, `details` and `options`. */
export async function payWithPaymentRequest(shape, order, server) {
  const request = new PaymentRequest(shape.methodData, shape.details, shape.options);
  let sheet = openSheet(shape);
  const details = (answer) => {
    sheet = answer.sheet;
    return paymentDetailsUpdate(shape, order, sheet, answer.update);
  };
  request.onmerchantvalidation = (event) => event.complete(server.validateMerchant(event.validationURL));
  request.onshippingoptionchange = (event) => {
    event.updateWith(details(shippingMethodSelected(shape, order, sheet, { identifier: request.shippingOption })));
  };
  request.onshippingaddresschange = (event) => {
    event.updateWith(details(shippingContactSelected(shape, order, sheet, contactFromAddress(request.shippingAddress))));
  };
  request.onpaymentmethodchange = (event) => {
    // Apple Pay reports a coupon code as a payment method change; a change of card leaves the total as it is.
    if (typeof event.methodDetails?.couponCode !== "string") return;
    const update = details(couponCodeChanged(shape, order, sheet, event.methodDetails.couponCode));
    event.updateWith({ ...update, paymentMethodErrors: applePayErrors(update.paymentMethodErrors) });
  };
  let response;
  try {
    response = await request.show();
  } catch (error) {
    if (error.name === "AbortError") return; // the customer closed the sheet
    throw error;
  }
  try {
    const { orderDetails } = await server.pay(response.details.token, sheet);
    await response.complete("success", { data: { orderDetails } });
  } catch {
    await response.complete("fail"); // the page already shows why
  }
}
