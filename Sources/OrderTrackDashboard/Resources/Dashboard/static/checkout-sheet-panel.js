// The playground's payment sheet: labelled controls that send the sheet's events (shipping method, ship-to address,
// coupon code) to the shop's handlers in checkout-sheet.js, the functions Safari's events call too, and show each
// answer where the sheet shows it: the lines and the total, and every error next to its field.
import {
  SHOP, couponCodeChanged, offerOf, openSheet, paymentDetailsUpdate, priceSheet, regionName, shippingContactSelected,
  shippingMethodSelected,
} from "./checkout-sheet.js";
import { formatJSON } from "./checkout-source.js";
import { flagField } from "./dashboard-api.js";

const methodSelect = document.getElementById("sheet-method");
const countrySelect = document.getElementById("sheet-country");
const postalInput = document.getElementById("sheet-postal-code");
const couponInput = document.getElementById("sheet-coupon");
const applyButton = document.querySelector("#sheet-coupon-form button");
const lines = document.getElementById("sheet-lines");
const answerBox = document.getElementById("sheet-answer");
// Where the sheet shows an error of each contact field; any other error shows at the country.
const errorFields = { country: countrySelect, countryCode: countrySelect, postalCode: postalInput };

// Each event, and how its handler's answer goes back to the sheet, in each API.
const CALLS = {
  method: {
    applePayJS: "onshippingmethodselected → session.completeShippingMethodSelection(update)",
    paymentRequest: "shippingoptionchange → event.updateWith(details)",
  },
  contact: {
    applePayJS: "onshippingcontactselected → session.completeShippingContactSelection(update)",
    paymentRequest: "shippingaddresschange → event.updateWith(details)",
  },
  coupon: {
    applePayJS: "oncouponcodechanged → session.completeCouponCodeChange(update)",
    paymentRequest: "paymentmethodchange with methodDetails.couponCode → event.updateWith(details)",
  },
};

let sheet = null; // the customer's choices, as the handlers keep them
let context = null; // the page's payloads: { request, order, api }
let lastAnswer = null; // { kind, update } of the last event
let answered = () => {};

/** The redacted contact the sheet hands to onshippingcontactselected: country and postal code. */
function shippingContact() {
  const code = countrySelect.value;
  return { countryCode: code, country: countrySelect.selectedOptions[0]?.textContent.trim() ?? code, postalCode: postalInput.value.trim() };
}

function money(amount) {
  const { currency } = offerOf(context.request);
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(Number(amount));
  } catch {
    return `${amount} ${currency}`;
  }
}

