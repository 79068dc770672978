// The checkout playground's memory: the transcript of server calls (this page only) and the orders made here, kept in
// sessionStorage so that they last as long as the browser tab, survive a reload and never leave the browser.
const STORAGE_KEY = "ordertrack.checkout.orders";
const transcript = document.getElementById("transcript");
const madeList = document.getElementById("made-orders");

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function time(date) {
  const node = element("time", "muted", date.toLocaleTimeString());
  node.dateTime = date.toISOString();
  return node;
}

/** Adds a server call and its answer at the top of the transcript; `status` is a number or why there was none. */
export function record(method, path, status, sent, answer) {
  document.getElementById("transcript-empty").hidden = true;
  const ok = typeof status === "number" && status >= 200 && status < 300;
  const head = element("div", "transcript-head");
  head.append(element("span", `badge badge-${ok ? "green" : "red"}`, String(status)), element("code", "call", `${method} ${path}`));
  const summary = element("summary", "", "JSON");
  summary.append(time(new Date()));
  const bodies = element("details");
  bodies.append(
    summary,
    element("p", "body-label", "Sent"),
    element("pre", "code", JSON.stringify(sent, null, 2)),
    element("p", "body-label", "Answered"),
    element("pre", "code", JSON.stringify(answer, null, 2)),
  );
  const item = element("li");
  item.append(head, bodies);
  transcript.prepend(item);
}

function madeOrders() {
  try {
    return JSON.parse(sessionStorage.getItem(STORAGE_KEY)) ?? [];
  } catch {
    return [];
  }
}

/** Lists the orders made in this tab, newest first, each linking to its page (with the editor). */
export function renderMadeOrders() {
  const orders = madeOrders();
  document.getElementById("made-empty").hidden = orders.length > 0;
  madeList.replaceChildren(
    ...orders.map((order) => {
      const link = element("a", "order-link", order.orderNumber ?? order.orderIdentifier);
      link.href = `/dashboard/orders/${encodeURIComponent(order.orderTypeIdentifier)}/${encodeURIComponent(order.orderIdentifier)}`;
      const text = element("div", "made-text");
      text.append(link, element("div", "sub", order.orderIdentifier));
      const item = element("li");
      item.append(text, element("span", order.simulated ? "badge" : "badge badge-blue", order.simulated ? "Simulated" : "Apple Pay"), time(new Date(order.at)));
      return item;
    }),
  );
}

/** Remembers an order the playground made (once, however often its payment was answered). */
export function rememberOrder(orderDetails, orderNumber, simulated) {
  const others = madeOrders().filter(
    (order) => order.orderIdentifier !== orderDetails.orderIdentifier || order.orderTypeIdentifier !== orderDetails.orderTypeIdentifier,
  );
  const made = {
    orderTypeIdentifier: orderDetails.orderTypeIdentifier,
    orderIdentifier: orderDetails.orderIdentifier,
    orderNumber,
    simulated,
    at: new Date().toISOString(),
  };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify([made, ...others].slice(0, 50)));
  renderMadeOrders();
}
