// The Webhooks page: a confirmation before an endpoint is deleted or its secret rotated. Without this script the page
// still works: the forms go through unasked.

// A form's answer is this page at the form's address, and reloading it would post the form again: a second endpoint,
// another rotation (the secret just shown no longer the newest), another resend. The address becomes the page's own,
// so a reload reads the page (and the secret, shown once, is not shown again).
if (document.querySelector("[data-form-answer]")) history.replaceState(null, "", "/dashboard/webhooks");

for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}
