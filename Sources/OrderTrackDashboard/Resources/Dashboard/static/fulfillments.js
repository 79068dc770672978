// The fulfillment updates page: a chosen file's text goes into the form's CSV field, which the form posts. Without
// this script, rows pasted into the field are posted the same way.
const file = document.getElementById("fulfillments-file");
const field = document.getElementById("fulfillments-csv");
file.addEventListener("change", async () => {
  const chosen = file.files?.[0];
  if (chosen) field.value = await chosen.text();
});
