// The order types page: uploads a certificate (.p12) or an APNs key (.p8) as the merchant API's JSON body, and shows
// the server's refusal (wrong password, wrong order type, not a key) next to the form.
import { callJSON } from "./dashboard-api.js";

function base64(buffer) {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

async function body(form) {
  const file = form.elements.file.files[0];
  if (form.dataset.kind === "certificate") {
    return { pkcs12: base64(await file.arrayBuffer()), password: form.elements.password.value };
  }
  return { p8: await file.text(), keyID: form.elements.keyID.value.trim(), teamID: form.elements.teamID.value.trim() };
}

function url(form, type) {
  const path = `/dashboard/api/order-types/${encodeURIComponent(type)}`;
  return form.dataset.kind === "certificate" ? path : `${path}/apns-key`;
}

async function upload(form) {
  const result = form.querySelector(".upload-result");
  const show = (text) => {
    result.replaceChildren();
    const message = document.createElement("p");
    message.className = "alert alert-error";
    message.textContent = text;
    result.append(message);
  };
  const type = form.elements.orderTypeIdentifier.value.trim();
  if (!type) return show("Enter the order type identifier.");
  if (!form.elements.file.files.length) return show("Choose the file to upload.");
  const { status, json } = await callJSON("PUT", url(form, type), JSON.stringify(await body(form)));
  if (status !== 200) return show(json.error?.message ?? `The server answered ${status}.`);
  const query = new URLSearchParams({ uploaded: form.dataset.kind, type });
  window.location.assign(`${window.location.pathname}?${query}`);
}

for (const form of document.querySelectorAll("form.upload")) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await upload(form);
    } catch (error) {
      form.querySelector(".upload-result").textContent = `The upload failed: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
}
