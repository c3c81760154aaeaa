// Cutoff pages: small enhancements over server-rendered forms. Every form still posts
// without this script; it adds leaf clicking, status polling, the replay and live preview.
"use strict";

(function () {
  const POLL_MS = 1000;

  // --- answer tree: click a leaf to tick its "pruned" box ---------------------------------
  function setUpPrunedLeaves() {
    document.querySelectorAll("[data-pruned-toggle]").forEach(function (leaf) {
      const box = document.getElementById(leaf.dataset.prunedToggle);
      if (!box) return;
      const paint = function () { leaf.classList.toggle("is-marked-pruned", box.checked); };
      box.addEventListener("change", paint);
      leaf.addEventListener("click", function (event) {
        if (event.target === box) return;
        box.checked = !box.checked;
        paint();
      });
    });
  }

  // --- poll a status URL until it leaves the given states, then reload --------------------
  function pollUntilDone(url, busyStates, onUpdate) {
    const tick = function () {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (!data) return;
          if (onUpdate) onUpdate(data);
          if (busyStates.indexOf(data.status) >= 0) {
            window.setTimeout(tick, POLL_MS);
          } else {
            window.location.reload();
          }
        })
        .catch(function () { window.setTimeout(tick, POLL_MS * 3); });
    };
    window.setTimeout(tick, POLL_MS);
  }

  function setUpSubmissionPolling() {
    const status = document.getElementById("grading-status");
    if (!status || ["queued", "running"].indexOf(status.dataset.status) < 0) return;
    pollUntilDone(status.dataset.statusUrl, ["queued", "running"]);
  }

  function setUpPublishPolling() {
    const section = document.getElementById("publish");
    if (!section || section.dataset.status !== "generating") return;
    const progress = document.getElementById("publish-progress");
    const count = document.getElementById("publish-count");
    const label = document.getElementById("problem-set-status");
    pollUntilDone(section.dataset.statusUrl, ["generating"], function (data) {
      progress.max = Math.max(1, data.total);
      progress.value = data.done;
      progress.textContent = data.done + " / " + data.total;
      count.textContent = data.done + " / " + data.total;
      label.textContent = data.status_label;
      section.dataset.status = data.status;
    });
  }

  // --- replay of the reference search ----------------------------------------------------
  function setUpReplay() {
    const section = document.querySelector("[data-replay]");
    const data = document.getElementById("replay-steps");
    if (!section || !data) return;
    const steps = JSON.parse(data.textContent);
    const svg = document.getElementById(section.dataset.replay);
    const status = section.querySelector("[data-replay-status]");
    const counter = section.querySelector("[data-replay-counter]");
    const stage = section.querySelector("[data-replay-keys]");
    const children = {};
    svg.querySelectorAll("line.tree-edge").forEach(function (edge) {
      (children[edge.dataset.parent] = children[edge.dataset.parent] || []).push(edge.dataset.child);
    });
    const nodeOf = function (name) {
      return Array.prototype.find.call(svg.querySelectorAll(".tree-node"),
        function (node) { return node.dataset.node === name; });
    };
    const textFor = function (attribute, name) {
      return Array.prototype.find.call(svg.querySelectorAll("[" + attribute + "]"),
        function (text) { return text.getAttribute(attribute) === name; });
    };
    const pruneSubtree = function (name) {
      const node = nodeOf(name);
      if (node) node.classList.add("is-pruned");
      svg.querySelectorAll("line.tree-edge").forEach(function (edge) {
        if (edge.dataset.child === name) edge.classList.add("is-pruned");
      });
      (children[name] || []).forEach(pruneSubtree);
    };
    let position = -1;

    const reset = function () {
      svg.querySelectorAll(".is-current, .is-visited, .is-pruned").forEach(function (element) {
        element.classList.remove("is-current", "is-visited", "is-pruned");
      });
      svg.querySelectorAll(".tree-window, .tree-cutoff-badge").forEach(function (text) {
        text.textContent = "";
      });
    };
    const isLeaf = function (node) { return node && node.classList.contains("tree-node--leaf"); };
    // The step's own window change (enter, cutoff, or a parent's window after a child
    // returns) comes from the server, so the drawn window is the engine's, never guessed.
    const showWindow = function (step) {
      if (!step.window_node || isLeaf(nodeOf(step.window_node))) return;
      const text = textFor("data-window-for", step.window_node);
      if (text) text.textContent = step.window;
    };
    const apply = function (step) {
      const node = nodeOf(step.node);
      const windowText = textFor("data-window-for", step.node);
      if (step.event === "enter") {
        if (node) node.classList.add("is-visited");
        // Leaves are too close together for a window each; they show their evaluation order.
        showWindow(step);
      } else if (step.event === "leaf" && windowText) {
        evaluated += 1;
        windowText.textContent = "#" + evaluated;
        showWindow(step);
      } else if (step.event === "exit") {
        if (windowText && !isLeaf(node)) windowText.textContent = step.returned;
        showWindow(step);
      } else if (step.event === "cutoff") {
        showWindow(step);
        const badge = textFor("data-cutoff-for", step.node);
        if (badge) badge.textContent = badge.textContent + "✂" + step.number + " ";
        step.pruned.forEach(pruneSubtree);
      }
    };
    let evaluated = 0;
    const show = function (target) {
      position = Math.max(-1, Math.min(steps.length - 1, target));
      reset();
      evaluated = 0;
      for (let i = 0; i <= position; i += 1) apply(steps[i]);
      if (position >= 0) {
        const current = nodeOf(steps[position].node);
        if (current) current.classList.add("is-current");
        // The tree viewer (tree-view.js) pans and zooms so the current node is in view.
        svg.dispatchEvent(new CustomEvent("tree:follow", { detail: { node: steps[position].node } }));
        status.textContent = (position + 1) + " / " + steps.length + ": " + steps[position].text;
      } else {
        status.textContent = section.dataset.startText || status.textContent;
      }
      counter.textContent = (position + 1) + " / " + steps.length;
    };
    section.dataset.startText = status.textContent;
    const actions = {
      first: function () { show(-1); },
      previous: function () { show(position - 1); },
      next: function () { show(position + 1); },
      last: function () { show(steps.length - 1); },
    };
    section.querySelectorAll("[data-replay-action]").forEach(function (button) {
      button.addEventListener("click", actions[button.dataset.replayAction]);
    });
    const keys = { ArrowRight: "next", ArrowDown: "next", ArrowLeft: "previous", ArrowUp: "previous",
      Home: "first", End: "last" };
    stage.addEventListener("keydown", function (event) {
      const action = keys[event.key];
      if (!action) return;
      event.preventDefault();
      actions[action]();
    });
    counter.textContent = "0 / " + steps.length;
  }

  // --- builder: live preview of one generated variant ------------------------------------
  function setUpPreview() {
    const form = document.getElementById("builder-form");
    if (!form) return;
    form.querySelectorAll("[data-preview-kind]").forEach(function (button) {
      button.addEventListener("click", function () {
        const kind = button.dataset.previewKind;
        const target = document.getElementById("preview-" + kind);
        const body = new FormData(form);
        body.set("kind", kind);
        button.disabled = true;
        target.setAttribute("aria-busy", "true");
        fetch(form.dataset.previewUrl, { method: "POST", body: body, credentials: "same-origin" })
          .then(function (response) { return response.text(); })
          .then(function (html) {
            target.innerHTML = html;
            target.dispatchEvent(new CustomEvent("tree:added", { bubbles: true }));
          })
          .finally(function () {
            button.disabled = false;
            target.removeAttribute("aria-busy");
          });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpPrunedLeaves();
    setUpSubmissionPolling();
    setUpPublishPolling();
    setUpReplay();
    setUpPreview();
  });
})();
