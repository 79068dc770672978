// Reloads the page when the server says what it shows has changed (server-sent events from /dashboard/events), unless
// the person is in the middle of an edit: then it only says so.
const url = document.body.dataset.events;

if (url) {
  const events = new EventSource(url);
  events.addEventListener("changed", () => {
    events.close();
    if (document.body.dataset.editing !== "true") {
      window.location.reload();
      return;
    }
    const notice = document.createElement("p");
    notice.className = "alert alert-info";
    notice.setAttribute("role", "status");
    notice.textContent = "This order changed since the page was loaded. Reload to see the new version (your edit would be lost).";
    document.querySelector("main")?.prepend(notice);
  });
}
