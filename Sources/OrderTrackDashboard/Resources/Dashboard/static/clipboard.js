// Copies a node's text for a copy button; plain-http pages have no clipboard API, so there the text is selected for
// the person to copy, and `status` says which happened.
export async function copyText(node, status, { copied, selected }) {
  try {
    await navigator.clipboard.writeText(node.textContent.trim());
    status.textContent = copied;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(node);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    status.textContent = selected;
  }
}
