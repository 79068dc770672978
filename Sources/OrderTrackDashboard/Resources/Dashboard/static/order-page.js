// The order page: validates the edited order.json as the PATCH it would be and applies it, showing each problem at its
// JSON path.
import { applyMergePatch, callJSON, mergePatch, showProblems } from "./dashboard-api.js";

const form = document.getElementById("order-form");
const editor = document.getElementById("order-json");
const problemList = document.getElementById("problems");
const result = document.getElementById("result");
// The version the editor's text is based on, and that Update sends as If-Match: a change made since (by the API, a
// carrier, another operator) is never overwritten.
let original = JSON.parse(editor.value);
// live-refresh.js does not reload the page under an unsaved edit.
editor.addEventListener("input", () => {
  document.body.dataset.editing = String(editor.value !== editor.defaultValue);
});

function showMessage(text, tone) {
  result.replaceChildren();
  if (!text) return;
  const message = document.createElement("p");
  message.className = `alert alert-${tone}`;
  message.textContent = text;
  result.append(message);
}


async function busy(button, work) {
  button.disabled = true;
  try {
    await work();
  } catch (error) {
    showMessage(`The request failed: ${error.message}`, "error");
  } finally {
    button.disabled = false;
  }
}

/**
 * The editor's change as the merge patch Update sends, or null (the problem shown) when the text is not JSON. The
 * editor never holds the order's authentication token: a patch without it keeps it.
 */
function editedPatch(action) {
  try {
    return JSON.stringify(mergePatch(original, JSON.parse(editor.value)));
  } catch (error) {
    showProblems(problemList, [{ path: "", message: `not valid JSON: ${error.message}`, severity: "error" }]);
    showMessage(`Fix the JSON before ${action}.`, "error");
    return null;
  }
}

async function validate() {
  const patch = editedPatch("validating");
  if (patch === null) return;
  const { status, json } = await callJSON("POST", form.dataset.validateUrl, patch);
  if (status !== 200) {
    showProblems(problemList, []);
    showMessage(json.error?.message ?? `The server answered ${status}.`, "error");
    return;
  }
  showProblems(problemList, json.problems);
  const errors = json.problems.filter((problem) => problem.severity !== "warning").length;
  showMessage(json.valid ? "The order is valid." : `${errors} problem${errors === 1 ? "" : "s"} to fix.`, json.valid ? "success" : "error");
}

/** After a 412: says who changed the order, and offers to reload it or to apply the operator's edit to the new version. */
function showConflict(error) {
  result.replaceChildren();
  const message = document.createElement("p");
  message.className = "alert alert-error";
  const change = error.lastChange ?? {};
  const at = change.at ? new Date(change.at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }) : "a moment ago";
  message.textContent =
    `Not updated: this order changed after you opened it (now version ${error.currentVersion}, by “${change.by ?? "someone"}” ` +
    `on ${at}). Your edit is still here.`;
  const actions = document.createElement("div");
  actions.className = "actions";
  const reapply = document.createElement("button");
  reapply.type = "button";
  reapply.className = "button primary";
  reapply.textContent = `Apply my changes to version ${error.currentVersion}`;
  reapply.addEventListener("click", () => busy(reapply, reapplyOnCurrent));
  const reload = document.createElement("button");
  reload.type = "button";
  reload.className = "button secondary";
  reload.textContent = "Discard my edit and reload";
  reload.addEventListener("click", () => {
    document.body.dataset.editing = "false";
    window.location.assign(window.location.pathname);
  });
  actions.append(reapply, reload);
  result.append(message, actions);
}

/** Reads the current version and puts the operator's own changes on top of it in the editor, to review and update. */
async function reapplyOnCurrent() {
  const patch = editedPatch("re-applying");
  if (patch === null) return;
  const { status, json } = await callJSON("GET", form.dataset.updateUrl);
  if (status !== 200) {
    showMessage(json.error?.message ?? `The server answered ${status}.`, "error");
    return;
  }
  original = json.order;
  form.dataset.version = String(json.version);
  editor.value = JSON.stringify(applyMergePatch(json.order, JSON.parse(patch)), null, 2);
  document.getElementById("changed-notice")?.remove();
  showMessage(`Your changes are applied to version ${json.version} in the editor. Review them, then Update order.`, "info");
}

async function update() {
  const patch = editedPatch("updating");
  if (patch === null) return;
  const { status, json } = await callJSON("PATCH", form.dataset.updateUrl, patch, { "If-Match": `"${form.dataset.version}"` });
  if (status === 412) {
    showProblems(problemList, []);
    showConflict(json.error ?? {});
    return;
  }
  if (status !== 200) {
    showProblems(problemList, json.error?.problems ?? []);
    showMessage(json.error?.message ?? `The server answered ${status}.`, "error");
    return;
  }
  // The page is rendered by the server: reload it to show the new preview and transcript.
  window.location.assign(`${window.location.pathname}?updated=${json.changed ? "changed" : "unchanged"}`);
}

document.getElementById("validate").addEventListener("click", (event) => busy(event.currentTarget, validate));
form.addEventListener("submit", (event) => {
  event.preventDefault();
  busy(document.getElementById("update"), update);
});
