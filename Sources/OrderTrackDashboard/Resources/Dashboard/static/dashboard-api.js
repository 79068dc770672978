// Calls the dashboard's JSON endpoints with the session cookie (sent by the browser) and the page's CSRF token.
const csrfToken = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

/** Sends `body` (a string) with any extra `headers` and answers the status and the parsed JSON answer. */
export async function callJSON(method, url, body, headers = {}) {
  const response = await fetch(url, {
    method,
    body,
    credentials: "same-origin",
    headers: { ...headers, "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
  });
  let json = null;
  try {
    json = await response.json();
  } catch {
    json = { error: { message: `the server answered ${response.status} without JSON` } };
  }
  return { status: response.status, json };
}

// Arrays the server's PATCH merges element by element, by each element's identifier (as OrderPatch does): a patch
// names only the elements it changes, with only their changed members, so it never reverts another element.
const identifiedArrays = { fulfillments: "fulfillmentIdentifier", returns: "returnIdentifier" };
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const identifiedBy = (key, before, after) =>
  Array.isArray(before) && Array.isArray(after) && identifiedArrays[key] !== undefined
  && [...before, ...after].every((element) => isObject(element) && typeof element[identifiedArrays[key]] === "string")
    ? identifiedArrays[key]
    : null;

/**
 * A JSON Merge Patch (RFC 7396) that turns `before` into `after`: changed values, removed keys as null, and for the
 * identified arrays only the changed elements. The server applies it as PATCH does, so an edit of the whole document
 * only sends what changed.
 */
export function mergePatch(before, after) {
  if (!isObject(before) || !isObject(after)) return after;
  const patch = {};
  for (const key of Object.keys(before)) {
    if (!(key in after)) patch[key] = null;
  }
  for (const [key, value] of Object.entries(after)) {
    if (!(key in before)) {
      patch[key] = value;
    } else if (JSON.stringify(before[key]) !== JSON.stringify(value)) {
      const id = identifiedBy(key, before[key], value);
      if (id) {
        patch[key] = value.flatMap((element) => {
          const old = before[key].find((candidate) => candidate[id] === element[id]);
          if (!old) return [element];
          if (JSON.stringify(old) === JSON.stringify(element)) return [];
          return [{ [id]: element[id], ...mergePatch(old, element) }];
        });
      } else {
        patch[key] = isObject(before[key]) && isObject(value) ? mergePatch(before[key], value) : value;
      }
    }
  }
  return patch;
}

/** Applies a JSON Merge Patch (RFC 7396) to `target`: what re-applying an operator's edit to a newer version does. */
export function applyMergePatch(target, patch) {
  if (!isObject(patch)) return patch;
  const result = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    const id = identifiedBy(key, result[key], value);
    if (value === null) {
      delete result[key];
    } else if (id) {
      const merged = [...result[key]];
      for (const element of value) {
        const index = merged.findIndex((candidate) => candidate[id] === element[id]);
        if (index >= 0) merged[index] = applyMergePatch(merged[index], element);
        else merged.push(element);
      }
      result[key] = merged;
    } else {
      result[key] = applyMergePatch(result[key], value);
    }
  }
  return result;
}

/** Shows `message` under `field` (in the element `<field id>-error`) and marks the field invalid; "" clears both. */
export function flagField(field, message) {
  document.getElementById(`${field.id}-error`).textContent = message;
  if (message) field.setAttribute("aria-invalid", "true");
  else field.removeAttribute("aria-invalid");
}

/** Fills `list` with validation problems, each with its JSON path (warnings and errors told apart by class). */
export function showProblems(list, problems) {
  list.replaceChildren(
    ...problems.map((problem) => {
      const item = document.createElement("li");
      item.className = problem.severity === "warning" ? "warning" : "error";
      const path = document.createElement("code");
      path.textContent = problem.path || "(whole order)";
      const message = document.createElement("span");
      message.textContent = problem.message;
      item.append(path, message);
      return item;
    }),
  );
}
