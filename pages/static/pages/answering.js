// Cutoff item page: answering that never loses work. Every change is kept as a draft on the
// server (PUT …/draft/); Submit sends the answer to the REST API with fetch, so a failure
// (offline, an ended session, a server error) leaves the answer on screen with an
// explanation, and a retry reuses the Idempotency-Key so it can never use two attempts.
// Without this script the form still posts to the page, which keeps the answer on refusal.
"use strict";

(function () {
  const DRAFT_DELAY_MS = 600;
  const POLL_MS = 1000;
  // Long-poll seconds: the submit and the status read are answered as soon as the grade is
  // in, so a page waits without asking the server again every second. The submit waits
  // briefly (its answer is stored first; the page says "sending" meanwhile), then the page
  // says "being graded" and waits on the status.
  const SUBMIT_WAIT_SECONDS = 2;
  const WAIT_SECONDS = 10;
  const NAME_SEPARATORS = /[\s,;]+/;
  const SESSION_CODES = ["not_authenticated", "authentication_failed", "permission_denied"];

  function formatWhen(iso) {
    // The reader's own time zone and language, not the server's ISO timestamp.
    // (dateStyle cannot be combined with timeZoneName, so the fields are spelled out.)
    return new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
      year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
      timeZoneName: "short",
    }).format(new Date(iso));
  }

  function csrfToken() {
    // Read at every send: logging in again in another tab rotates the token.
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return String(Date.now()) + "-" + String(Math.random()).slice(2);
  }

  function splitNames(text) {
    return text.trim().split(NAME_SEPARATORS).filter(Boolean);
  }

  // A list part's "none" tick box (PartField.none_box): ticked, the answer is the empty list.
  function noneTicked(form, field) {
    if (!field.none_box) return false;
    const box = form.elements.namedItem(field.none_box);
    return Boolean(box && box.checked);
  }

  // The same reading as pages/answer_form.py's read_answer: blank parts are left out.
  function readPart(form, field) {
    const value = function (name) {
      const input = form.elements.namedItem(name);
      if (!input) return "";
      if (input instanceof RadioNodeList || input.type === "radio") {
        const checked = form.querySelector('input[name="' + CSS.escape(name) + '"]:checked');
        return checked ? checked.value.trim() : "";
      }
      return (input.value || "").trim();
    };
    switch (field.widget) {
      case "tree_value": case "number": case "tree_move": case "select": case "choice":
        return value(field.name) || null;
      case "tree_leaves":
        return Array.prototype.map.call(
          form.querySelectorAll('input[name="' + CSS.escape(field.name) + '"]:checked'),
          function (box) { return box.value; }).filter(Boolean);
      case "names": {
        if (noneTicked(form, field)) return [];
        const names = splitNames(value(field.name));
        return names.length ? names : null;
      }
      case "vector": {
        // As pages.answer_form.split_vector: semicolons, else commas, else spaces (a
        // fraction may keep spaces around its bar).
        const text = value(field.name);
        const entries = (text.indexOf(";") >= 0 || text.indexOf(",") >= 0
          ? text.split(text.indexOf(";") >= 0 ? ";" : ",")
          : text.replace(/\s*\/\s*/g, "/").split(/\s+/))
          .map(function (entry) { return entry.trim(); }).filter(Boolean);
        return entries.length ? entries : null;
      }
      case "tree_node_values": {
        const values = {};
        field.rows.forEach(function (row) {
          const typed = value(field.name + "-" + row);
          if (typed) values[row] = typed;
        });
        return Object.keys(values).length ? values : null;
      }
      case "cutoffs": {
        if (noneTicked(form, field)) return [];
        const cutoffs = value(field.name).split("\n").filter(function (line) {
          return line.trim();
        }).map(function (line) {
          const colon = line.indexOf(":");
          const node = colon >= 0 ? line.slice(0, colon) : line;
          return { node: node.trim(), pruned: colon >= 0 ? splitNames(line.slice(colon + 1)) : [] };
        });
        return cutoffs.length ? cutoffs : null;
      }
      case "records": {
        const rows = {};
        field.rows.forEach(function (row) {
          const cells = {};
          let any = false;
          field.columns.forEach(function (column) {
            cells[column] = value(field.name + "-" + row + "-" + column);
            any = any || Boolean(cells[column]);
          });
          if (any) rows[row] = field.node_values ? cells.value : cells;
        });
        return Object.keys(rows).length ? rows : null;
      }
    }
    return null;
  }

  function readAnswer(form, fields) {
    const answer = {};
    fields.forEach(function (field) {
      const part = readPart(form, field);
      if (part !== null) answer[field.part] = part;
    });
    return answer;
  }

  function unansweredCount(answer, fields) {
    // Ticking no leaf is an answer ("nothing is pruned"), so leaves never count as missing.
    return fields.filter(function (field) {
      return field.widget !== "tree_leaves" && !(field.part in answer);
    }).length;
  }

  // The input an error path ("windows.C.alpha", "scores.A", "vector[1]") points at.
  function inputFor(form, part) {
    const base = "answer-" + part.replace(/\[\d+\]/g, "").split(".").join("-");
    let name = base;
    while (name) {
      const input = form.querySelector('[name="' + CSS.escape(name) + '"]');
      if (input) return input;
      name = name.lastIndexOf("-") > 0 ? name.slice(0, name.lastIndexOf("-")) : "";
    }
    return null;
  }

  function setUp() {
    const form = document.querySelector("[data-answer-form]");
    const data = document.getElementById("answer-script");
    if (!form || !data) return;
    const config = JSON.parse(data.textContent);
    const texts = config.texts;
    const state = document.getElementById("draft-state");
    const message = document.getElementById("submit-message");
    const button = document.getElementById("submit-answer");
    const keyInput = form.elements.namedItem("idempotency_key");
    let saveTimer = null;
    let saving = false;
    let dirty = false;
    let pendingSubmit = false;

    const showState = function (text, name) {
      state.textContent = text;
      state.dataset.state = name;
    };

    const headers = function () {
      return { "Content-Type": "application/json", Accept: "application/json",
               "X-CSRFToken": csrfToken() };
    };

    const saveDraft = function () {
      saveTimer = null;
      if (saving) { dirty = true; return; }
      saving = true;
      dirty = false;
      showState(texts.saving, "saving");
      fetch(config.draft_url, {
        method: "PUT", credentials: "same-origin", headers: headers(), keepalive: true,
        body: JSON.stringify({ answer: readAnswer(form, config.fields) }),
      }).then(function (response) {
        saving = false;
        if (!response.ok) throw new Error(String(response.status));
        if (dirty) { saveDraft(); return; }
        showState(texts.saved, "saved");
      }).catch(function () {
        saving = false;
        dirty = true;
        showState(texts.unsaved, "unsaved");
      });
    };

    const changed = function () {
      showState(texts.unsaved, "unsaved");
      if (saveTimer) window.clearTimeout(saveTimer);
      saveTimer = window.setTimeout(saveDraft, DRAFT_DELAY_MS);
      form.querySelectorAll('[aria-invalid="true"]').forEach(function (input) {
        input.removeAttribute("aria-invalid");
      });
    };
    form.addEventListener("input", changed);
    form.addEventListener("change", changed);
    // Leaving the page (the next item, the panel, a reload, a phone putting the tab away)
    // before the debounce fires: save now; keepalive lets the request outlive the page.
    const saveBeforeLeaving = function () {
      if (!saveTimer) return;
      window.clearTimeout(saveTimer);
      saveDraft();
    };
    window.addEventListener("pagehide", saveBeforeLeaving);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "hidden") saveBeforeLeaving();
    });

    // Enter in a box never submits (the disabled default button stops it without this
    // script; this also covers browsers that skip it).
    form.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
        event.preventDefault();
      }
    });

    const say = function (text, kind) {
      message.textContent = text;
      message.className = kind ? "error" : "";
    };

    const markInvalid = function (details) {
      const input = details && details.part ? inputFor(form, details.part) : null;
      if (!input) return;
      let note = document.getElementById("submit-field-error");
      if (!note) {
        note = document.createElement("span");
        note.id = "submit-field-error";
        note.className = "field-error";
      }
      note.textContent = (details.label || details.part) + ": " + details.rule;
      input.insertAdjacentElement("afterend", note);
      input.setAttribute("aria-invalid", "true");
      const described = (input.getAttribute("aria-describedby") || "").split(" ")
        .filter(function (id) { return id && id !== note.id; });
      input.setAttribute("aria-describedby", described.concat([note.id]).join(" "));
      input.focus();
    };

    const refreshFeedback = function () {
      // Show the graded attempt without leaving the page: swap in the server's rendering.
      return fetch(window.location.pathname, { credentials: "same-origin" })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          const fresh = new DOMParser().parseFromString(html, "text/html");
          const swapped = ["feedback-area", "attempt-history", "attempts-left", "attempts-used"];
          swapped.forEach(function (id) {
            const old = document.getElementById(id);
            const replacement = fresh.getElementById(id);
            if (old && replacement) old.replaceWith(replacement);
          });
          // Paint the feedback marks onto the tree in place, keeping its inputs and handlers.
          fresh.querySelectorAll("#answer-tree .tree-node[id]").forEach(function (node) {
            const old = document.getElementById(node.id);
            if (!old) return;
            old.setAttribute("class", node.getAttribute("class") || "");
            old.querySelectorAll(".tree-mark").forEach(function (mark) { mark.remove(); });
            node.querySelectorAll(".tree-mark").forEach(function (mark) {
              old.appendChild(document.importNode(mark, true));
            });
          });
          const freshButton = fresh.getElementById("submit-answer");
          if (freshButton && freshButton.disabled) {
            button.disabled = true;
            const reason = fresh.getElementById("submit-blocked");
            if (reason) button.insertAdjacentElement("afterend", reason);
          }
          const panel = document.querySelector(".question-panel");
          const freshPanel = fresh.querySelector(".question-panel");
          if (panel && freshPanel) panel.replaceWith(freshPanel);
        });
    };

    const isFinished = function (submission) {
      return submission && (submission.status === "graded" || submission.status === "error");
    };

    const pollGrade = function (url) {
      const waiting = url + (url.indexOf("?") < 0 ? "?" : "&") + "wait=" + WAIT_SECONDS;
      fetch(waiting, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (submission) {
          if (isFinished(submission)) {
            say("", "");
            refreshFeedback();
          } else {
            // Still queued after a whole wait, or an error answer: ask again shortly.
            window.setTimeout(function () { pollGrade(url); }, POLL_MS);
          }
        })
        .catch(function () { window.setTimeout(function () { pollGrade(url); }, POLL_MS * 3); });
    };

    const send = function () {
      const answer = readAnswer(form, config.fields);
      pendingSubmit = false;
      button.disabled = true;
      say(texts.sending, "");
      fetch(config.submit_url + "?wait=" + SUBMIT_WAIT_SECONDS, {
        method: "POST", credentials: "same-origin",
        headers: Object.assign(headers(), { "Idempotency-Key": keyInput.value }),
        body: JSON.stringify({ answer: answer }),
      }).then(function (response) {
        return response.json().catch(function () { return null; }).then(function (body) {
          return { response: response, body: body };
        });
      }).then(function (result) {
        const response = result.response;
        const body = result.body || {};
        if (response.status === 202) {
          keyInput.value = newKey();  // the next submission is a new attempt
          button.disabled = false;
          if (isFinished(body)) {
            say("", "");
            refreshFeedback();
          } else {
            say(texts.grading, "");
            pollGrade(response.headers.get("Location") || ("/api/v1/submissions/" + body.id + "/"));
          }
          return;
        }
        button.disabled = false;
        const error = body.error || {};
        const when = error.details && (error.details.due_at || error.details.ended_at);
        if (response.status === 401 || SESSION_CODES.indexOf(error.code) >= 0) {
          say(texts.session, "error");
        } else if (when && texts[error.code]) {
          say(texts[error.code].replace("{when}", formatWhen(when)), "error");
          button.disabled = true;
        } else if (response.status >= 500) {
          say(texts.failed, "error");
        } else if (error.details && error.details.label) {
          say(texts.refused + " " + error.details.label + ": " + error.details.rule, "error");
          markInvalid(error.details);
        } else if (error.code === "idempotency_key_reused") {
          // The answer sent before (its response lost) was stored: show it, and let this
          // one go as a new attempt under a new key.
          keyInput.value = newKey();
          say(texts.refusals[error.code], "error");
          refreshFeedback();
        } else if (texts.refusals[error.code]) {
          say(texts.refused + " " + texts.refusals[error.code], "error");
          if (response.status === 403) button.disabled = true;
        } else {
          say(texts.refused + " " + (error.message || response.status), "error");
          if (response.status === 403) button.disabled = true;
        }
      }).catch(function () {
        // Offline or the server unreachable: keep everything and send when back online.
        button.disabled = false;
        pendingSubmit = true;
        say(texts.offline, "error");
      });
    };

    window.addEventListener("online", function () {
      if (dirty) saveDraft();
      if (pendingSubmit) send();
    });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      const missing = unansweredCount(readAnswer(form, config.fields), config.fields);
      if (missing > 0 && !window.confirm(config.unanswered[String(missing)])) return;
      send();
    });
  }

  // A code item's source is kept as a draft too ({"source": ...}), as it is typed.
  function setUpCodeDraft() {
    const source = document.querySelector("textarea[data-draft-url]");
    const state = document.getElementById("draft-state");
    if (!source || !state) return;
    let timer = null;
    const save = function () {
      state.textContent = state.dataset.saving || "…";
      fetch(source.dataset.draftUrl, {
        method: "PUT", credentials: "same-origin", keepalive: true,
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify({ answer: { source: source.value } }),
      }).then(function (response) {
        state.dataset.state = response.ok ? "saved" : "unsaved";
        state.textContent = response.ok ? state.dataset.saved : state.dataset.unsaved;
      }).catch(function () {
        state.dataset.state = "unsaved";
        state.textContent = state.dataset.unsaved;
      });
    };
    source.addEventListener("input", function () {
      state.dataset.state = "unsaved";
      if (timer) window.clearTimeout(timer);
      timer = window.setTimeout(save, DRAFT_DELAY_MS);
    });
  }

  // Due dates and times: the reader's own time zone, and relative ("in 2 days").
  function setUpTimes() {
    const lang = document.documentElement.lang || undefined;
    const relative = window.Intl && Intl.RelativeTimeFormat
      ? new Intl.RelativeTimeFormat(lang, { numeric: "auto" }) : null;
    // [unit, its seconds, the least time written in it]: days only from 48 hours on, so
    // "tomorrow" never stands for a moment two calendar days away; counts are truncated,
    // never rounded up, so the time left is never overstated.
    const units = [["day", 86400, 2 * 86400], ["hour", 3600, 3600], ["minute", 60, 0]];
    document.querySelectorAll("time[data-when]").forEach(function (time) {
      const moment = new Date(time.getAttribute("datetime"));
      if (isNaN(moment)) return;
      let text = formatWhen(moment);
      if (relative && time.hasAttribute("data-relative")) {
        const seconds = (moment.getTime() - Date.now()) / 1000;
        const unit = units.find(function (u) { return Math.abs(seconds) >= u[2]; });
        text += " (" + relative.format(Math.trunc(seconds / unit[1]), unit[0]) + ")";
      }
      time.textContent = text;
    });
  }

  // A timed quiz's clock: the time left, counted down from the server's end time.
  function setUpCountdowns() {
    const clocks = document.querySelectorAll("time[data-countdown]");
    if (!clocks.length) return;
    const two = function (n) { return (n < 10 ? "0" : "") + n; };
    const tick = function () {
      clocks.forEach(function (clock) {
        const left = Math.max(0, Math.floor(
          (new Date(clock.getAttribute("datetime")).getTime() - Date.now()) / 1000));
        const hours = Math.floor(left / 3600);
        const text = (hours ? hours + ":" : "") + two(Math.floor(left / 60) % 60) + ":" +
          two(left % 60);
        if (clock.textContent !== text) clock.textContent = text;
        clock.dataset.secondsLeft = String(left);
        // Without this script the label says when the quiz ends; counting, the time left.
        const label = clock.parentElement.querySelector("[data-countdown-label]");
        if (label) label.textContent = label.dataset.countdownLabel;
      });
    };
    tick();
    window.setInterval(tick, 1000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUp();
    setUpCodeDraft();
    setUpTimes();
    setUpCountdowns();
  });
})();
