// The Carriers page: copy buttons for webhook URLs, a confirmation before a connection is deleted, and the connect
// form showing only the fields the chosen provider takes. Without this script the page still works: every field shows
// and a delete goes through unasked.
import { copyText } from "./clipboard.js";

const copyStatus = document.querySelector(".copy-status");

for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", () =>
    copyText(document.getElementById(button.dataset.copy), copyStatus, {
      copied: "Webhook URL copied to the clipboard.",
      selected: "The clipboard is not available here: the URL is selected, copy it with ⌘C or Ctrl+C.",
    }));
}

for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}

// ShipEngine signs with published RSA keys, so it takes a JWKS URL and no secret; every other provider the reverse.
const provider = document.getElementById("carrier-provider");
const secretField = document.querySelector('[data-for="secret"]');
const jwksField = document.querySelector('[data-for="jwks"]');
function showProviderFields() {
  const keys = provider.value === "shipengine";
  secretField.hidden = keys;
  jwksField.hidden = !keys;
  // A hidden field is not sent: a secret typed before switching to ShipEngine does not reach the server.
  secretField.querySelector("input").disabled = keys;
  jwksField.querySelector("input").disabled = !keys;
}
provider.addEventListener("change", showProviderFields);
showProviderFields();
