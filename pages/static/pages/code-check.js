// The code item's "Check" button: runs the editor's code on the item's public example test
// through the REST API (no attempt used) and shows the result and the printed output in the
// page. Every text comes translated from the section's data attributes. And a reopened
// attempt's "Load into the editor" button, which asks before replacing the editor's code.
(function () {
  "use strict";

  function csrfToken() {
    // Read at every send: logging in again in another tab rotates the token.
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (all, name) {
      return name in values ? String(values[name]) : all;
    });
  }

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function setUp(button) {
    const section = document.getElementById("check-result");
    const status = document.getElementById("check-status");
    const rows = document.getElementById("check-tests");
    const stdout = document.getElementById("check-stdout");
    const stderr = document.getElementById("check-stderr");
    const source = document.getElementById("code-source");
    const text = section.dataset;

    function say(message, state) {
      section.hidden = false;
      section.dataset.state = state;
      status.textContent = message;
    }

    function show(check) {
      rows.replaceChildren();
      check.tests.forEach(function (test) {
        const row = document.createElement("tr");
        row.dataset.verdict = test.verdict;
        cell(row, test.test_label || test.test);
        const label = test.verdict_label || test.verdict;
        cell(row, (test.verdict === "passed" ? "✓ " : "✗ ") + label);
        const details = cell(row, test.messages.map(function (m) { return m.text; }).join(" "));
        if (test.traceback) {
          const pre = document.createElement("pre");
          pre.textContent = test.traceback;
          details.appendChild(pre);
        }
        rows.appendChild(row);
      });
      stdout.textContent = check.stdout + (check.stdout_truncated ? "\n" + text.truncated : "");
      stderr.textContent = check.stderr + (check.stderr_truncated ? "\n" + text.truncated : "");
      document.getElementById("check-output").hidden = false;
      if (check.status === "error") say(text.failed, "error");
      else say(text.done, "done");
    }

    function poll(url) {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.json(); })
        .then(function (check) {
          if (check.status === "done" || check.status === "error") {
            show(check);
            button.disabled = false;
          } else {
            window.setTimeout(function () { poll(url); }, 1000);
          }
        })
        .catch(function () { say(text.offline, "error"); button.disabled = false; });
    }

    button.addEventListener("click", function () {
      button.disabled = true;
      say(text.running, "running");
      fetch(button.dataset.url, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json",
                   "X-CSRFToken": csrfToken() },
        body: JSON.stringify({ source: source.value }),
      }).then(function (response) {
        return response.json().then(function (body) {
          if (response.status === 202) {
            poll(response.headers.get("Location"));
            return;
          }
          if (response.status === 429) {
            const seconds = Number(response.headers.get("Retry-After")) || 10;
            const limit = body.error.details.limit;
            say(fill(text.limited, { checks: limit.checks, seconds: limit.seconds,
                                     retry: seconds }), "limited");
            window.setTimeout(function () { button.disabled = false; }, seconds * 1000);
            return;
          }
          say(body.error ? body.error.message : text.failed, "error");
          button.disabled = false;
        });
      }).catch(function () { say(text.offline, "error"); button.disabled = false; });
    });
  }

  function setUpLoadAttempt(button) {
    // Exactly as submitted (a <pre> would drop a leading newline).
    const attempt = JSON.parse(document.getElementById("attempt-source-data").textContent);
    button.addEventListener("click", function () {
      const source = document.getElementById("code-source");
      if (source.value === attempt) return;
      // The editor holds the draft: replacing it (and so the saved draft) needs a yes.
      if (!window.confirm(button.dataset.confirm)) return;
      const view = source.codeEditor;
      if (view) {
        // The editor writes the textarea and fires "input", so the draft is saved as typed.
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: attempt } });
        view.focus();
      } else {
        source.value = attempt;
        source.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const button = document.getElementById("check-code");
    if (button) setUp(button);
    const load = document.getElementById("load-attempt");
    if (load) setUpLoadAttempt(load);
  });
})();
