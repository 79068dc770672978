// The checkout playground: pays for the edited order with Apple Pay in Safari, or simulates the payment in any browser
// (the same server call without a token), then shows the orderDetails Apple Pay hands to Wallet. The payment sheet's
// changes are answered by the shop's handlers (checkout-sheet.js), in Safari's sheet and in the page's simulated one,
// and the order's payment follows their totals.
import { callJSON, flagField, showProblems } from "./dashboard-api.js";
import { sameAmount, toApplePayJS, toPaymentRequestAPI } from "./checkout-request.js";
import { record, rememberOrder, renderMadeOrders } from "./checkout-history.js";
import { offerOf, orderWithPayment, priceSheet } from "./checkout-sheet.js";
import { adoptSheet, onSheetAnswer, showSheet } from "./checkout-sheet-panel.js";
import { formatJSON } from "./checkout-source.js";
import { showSource } from "./checkout-source-panel.js";
import { applePayAvailable, payWithApplePayJS, payWithPaymentRequest } from "./checkout-wallet.js";

const root = document.getElementById("checkout");
const requestBox = document.getElementById("payment-request");
const orderBox = document.getElementById("order-content");
const simulateButton = document.getElementById("simulate");
const applePayButton = document.getElementById("apple-pay");
const result = document.getElementById("pay-result");
const problemList = document.getElementById("pay-problems");
const hints = {
  applePayJS: "An <code>ApplePayPaymentRequest</code>, as <code>new ApplePaySession(13, request)</code> takes it.",
  paymentRequest: "The method data, details and options, as <code>new PaymentRequest(methodData, details, options)</code> takes them.",
};
const DETAIL_KEYS = ["orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken"];

let method = "applePayJS";
let lastDetails = null;
// The Apple Pay JS shipping methods last edited: converting back from the Payment Request API, whose shipping options
// have no detail or delivery dates, gives them back.
let knownShippingMethods = [];
// The simulation's Idempotency-Key: a retry of the same payment reuses it, a new payment (after a success or an edit)
// gets a new one.
let attempt = null;

/** An error the page has already shown where it belongs. */
class ShownError extends Error {}

// MARK: The textboxes

/** The box's JSON object, or `undefined` after saying why not next to the box (unless `quiet`, while typing). */
function read(box, name, { quiet = false } = {}) {
  let value;
  let message = "";
  try {
    value = JSON.parse(box.value);
    if (value === null || typeof value !== "object" || Array.isArray(value)) message = `${name} must be a JSON object.`;
  } catch (error) {
    message = `${name} is not valid JSON: ${error.message}.`;
  }
  if (!message || !quiet) flagField(box, message);
  return message ? undefined : value;
}

/** Both payloads, or a ShownError naming the boxes to fix; nothing is sent then. */
function payloads() {
  const request = read(requestBox, "Payment request");
  const order = read(orderBox, "Order content");
  if (request === undefined || order === undefined) {
    const names = [request === undefined && "Payment request", order === undefined && "Order content"].filter(Boolean);
    showMessage(`Nothing was sent: fix the JSON in ${names.join(" and ")}.`, "error");
    throw new ShownError();
  }
  return { request, order };
}

/** The payment sheet charges its total and the server checks the token against payment.total: they must agree. */
function checkTotal(priced, request, order) {
  const charged = { amount: priced.total.amount, currency: offerOf(request).currency };
  const total = order.payment?.total;
  if (!total || (sameAmount(charged.amount, total.amount) && charged.currency === total.currency)) return;
  showMessage(
    `The payment sheet charges ${charged.amount} ${charged.currency} but the order's payment.total is ${total.amount} ${total.currency}. ` +
      "A real payment would be refused (amount_mismatch): make them equal, or change a choice on the payment sheet to apply its totals.",
    "error",
  );
  throw new ShownError();
}

/** The sheet must not show an address error: Apple Pay does not let the customer pay until the address is fixed. */
function checkSheet(priced) {
  if (!priced.contactErrors.length) return;
  const errors = priced.contactErrors.map((error) => error.message).join(" ");
  showMessage(`Nothing was sent: the payment sheet shows an error for the ship-to address, so the customer cannot pay yet. ${errors}`, "error");
  throw new ShownError();
}

function formatTotal({ amount, currency }) {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(Number(amount));
  } catch {
    return amount && currency ? `${amount} ${currency}` : "—";
  }
}

