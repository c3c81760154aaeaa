// Cutoff's code editor: CodeMirror 6 over each <textarea class="code-editor">. The textarea
// stays the form field (hidden, kept in sync), so posting the form and drafts see every edit.
import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { indentUnit } from "@codemirror/language";
import { python } from "@codemirror/lang-python";

function attach(textarea) {
  const label = document.querySelector('label[for="' + textarea.id + '"]');
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      // Tab indents; Escape then Tab leaves the editor (CodeMirror's own focus escape).
      keymap.of([indentWithTab]),
      python(),
      indentUnit.of("    "),  // PEP 8: four spaces, as the starter files are written
      EditorView.contentAttributes.of({
        // A tab stop on the editable content itself: its scroller then holds focusable
        // content, as a keyboard user (and axe's scrollable-region-focusable) needs.
        tabindex: "0",
        "aria-label": label ? label.textContent.trim() : "Python",
        "aria-describedby": textarea.getAttribute("aria-describedby") || "",
      }),
      EditorView.updateListener.of(function (update) {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        textarea.dispatchEvent(new Event("input", { bubbles: true }));
      }),
    ],
  });
  textarea.insertAdjacentElement("afterend", view.dom);
  textarea.hidden = true;
  textarea.codeEditor = view;
  view.dom.classList.add("code-editor-view");
  if (label) label.addEventListener("click", function () { view.focus(); });
}

document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("textarea.code-editor").forEach(attach);
});
