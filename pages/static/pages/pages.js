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
    // A long-poll: answered once the submission is finished, or after 10 s still busy.
    pollUntilDone(status.dataset.statusUrl + "?wait=10", ["queued", "running"]);
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

  // --- builder: live preview of one item's generated variant -----------------------------
  function previewItem(form, index, anotherSeed) {
    const target = document.getElementById("preview-" + index);
    const body = new FormData(form);
    body.set("preview_item", index);
    if (anotherSeed) {
      target.dataset.seed = String(Math.floor(Math.random() * 1e9));
    }
    body.set("preview_seed", target.dataset.seed || "preview");
    target.setAttribute("aria-busy", "true");
    return fetch(form.dataset.previewUrl, { method: "POST", body: body, credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        target.innerHTML = html;
        // The tree viewer (tree-view.js) fits and wires every drawing that arrives.
        target.dispatchEvent(new CustomEvent("tree:added", { bubbles: true }));
        const authored = target.querySelector(".authored-tree");
        const row = document.getElementById("item-" + index);
        const clicker = row && row.querySelector("[data-tree-clicker]");
        if (authored && clicker && !clicker.dataset.editing) {
          clicker.tree = JSON.parse(authored.dataset.treeJson);
          drawClicker(clicker);
        }
      })
      .finally(function () { target.removeAttribute("aria-busy"); });
  }

  function setUpPreview() {
    const form = document.getElementById("builder-form");
    if (!form) return;
    form.querySelectorAll("[data-preview-item]").forEach(function (button) {
      button.addEventListener("click", function () {
        button.disabled = true;
        previewItem(form, button.dataset.previewItem, "anotherSeed" in button.dataset)
          .finally(function () { button.disabled = false; });
      });
    });
    form.querySelectorAll("[data-tree-input]").forEach(function (block) {
      const textarea = document.getElementById(block.dataset.treeInput);
      const index = block.closest(".item-row").dataset.index;
      const clicker = block.querySelector("[data-tree-clicker]");
      let timer = null;
      // Typing or pasting redraws the tree and its key once the instructor pauses.
      textarea.addEventListener("input", function () {
        clearTimeout(timer);
        delete clicker.dataset.editing;
        timer = setTimeout(function () { previewItem(form, index, false); }, 400);
      });
      const library = block.querySelector("[data-library-for]");
      if (library) {
        library.addEventListener("change", function () {
          if (!library.value) return;
          textarea.value = library.value;
          delete clicker.dataset.editing;
          previewItem(form, index, false);
        });
      }
      clicker.onchange_tree = function () {
        textarea.value = JSON.stringify(clicker.tree);
        clicker.dataset.editing = "true";
        clearTimeout(timer);
        timer = setTimeout(function () { previewItem(form, index, false); }, 400);
      };
      clicker.hidden = false;
      drawClicker(clicker);
      if (textarea.value.trim()) previewItem(form, index, false);
    });
  }

  // --- builder: build a tree by clicking (add child, set type, value, probability) --------
  function childName(parent, index, depth) {
    if (depth === 1) return "ABCDEFGHIJKLMNOPQRSTUVWXYZ".charAt(index) || "N" + (index + 1);
    if (depth % 2 === 0) return parent + (index + 1);
    return parent + ("abcdefghijklmnopqrstuvwxyz".charAt(index) || "_" + (index + 1));
  }

  function freshName(tree, parent, index, depth) {
    const taken = new Set();
    (function collect(node) {
      taken.add(node.name);
      (node.children || []).forEach(collect);
    })(tree);
    // The classroom name of the position, or of the next free position after it.
    let name = childName(parent, index, depth);
    for (let next = index + 1; taken.has(name); next += 1) name = childName(parent, next, depth);
    return name;
  }

  function uniform(node) {
    if (node.type === "chance") {
      node.probabilities = node.children.map(function () { return "1/" + node.children.length; });
    }
  }

  function drawClicker(clicker) {
    const labels = clicker.dataset;
    clicker.textContent = "";
    const changed = function () { drawClicker(clicker); clicker.onchange_tree(); };
    if (!clicker.tree) {
      const start = document.createElement("button");
      start.type = "button";
      start.className = "secondary";
      start.textContent = labels.labelStart;
      start.addEventListener("click", function () {
        clicker.tree = { name: "root", type: "max", children: [
          { name: "A", value: 0 }, { name: "B", value: 0 }] };
        changed();
      });
      clicker.appendChild(start);
      return;
    }
    const list = document.createElement("ul");
    list.className = "tree-clicker-list";
    (function add(node, parent, depth, into) {
      const item = document.createElement("li");
      item.className = "tree-clicker-node";
      item.dataset.node = node.name;
      const field = function (label, value, onInput, size) {
        const wrap = document.createElement("label");
        wrap.textContent = label + " ";
        const input = document.createElement("input");
        input.type = "text";
        input.size = size || 6;
        input.value = value;
        input.addEventListener("change", function () { onInput(input.value.trim()); changed(); });
        wrap.appendChild(input);
        item.appendChild(wrap);
        return input;
      };
      field(labels.labelName, node.name, function (v) { if (v) node.name = v; }, 8);
      const typeWrap = document.createElement("label");
      typeWrap.textContent = labels.labelType + " ";
      const type = document.createElement("select");
      [["leaf", labels.labelLeaf], ["max", "MAX"], ["min", "MIN"], ["chance", labels.labelChance],
       ["player", labels.labelPlayer]].forEach(function (pair) {
        const option = document.createElement("option");
        option.value = pair[0];
        option.textContent = pair[1];
        type.appendChild(option);
      });
      type.value = node.children ? node.type : "leaf";
      type.addEventListener("change", function () {
        if (type.value === "leaf") {
          delete node.children; delete node.type; delete node.probabilities; delete node.player;
          node.value = 0;
        } else {
          if (!node.children) {
            node.children = [{ name: freshName(clicker.tree, node.name, 0, depth + 1), value: 0 }];
            delete node.value;
          }
          node.type = type.value;
          delete node.probabilities;
          if (type.value === "player") node.player = node.player || "A"; else delete node.player;
          uniform(node);
        }
        changed();
      });
      typeWrap.appendChild(type);
      item.appendChild(typeWrap);
      if (!node.children) {
        field(labels.labelValue, Array.isArray(node.value) ? node.value.join(", ") : String(node.value),
          function (v) {
            const numbers = v.split(",").map(function (x) { return x.trim(); });
            const asNumber = function (x) { return /^-?\d+(\.\d+)?$/.test(x) ? Number(x) : x; };
            node.value = numbers.length > 1 ? numbers.map(asNumber) : asNumber(numbers[0]);
          });
      }
      if (node.type === "player") {
        field(labels.labelPlayer, node.player || "", function (v) { node.player = v; }, 3);
      }
      if (parent && parent.type === "chance") {
        const at = parent.children.indexOf(node);
        field(labels.labelProbability, String(parent.probabilities[at]), function (v) {
          parent.probabilities[at] = v;
        }, 5);
      }
      if (node.children) {
        const addChild = document.createElement("button");
        addChild.type = "button";
        addChild.className = "secondary";
        addChild.textContent = labels.labelAddChild;
        addChild.addEventListener("click", function () {
          node.children.push({ name: freshName(clicker.tree, node.name, node.children.length,
                                               depth + 1), value: 0 });
          uniform(node);
          changed();
        });
        item.appendChild(addChild);
      }
      if (parent && parent.children.length > 1) {
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "secondary";
        remove.textContent = labels.labelRemove;
        remove.addEventListener("click", function () {
          const at = parent.children.indexOf(node);
          parent.children.splice(at, 1);
          if (parent.probabilities) parent.probabilities.splice(at, 1);
          uniform(parent);
          changed();
        });
        item.appendChild(remove);
      }
      into.appendChild(item);
      if (node.children) {
        const sub = document.createElement("ul");
        node.children.forEach(function (child) { add(child, node, depth + 1, sub); });
        item.appendChild(sub);
      }
    })(clicker.tree, null, 0, list);
    clicker.appendChild(list);
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpPrunedLeaves();
    setUpSubmissionPolling();
    setUpPublishPolling();
    setUpReplay();
    setUpPreview();
  });
})();
