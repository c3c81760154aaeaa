// Cutoff tree viewer: fits a drawn game tree to its box, zooms, pans and follows a node.
// Works on every `.tree-view` (answer, expected answer, replay and preview trees). The SVG
// keeps its viewBox, so zooming only changes its drawn size; the scroll box pans it.
"use strict";

(function () {
  const MIN_SCALE = 0.2;
  const MAX_SCALE = 2;
  const STEP = 1.25;
  const PAN_PX = 60;
  const DRAG_THRESHOLD_PX = 4;
  const FOLLOW_MARGIN_PX = 40;

  function clamp(value, low, high) { return Math.max(low, Math.min(high, value)); }

  function setUpTreeView(view) {
    const scroller = view.querySelector(".tree-scroll");
    const svg = view.querySelector("svg.tree");
    const controls = view.querySelector("[data-tree-zoom]");
    if (!scroller || !svg || !controls) return;
    const width = Number(svg.dataset.width);
    const height = Number(svg.dataset.height);
    const level = controls.querySelector("[data-zoom-level]");
    const interactive = svg.hasAttribute("data-interactive");
    let scale = 1;
    let fitted = true; // refit on resize until the reader zooms by hand

    const fitScale = function () {
      return clamp((scroller.clientWidth - 2) / width, MIN_SCALE, 1);
    };
    // Zoom to `next`, keeping the drawing point under (clientX, clientY) where it is.
    const zoomTo = function (next, clientX, clientY) {
      next = clamp(next, MIN_SCALE, MAX_SCALE);
      const box = scroller.getBoundingClientRect();
      const x = clientX === undefined ? box.width / 2 : clientX - box.left;
      const y = clientY === undefined ? box.height / 2 : clientY - box.top;
      const drawingX = (scroller.scrollLeft + x) / scale;
      const drawingY = (scroller.scrollTop + y) / scale;
      scale = next;
      svg.setAttribute("width", String(Math.round(width * scale)));
      svg.setAttribute("height", String(Math.round(height * scale)));
      scroller.scrollLeft = drawingX * scale - x;
      scroller.scrollTop = drawingY * scale - y;
      view.dataset.scale = scale.toFixed(3);
      level.textContent = Math.round(scale * 100) + " %";
    };
    // Scroll so `element` is in view, centring it when it is outside (or near) the edges.
    const bringIntoView = function (element, always) {
      const box = scroller.getBoundingClientRect();
      const target = element.getBoundingClientRect();
      const outside = target.left < box.left + FOLLOW_MARGIN_PX
        || target.right > box.right - FOLLOW_MARGIN_PX
        || target.top < box.top || target.bottom > box.bottom;
      if (outside || always) {
        scroller.scrollLeft += (target.left + target.right) / 2 - (box.left + box.right) / 2;
        scroller.scrollTop += (target.top + target.bottom) / 2 - (box.top + box.bottom) / 2;
      }
      // Then the page, if the box itself is partly off screen: only as far as needed.
      const moved = element.getBoundingClientRect();
      if (moved.top < 0 || moved.bottom > window.innerHeight || moved.left < 0
          || moved.right > window.innerWidth) {
        element.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
    };
    const nodeElement = function (name) {
      return Array.prototype.find.call(svg.querySelectorAll(".tree-node"),
        function (node) { return node.dataset.node === name; });
    };
    const fit = function () {
      fitted = true;
      zoomTo(fitScale(), 0, 0);
      const root = nodeElement(svg.dataset.root);
      // At the smallest zoom the tree may still be wider than its box: show the root.
      if (root) bringIntoView(root, false);
    };
    const zoomBy = function (factor) {
      fitted = false;
      zoomTo(scale * factor);
    };

    controls.hidden = false;
    controls.querySelectorAll("[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        const action = button.dataset.zoom;
        if (action === "in") zoomBy(STEP);
        else if (action === "out") zoomBy(1 / STEP);
        else if (action === "fit") fit();
        else { fitted = false; zoomTo(1); }
      });
    });

    // Pan by dragging with a mouse; touch screens scroll the box natively.
    let drag = null;
    let dragged = false;
    scroller.addEventListener("pointerdown", function (event) {
      if (event.pointerType !== "mouse" || event.button !== 0) return;
      if (event.target.closest("input, button, select, textarea")) return;
      drag = { x: event.clientX, y: event.clientY, left: scroller.scrollLeft, top: scroller.scrollTop };
      dragged = false;
    });
    scroller.addEventListener("pointermove", function (event) {
      if (!drag) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!dragged && Math.abs(dx) + Math.abs(dy) < DRAG_THRESHOLD_PX) return;
      dragged = true;
      scroller.classList.add("is-dragging");
      scroller.scrollLeft = drag.left - dx;
      scroller.scrollTop = drag.top - dy;
    });
    const endDrag = function () {
      drag = null;
      scroller.classList.remove("is-dragging");
    };
    scroller.addEventListener("pointerup", endDrag);
    scroller.addEventListener("pointercancel", endDrag);
    // Capture phase, so the leaf's own "toggle pruned" click never sees these clicks:
    // the end of a drag is not a click, and a tap on an overview of an answer tree zooms in
    // there instead of hitting a target smaller than 24 px.
    scroller.addEventListener("click", function (event) {
      if (dragged) {
        dragged = false;
        event.preventDefault();
        event.stopPropagation();
        return;
      }
      if (interactive && scale < 0.99 && svg.contains(event.target)) {
        event.preventDefault();
        event.stopPropagation();
        fitted = false;
        zoomTo(1, event.clientX, event.clientY);
      }
    }, true);

    // Keys while the scroll box itself has focus: arrows pan, + and − zoom, 0 fits.
    scroller.addEventListener("keydown", function (event) {
      if (event.target !== scroller) return;
      const pans = { ArrowLeft: [-PAN_PX, 0], ArrowRight: [PAN_PX, 0], ArrowUp: [0, -PAN_PX],
        ArrowDown: [0, PAN_PX] };
      let handled = true;
      if (pans[event.key]) {
        scroller.scrollLeft += pans[event.key][0];
        scroller.scrollTop += pans[event.key][1];
      } else if (event.key === "+" || event.key === "=") zoomBy(STEP);
      else if (event.key === "-" || event.key === "−") zoomBy(1 / STEP);
      else if (event.key === "0") fit();
      else handled = false;
      if (handled) {
        event.preventDefault();
        event.stopPropagation();
      }
    });

    // A control reached with Tab at an overview is shown at full size, next to its node.
    // Focus that comes with a press is left alone: moving the drawing between the press and
    // the release would send the click elsewhere.
    let pressing = false;
    scroller.addEventListener("pointerdown", function () { pressing = true; }, true);
    window.addEventListener("pointerup", function () {
      window.setTimeout(function () { pressing = false; }, 0);
    }, true);
    svg.addEventListener("focusin", function (event) {
      if (pressing) return;
      if (scale < 0.99) {
        fitted = false;
        zoomTo(1);
      }
      bringIntoView(event.target, false);
    });

    svg.addEventListener("tree:follow", function (event) {
      const node = nodeElement(event.detail.node);
      if (node) bringIntoView(node, false);
    });

    window.addEventListener("resize", function () { if (fitted) fit(); });
    fit();
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-tree-view]").forEach(setUpTreeView);
  });
  // The builder's preview arrives after load: set up the trees it brings.
  document.addEventListener("tree:added", function (event) {
    event.target.querySelectorAll("[data-tree-view]").forEach(setUpTreeView);
  });
})();