/** "Jun 3 – 5", from an ApplePayShippingMethod's dateComponentsRange (Gregorian calendar dates). */
function arrival(range) {
  const date = (parts) => parts && new Date(Date.UTC(parts.years, (parts.months ?? 1) - 1, parts.days ?? 1));
  const start = date(range?.startDateComponents);
  const end = date(range?.endDateComponents);
  if (!start || !end || Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return "";
  const format = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
  return format.formatRange(start, end);
}

/** Sends one of the sheet's events to its handler, then shows the answer and hands the new sheet to the page. */
function fire(kind, handle) {
  if (!context) return;
  const answer = handle(context.request, context.order, sheet);
  sheet = answer.sheet;
  lastAnswer = { kind, update: answer.update };
  answered(render());
}

function renderMethods(priced) {
  const offered = priced.shippingMethods;
  methodSelect.replaceChildren(
    ...offered.map((method) => {
      const price = Number(method.amount) === 0 ? "Free" : money(method.amount);
      return new Option(`${method.label} · ${price}`, method.identifier, false, method.identifier === priced.shippingMethod);
    }),
  );
  if (!offered.length) methodSelect.append(new Option("None for this address", ""));
  methodSelect.disabled = !offered.length;
  const chosen = offered.find((method) => method.identifier === priced.shippingMethod);
  document.getElementById("sheet-method-detail").textContent = [chosen?.detail, arrival(chosen?.dateComponentsRange)]
    .filter(Boolean)
    .join(" · ");
}

function renderErrors(priced) {
  const messages = new Map();
  for (const error of priced.contactErrors) messages.set(errorFields[error.contactField] ?? countrySelect, error.message);
  for (const error of priced.couponErrors) messages.set(couponInput, error.message);
  for (const field of [countrySelect, postalInput, couponInput]) {
    flagField(field, messages.get(field) ?? "");
  }
}

function renderLines(priced) {
  const row = (name, value, className) => {
    const line = document.createElement("div");
    if (className) line.className = className;
    line.append(Object.assign(document.createElement("dt"), { textContent: name }), Object.assign(document.createElement("dd"), { textContent: value }));
    return line;
  };
  lines.replaceChildren(
    ...priced.lineItems.map((item) => row(item.label, money(item.amount))),
    row(`Pay ${priced.total.label}`, money(priced.total.amount), "sheet-total"),
  );
}

function renderAnswer() {
  answerBox.hidden = !lastAnswer;
  if (!lastAnswer) return;
  const { request, order, api } = context;
  const { kind, update } = lastAnswer;
  document.getElementById("sheet-answer-call").textContent = CALLS[kind][api];
  const shown = api === "paymentRequest" ? paymentDetailsUpdate(request, order, sheet, update) : update;
  document.getElementById("sheet-answer-code").textContent = formatJSON(shown);
}

function renderRules() {
  const { country, shippingMethods } = offerOf(context.request);
  const domestic = shippingMethods.filter((method) => SHOP.domesticOnly.includes(method.identifier)).map((method) => method.label);
  const coupons = Object.entries(SHOP.coupons).map(([code, coupon]) => `${code} takes ${coupon.percentOff}% off the goods`);
  document.getElementById("sheet-rules").textContent =
    `The shop ships to ${SHOP.shipsTo.map(regionName).join(" and ")}` +
    (domestic.length ? ` (${domestic.join(", ")} only within ${regionName(country)})` : "") +
    `; ${coupons.join("; ")}.`;
}

/** Shows the sheet for the current payloads and choices; answers what it shows (see `priceSheet`). */
function render() {
  const priced = priceSheet(context.request, context.order, sheet);
  renderMethods(priced);
  renderErrors(priced);
  renderLines(priced);
  renderAnswer();
  renderRules();
  return priced;
}

/**
 * Shows the sheet for the page's payloads, `{ request, order, api }` (the request in either API's shape), or empties
 * it when they are `null` (a box is not JSON). The first time it opens the sheet and, as Safari does, sends the
 * shown address to onshippingcontactselected. Answers what the sheet shows, or `null`.
 */
export function showSheet(payloads) {
  context = payloads;
  for (const control of [methodSelect, countrySelect, postalInput, couponInput, applyButton]) control.disabled = !context;
  if (!context) {
    lines.replaceChildren();
    return null;
  }
  if (!sheet) {
    sheet = openSheet(context.request);
    couponInput.value = sheet.couponCode;
    const answer = shippingContactSelected(context.request, context.order, sheet, shippingContact());
    sheet = answer.sheet;
    lastAnswer = { kind: "contact", update: answer.update };
  }
  return render();
}

/** Calls `callback(priced)` after each of the sheet's events, with what the sheet then shows. */
export function onSheetAnswer(callback) {
  answered = callback;
}

/** Takes over the choices a real Apple Pay sheet ended with, so that the page shows what was paid for. */
export function adoptSheet(next) {
  sheet = next;
  const contact = next.shippingContact;
  if (contact) {
    const code = (contact.countryCode ?? "").toUpperCase();
    if (![...countrySelect.options].some((option) => option.value === code)) countrySelect.append(new Option(regionName(code), code));
    countrySelect.value = code;
    postalInput.value = contact.postalCode ?? "";
  }
  couponInput.value = next.couponCode ?? "";
}

methodSelect.addEventListener("change", () => {
  if (!context) return;
  // Safari hands over the whole ApplePayShippingMethod; the handler reads its identifier.
  const chosen = priceSheet(context.request, context.order, sheet).shippingMethods.find((method) => method.identifier === methodSelect.value);
  fire("method", (request, order, current) => shippingMethodSelected(request, order, current, chosen));
});
for (const field of [countrySelect, postalInput]) {
  field.addEventListener("change", () => fire("contact", (request, order, current) => shippingContactSelected(request, order, current, shippingContact())));
}
document.getElementById("sheet-coupon-form").addEventListener("submit", (event) => {
  event.preventDefault();
  fire("coupon", (request, order, current) => couponCodeChanged(request, order, current, couponInput.value.trim()));
});
