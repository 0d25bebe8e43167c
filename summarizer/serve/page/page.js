"use strict";
// The page of `summarize serve`: sends the text (JSON) or the file (a form) to v1/summarize and
// shows the answer as `summarize --format html` does: the summary, then the document with the
// chosen sentences marked and their scores. Text from the service is set as text, never as markup.
(() => {
  const $ = (id) => document.getElementById(id);
  const LENGTHS = {
    k: { value: 3, min: 1, max: "", step: 1 },
    ratio: { value: 0.3, min: 0.01, max: 1, step: 0.01 },
    max_words: { value: 100, min: 1, max: "", step: 1 },
  };
  // Chinese, Japanese and full-width marks: no space between two sentences that meet in them.
  const CLOSE = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]$/;
  const OPEN = /^[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;
  let file = null;

  function choose(chosen) {
    file = chosen || null;
    $("chosen").textContent = file ? file.name : "";
    $("clear").hidden = !file;
    $("text").disabled = Boolean(file);
  }

  function status(message, error) {
    $("status").textContent = message;
    $("status").className = error ? "error" : "";
  }

  function request() {
    const length = $("length").value;
    const amount = Number($("amount").value);
    if (file) {
      const form = new FormData();
      form.append("file", file, file.name);
      form.append(length, String(amount));
      return { body: form };
    }
    const text = $("text").value;
    if (!text.trim()) return null;
    return {
      body: JSON.stringify({ text, format: $("format").value, [length]: amount }),
      headers: { "Content-Type": "application/json" },
    };
  }

  function show(answer) {
    const summary = $("summary");
    summary.replaceChildren(...answer.sentences.map((sentence) => {
      const item = document.createElement("li");
      item.textContent = sentence;
      return item;
    }));
    const chosen = new Set(answer.indices);
    const paragraphs = new Map();
    answer.document.forEach((sentence, index) => {
      const score = answer.sentence_scores[index];
      const number = answer.paragraphs[index];
      if (!paragraphs.has(number)) paragraphs.set(number, document.createElement("p"));
      const paragraph = paragraphs.get(number);
      if (paragraph.childNodes.length && !(CLOSE.test(answer.document[index - 1]) && OPEN.test(sentence))) {
        paragraph.append(" ");
      }
      const part = document.createElement(chosen.has(index) ? "mark" : "span");
      part.textContent = sentence;
      if (score !== null) part.title = `score ${score.toFixed(3)}`;
      paragraph.append(part);
      if (chosen.has(index)) {
        const label = document.createElement("span");
        label.className = "score";
        label.textContent = score.toFixed(3);
        paragraph.append(label);
      }
    });
    $("document").replaceChildren(...paragraphs.values());
    $("title").textContent = answer.file || "Document";
    $("result").hidden = false;
    status(`${answer.indices.length} of ${answer.document.length} sentences.`);
  }

  async function summarize(event) {
    event.preventDefault();
    const ask = request();
    if (!ask) {
      status("Paste some text or choose a file first.", true);
      return;
    }
    $("go").disabled = true;
    status("Summarizing…");
    try {
      const response = await fetch("v1/summarize", { method: "POST", ...ask });
      const answer = await response.json().catch(() => ({}));
      if (response.ok) show(answer);
      else status(answer.error || `The service answered ${response.status} ${response.statusText}.`, true);
    } catch (error) {
      status(`The service cannot be reached: ${error.message}`, true);
    } finally {
      $("go").disabled = false;
    }
  }

  function lengthChanged() {
    Object.assign($("amount"), LENGTHS[$("length").value]);
  }

  $("ask").addEventListener("submit", summarize);
  $("length").addEventListener("change", lengthChanged);
  $("file").addEventListener("change", () => choose($("file").files[0]));
  $("clear").addEventListener("click", () => {
    $("file").value = "";
    choose(null);
  });
  // A file dropped anywhere on the page is the document (rather than the browser opening it).
  const area = $("text");
  document.addEventListener("dragover", (event) => {
    event.preventDefault();
    area.classList.add("over");
  });
  document.addEventListener("dragleave", () => area.classList.remove("over"));
  document.addEventListener("drop", (event) => {
    event.preventDefault();
    area.classList.remove("over");
    if (event.dataTransfer.files.length) choose(event.dataTransfer.files[0]);
  });
})();
