// The "Show source" panel: a toggle, one tab per kind of code (arrow keys move between tabs), and a copy button that
// falls back to selecting the code where the clipboard API is not available (plain-http pages).
import { copyText } from "./clipboard.js";
import { sourceFor } from "./checkout-source.js";

const toggle = document.getElementById("show-source");
const panel = document.getElementById("source");
const tabs = [...panel.querySelectorAll('[role="tab"]')];
const code = document.getElementById("source-code");
const copyStatus = document.getElementById("copy-status");
let kind = "curl";
let currentPayloads = null;

/** Shows the code for `payloads` (see `sourceFor`) in the open tab; the panel keeps them for later tab changes. */
export function showSource(payloads) {
  currentPayloads = payloads;
  if (!panel.hidden) code.textContent = sourceFor(kind, payloads);
}

function choose(tab) {
  kind = tab.dataset.source;
  for (const other of tabs) {
    other.setAttribute("aria-selected", String(other === tab));
    other.tabIndex = other === tab ? 0 : -1;
  }
  document.getElementById("source-panel").setAttribute("aria-labelledby", tab.id);
  copyStatus.textContent = "";
  showSource(currentPayloads);
}

toggle.addEventListener("click", () => {
  panel.hidden = !panel.hidden;
  toggle.setAttribute("aria-expanded", String(!panel.hidden));
  toggle.textContent = panel.hidden ? "Show source" : "Hide source";
  showSource(currentPayloads);
});

for (const tab of tabs) {
  tab.addEventListener("click", () => choose(tab));
  tab.addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
    next.focus();
    choose(next);
  });
}

document.getElementById("copy-source").addEventListener("click", () =>
  copyText(code, copyStatus, {
    copied: "Copied to the clipboard.",
    selected: "The clipboard is not available here: the code is selected, copy it with ⌘C or Ctrl+C.",
  }));
