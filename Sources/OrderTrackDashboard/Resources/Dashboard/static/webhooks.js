// The Webhooks page: a confirmation before an endpoint is deleted or its secret rotated. Without this script the page
// still works: the forms go through unasked.
for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}
