// The order page: validates the edited order.json as the PATCH it would be and applies it, showing each problem at its
// JSON path.
import { callJSON, mergePatch, showProblems } from "./dashboard-api.js";

const form = document.getElementById("order-form");
const editor = document.getElementById("order-json");
const problemList = document.getElementById("problems");
const result = document.getElementById("result");
const original = JSON.parse(editor.value);
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

async function update() {
  const patch = editedPatch("updating");
  if (patch === null) return;
  const { status, json } = await callJSON("PATCH", form.dataset.updateUrl, patch);
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
