// The answer checker's front end (anywidget ESM; loaded from the kernel, no network).
// One message carries the click and the text it grades: {event: "check", text, attempt}.
// The kernel answers with the `verdict` trait, {attempt, text, html}; a view shows the
// newest attempt's verdict and fires an "ic-verdict" DOM event for every one it gets.
function render({ model, el }) {
  el.classList.add("ic-answer-box");
  el.dataset.exercise = model.get("exercise_id");

  const row = document.createElement("div");
  row.className = "ic-row";
  const label = document.createElement("label");
  label.textContent = "Your answer:";
  const input = document.createElement("input");
  input.type = "text";
  input.className = "ic-answer-input";
  input.placeholder = model.get("placeholder");
  input.autocomplete = "off";
  input.spellcheck = false;
  label.appendChild(input);
  const check = document.createElement("button");
  check.className = "ic-check jupyter-button mod-primary";
  check.textContent = "Check";
  check.title = "grade the answer in the box";
  const reveal = document.createElement("button");
  reveal.className = "ic-reveal jupyter-button";
  reveal.textContent = "Show answer";
  reveal.title = "show the answer";
  row.append(label, check, reveal);
  const verdict = document.createElement("div");
  verdict.className = "ic-verdict";
  verdict.setAttribute("aria-live", "polite");
  el.append(row, verdict);

  let attempt = model.get("attempts") || 0; // the last attempt this view sent
  let shown = 0; // the attempt whose verdict (or "Checking") is on screen

  function submit() {
    attempt = Math.max(attempt, model.get("attempts") || 0) + 1;
    const text = input.value;
    shown = attempt;
    const pending = document.createElement("span");
    pending.className = "ic-checking";
    pending.dataset.pending = String(attempt);
    pending.textContent = "Checking…";
    verdict.replaceChildren(pending);
    model.send({ event: "check", text, attempt });
  }

  function onVerdict() {
    const v = model.get("verdict");
    if (!v || !v.attempt) return;
    el.dispatchEvent(new CustomEvent("ic-verdict", { detail: v, bubbles: true }));
    if (v.attempt < shown) return; // a newer attempt is waiting for its verdict
    shown = v.attempt;
    verdict.innerHTML = v.html; // built and escaped by the kernel
  }

  check.addEventListener("click", submit);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      submit();
    }
  });
  reveal.addEventListener("click", () => model.send({ event: "reveal" }));
  model.on("change:verdict", onVerdict);
  onVerdict(); // a view drawn again shows the last verdict
  return () => model.off("change:verdict", onVerdict);
}

export default { render };
