// Reloads the page when the server says what it shows has changed (server-sent events from /dashboard/events), unless
// the person is in the middle of an edit: then it only says so, and only when the order's content changed (a push
// attempt or a re-notify changes the transcript, not the order).
const url = document.body.dataset.events;

function listen(eventsURL) {
  const events = new EventSource(eventsURL);
  events.addEventListener("changed", (event) => {
    events.close();
    if (document.body.dataset.editing !== "true") {
      window.location.reload();
      return;
    }
    const loaded = document.getElementById("order-form")?.dataset.version;
    let version = null;
    try {
      version = JSON.parse(event.data).version ?? null;
    } catch {
      version = null;
    }
    if (loaded !== undefined && version !== null && String(version) === loaded) {
      // Same content: keep listening from now on.
      const fresh = new URL(eventsURL, window.location.href);
      fresh.searchParams.delete("since");
      listen(fresh.pathname + fresh.search);
      return;
    }
    if (document.getElementById("changed-notice")) return;
    const notice = document.createElement("p");
    notice.id = "changed-notice";
    notice.className = "alert alert-info";
    notice.setAttribute("role", "status");
    notice.textContent =
      version === null
        ? "This order changed since the page was loaded. Update order checks your edit against the new version."
        : `This order changed since the page was loaded (now version ${version}). Update order checks your edit against it, so nothing is overwritten.`;
    document.querySelector("main")?.prepend(notice);
  });
}

if (url) listen(url);