/** Follows an edit: the sheet and its total, the source code, and a new payment attempt. */
function edited() {
  attempt = null;
  const request = read(requestBox, "Payment request", { quiet: true });
  const order = read(orderBox, "Order content", { quiet: true });
  if (request && method === "applePayJS") knownShippingMethods = request.shippingMethods ?? [];
  const priced = showSheet(request && order ? { request, order, api: method } : null);
  document.getElementById("pay-total").textContent = priced
    ? formatTotal({ amount: priced.total.amount, currency: offerOf(request).currency })
    : "—";
  if (request && order) {
    const applePayRequest = method === "applePayJS" ? request : toApplePayJS(request, knownShippingMethods);
    const paymentRequestShape = method === "paymentRequest" ? request : toPaymentRequestAPI(request, root.dataset.merchantIdentifier);
    showSource({ origin: location.origin, applePayRequest, paymentRequestShape, order, orderDetails: lastDetails });
  }
}

function switchMethod(next) {
  const request = read(requestBox, "Payment request");
  if (request === undefined) {
    document.querySelector(`input[name="method"][value="${method}"]`).checked = true;
    return;
  }
  const converted =
    next === "paymentRequest" ? toPaymentRequestAPI(request, root.dataset.merchantIdentifier) : toApplePayJS(request, knownShippingMethods);
  requestBox.value = formatJSON(converted);
  method = next;
  document.getElementById("payment-request-hint").innerHTML = hints[next];
  edited();
}

// MARK: Results

function showMessage(text, tone) {
  const message = document.createElement("p");
  message.className = `alert alert-${tone}`;
  message.textContent = text;
  result.replaceChildren(message);
}

/** The four values in the order Apple documents them (the server's JSON sorts its keys). */
function inAppleOrder(orderDetails) {
  return Object.fromEntries(DETAIL_KEYS.map((key) => [key, orderDetails[key]]));
}

function showOrderDetails(shown, order) {
  const code = document.createElement("pre");
  code.className = "code json-lines";
  // One block per line, so that a long value wraps under its key rather than at the left edge.
  code.replaceChildren(
    ...JSON.stringify(shown, null, 2)
      .split("\n")
      .map((line) => Object.assign(document.createElement("span"), { textContent: line })),
  );
  const note = document.createElement("p");
  note.className = "muted small";
  note.textContent = "Apple Pay JS hands them to completePayment, the Payment Request API to complete(\"success\", {data: {orderDetails}}).";
  const link = document.createElement("a");
  link.className = "button secondary";
  link.href = `/dashboard/orders/${encodeURIComponent(shown.orderTypeIdentifier)}/${encodeURIComponent(shown.orderIdentifier)}`;
  link.textContent = `Open order ${order?.orderNumber ?? shown.orderIdentifier}`;
  document.getElementById("order-details").replaceChildren(code, note, link);
}

// MARK: Server calls

async function send(path, body, headers = {}) {
  let answer;
  try {
    answer = await callJSON("POST", path, JSON.stringify(body), headers);
  } catch (error) {
    record("POST", path, "no answer", body, { error: { message: error.message } });
    showMessage(`The server could not be reached: ${error.message}`, "error");
    throw new ShownError(error.message);
  }
  record("POST", path, answer.status, body, answer.json);
  if (answer.status >= 200 && answer.status < 300) return answer;
  const error = answer.json.error ?? {};
  showMessage(`The server refused it (${answer.status}${error.code ? ` ${error.code}` : ""}): ${error.message ?? "no reason given"}`, "error");
  showProblems(problemList, error.problems ?? (error.param ? [{ path: error.param, message: error.message }] : []));
  throw new ShownError(error.message);
}

async function validateMerchant(validationURL) {
  return (await send(root.dataset.sessionUrl, { validationURL, domain: location.hostname })).json;
}

// With several order types, the operator picks the one the order is created for.
document.getElementById("order-type")?.addEventListener("change", (event) => {
  try {
    const order = JSON.parse(orderBox.value);
    order.orderTypeIdentifier = event.currentTarget.value;
    orderBox.value = JSON.stringify(order, null, 2);
    edited();
  } catch {
    // An edited order that is not JSON keeps its text; the next submit reports the problem.
  }
});

/** Gives the order in the editor a number no order has yet: order numbers are unique within an order type. */
function renumber() {
  try {
    const order = JSON.parse(orderBox.value);
    if (typeof order.orderNumber !== "string") return;
    order.orderNumber = `PG-${randomKey().slice(0, 8).toUpperCase()}`;
    if (typeof order.orderManagementURL === "string") {
      order.orderManagementURL = order.orderManagementURL.replace(/[^/]*$/, encodeURIComponent(order.orderNumber));
    }
    orderBox.value = JSON.stringify(order, null, 2);
  } catch {
    // An edited order that is not JSON keeps its text; the next submit reports the problem.
  }
}

function randomKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Creates the order: with Apple Pay's token, or without one (a simulation). Answers the checkout's JSON. */
async function submit(token, order) {
  attempt ??= randomKey();
  const { status, json } = await send(root.dataset.paymentsUrl, token ? { token, order } : { order }, token ? {} : { "Idempotency-Key": attempt });
  attempt = null;
  lastDetails = inAppleOrder(json.orderDetails);
  const number = json.order?.orderNumber;
  rememberOrder(lastDetails, number, !token);
  showOrderDetails(lastDetails, json.order);
  await offerTrackInWallet(lastDetails);
  const made = status === 201 ? `Order ${number ?? json.orderDetails.orderIdentifier} created` : "This payment was made before: its order is answered again";
  if (status === 201) renumber();
  showMessage(token ? `Paid with Apple Pay. ${made}.` : `Simulated payment. ${made}; in Safari, Apple Pay would now hand its orderDetails to Wallet.`, "success");
  showProblems(problemList, (json.warnings ?? []).map((warning) => ({ ...warning, severity: "warning" })));
  edited();
  return json;
}

/** A Track in Wallet link to the new order, shown with the button a confirmation page gets from /js/ordertrack.js. */
async function offerTrackInWallet(details) {
  const box = document.getElementById("track-in-wallet");
  const path = box.dataset.urlTemplate
    .replace("{type}", encodeURIComponent(details.orderTypeIdentifier))
    .replace("{id}", encodeURIComponent(details.orderIdentifier));
  // Single-use and short-lived, as Apple asks of package URLs: minted right before the button shows, it adds the order
  // to one Wallet and then answers 410.
  const { json } = await send(path, { singleUse: true, expiresIn: 600 });
  const note = Object.assign(document.createElement("p"), {
    className: "muted small",
    textContent: `POST /api/v1/orders/{type}/{id}/wallet-link {"singleUse": true} made this link: it opens once, until ${json.expiresAt}.`,
  });
  box.replaceChildren();
  window.OrderTrack.addToWallet({ url: json.url, container: box });
  box.append(note);
}

// MARK: Buttons

/** Runs a payment with the buttons disabled; `work` starts at once, inside the click (Safari requires it). */
async function run(work) {
  result.replaceChildren();
  problemList.replaceChildren();
  simulateButton.disabled = applePayButton.disabled = true;
  try {
    await work();
  } catch (error) {
    if (!(error instanceof ShownError)) showMessage(`The payment failed: ${error.message}`, "error");
  } finally {
    simulateButton.disabled = applePayButton.disabled = false;
  }
}

// The simulated sheet's events already gave the order its totals: a payment checks them as the server will.
simulateButton.addEventListener("click", () =>
  run(async () => {
    const { request, order } = payloads();
    const priced = showSheet({ request, order, api: method });
    checkSheet(priced);
    checkTotal(priced, request, order);
    await submit(null, order);
  }),
);

// In Safari the sheet's events come after the click: the order gets the totals of the choices the sheet ended with.
applePayButton.addEventListener("click", () =>
  run(async () => {
    const { request, order } = payloads();
    const pay = (token, sheet) => {
      const paid = orderWithPayment(order, request, priceSheet(request, order, sheet));
      orderBox.value = formatJSON(paid);
      adoptSheet(sheet);
      return submit(token, paid);
    };
    const server = { validateMerchant, pay };
    await (method === "paymentRequest" ? payWithPaymentRequest(request, order, server) : payWithApplePayJS(request, order, server));
  }),
);

// After a change on the simulated sheet the order's payment follows its answer, as the merchant's server would price it.
onSheetAnswer((priced) => {
  // A new choice makes a new payment: what the last one answered no longer applies.
  result.replaceChildren();
  problemList.replaceChildren();
  const request = read(requestBox, "Payment request", { quiet: true });
  const order = read(orderBox, "Order content", { quiet: true });
  if (request && order) orderBox.value = formatJSON(orderWithPayment(order, request, priced));
  edited();
});

for (const radio of document.querySelectorAll('input[name="method"]')) {
  radio.addEventListener("change", () => switchMethod(radio.value));
}
requestBox.addEventListener("input", edited);
orderBox.addEventListener("input", edited);

if (applePayAvailable()) {
  applePayButton.hidden = false;
  simulateButton.classList.replace("primary", "secondary");
  document.getElementById("pay-note").textContent =
    "Apple Pay runs the real flow with the chosen API. Simulate payment creates the order the same way, without a payment token.";
}
// The server's pretty JSON sorts keys and spaces colons; the page shows the payloads as the source code writes them.
for (const box of [requestBox, orderBox]) {
  const value = read(box, "", { quiet: true });
  if (value) box.value = formatJSON(value);
}
renderMadeOrders();
edited();
