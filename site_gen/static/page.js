// Loaded on every page, in sitegen's own theme and inside a host theme (the MkDocs plugin adds it to
// every page of the host, its 404 page too); without it the page still reads (native titles, a
// focus tooltip in CSS, tables that scroll). With it:
// - a table wider than its box says so: a "scroll" hint above it, and the box takes keyboard focus
//   (arrow keys scroll it) and names itself after the table's caption;
// - "where a number comes from" (the title of a .fig or .check) shows in one tooltip that stays
//   on screen: below the figure, or above it near the bottom edge, shifted in from the sides, no
//   wider than the screen. It opens on hover, keyboard focus and tap, and closes with Escape;
// - content a host theme swaps in without loading a page (Material's instant navigation) gets the
//   same, and inside a host the scripts its content needs (the chart drawer, the dashboard's sort)
//   are loaded when content that needs them appears: `window.sitegenAssets`, which the plugin puts
//   before this script, names them relative to this script's own address.
(function () {
  "use strict";
  var doc = document, root = doc.documentElement;
  var self = doc.currentScript && doc.currentScript.src, loaded = {};

  function hint(wrap) {
    var prev = wrap.previousElementSibling;
    if (prev && prev.classList.contains("scroll-hint")) { return prev; }
    var h = doc.createElement("p");
    h.className = "scroll-hint"; h.setAttribute("aria-hidden", "true"); h.textContent = "scroll sideways for more \u2192";
    wrap.parentNode.insertBefore(h, wrap);
    return h;
  }
  function label(wrap) {
    var fig = wrap.closest("figure"), cap = fig && fig.querySelector("figcaption");
    return (cap ? cap.textContent.trim().slice(0, 120) : "") || "table";
  }
  function measure() {
    Array.prototype.forEach.call(doc.querySelectorAll(".table-wrap, .sidenav ul"), function (box) {
      var wide = box.scrollWidth > box.clientWidth + 1, tall = box.scrollHeight > box.clientHeight + 1;
      box.classList.toggle("scrolls", wide);
      if (!box.classList.contains("table-wrap")) { return; }
      hint(box).classList.toggle("on", wide);
      // A box that scrolls takes keyboard focus (arrow keys scroll it), named after its table.
      if (wide || tall) {
        if (!box.hasAttribute("tabindex")) { box.setAttribute("tabindex", "0"); }
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", label(box));
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex"); box.removeAttribute("role"); box.removeAttribute("aria-label");
      }
    });
  }

  var tip = null, owner = null, SEL = ".fig[title], .check[title], mark.check-failed[title], [data-tip]";
  function adopt(el) {
    // The title moves to data-tip: the browser's own tooltip would show beside this one.
    if (el.hasAttribute("title")) { el.setAttribute("data-tip", el.getAttribute("title")); el.removeAttribute("title"); }
    return el;
  }
  function target(e) {
    var el = e.target && e.target.closest ? e.target.closest(SEL) : null;
    return el && !el.closest("svg") ? adopt(el) : null;
  }
  function place(el) {
    var r = el.getBoundingClientRect(), gap = 6, edge = 8, w = root.clientWidth, h = root.clientHeight;
    tip.style.left = "0px"; tip.style.top = "0px";
    var tw = tip.offsetWidth, th = tip.offsetHeight;
    var left = Math.min(Math.max(edge, r.left), Math.max(edge, w - tw - edge));
    var top = r.bottom + gap;
    if (top + th > h - edge && r.top - gap - th >= edge) { top = r.top - gap - th; }
    tip.style.left = Math.round(left) + "px";
    tip.style.top = Math.round(Math.max(edge, Math.min(top, h - th - edge))) + "px";
  }
  function show(el) {
    if (!tip) {
      tip = doc.createElement("div");
      tip.id = "sitegen-tip"; tip.className = "sitegen-tip"; tip.setAttribute("role", "tooltip"); tip.hidden = true;
      doc.body.appendChild(tip);
    }
    if (owner && owner !== el) { owner.removeAttribute("aria-describedby"); }
    owner = el;
    tip.textContent = el.getAttribute("data-tip");
    tip.hidden = false;
    el.setAttribute("aria-describedby", tip.id);
    place(el);
  }
  function hide() {
    if (tip) { tip.hidden = true; }
    if (owner) { owner.removeAttribute("aria-describedby"); owner = null; }
  }
  // Scripts in order (a library before its user), each once per document.
  function load(names) {
    if (!names.length || !self) { return; }
    var url = new URL(names[0], self).href;
    if (loaded[url]) { if (loaded[url] === "done") { load(names.slice(1)); } return; }
    loaded[url] = "loading";
    var s = doc.createElement("script");
    s.src = url;
    s.onload = function () { loaded[url] = "done"; load(names.slice(1)); };
    doc.body.appendChild(s);
  }
  function needs() {
    var assets = window.sitegenAssets;
    if (!assets) { return; }
    if (assets.charts && doc.querySelector("[data-figure]")) {
      if (window.sitegenRedraw) { window.sitegenRedraw(); } else { load(assets.charts); }
    }
    if (assets.dashboard && doc.getElementById("reports")) {
      if (window.sitegenDashboard) { window.sitegenDashboard(); } else { load([assets.dashboard]); }
    }
  }
  // What a page's content gets, on the page's load and on each page a host theme swaps in.
  function enhance() {
    hide();
    Array.prototype.forEach.call(doc.querySelectorAll(SEL), adopt);
    measure();
    needs();
  }
  function start() {
    root.classList.add("js-tips");
    enhance();
    // Material's instant navigation tells each new page on its document$; other themes that swap
    // content (and sitegen's own live preview) are seen by what they add.
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(function () { enhance(); });
    }
    if (window.MutationObserver) {
      var queued = false;
      new window.MutationObserver(function (records) {
        if (queued) { return; }
        var added = records.some(function (r) {
          return Array.prototype.some.call(r.addedNodes, function (n) {
            return n.nodeType === 1 && n.id !== "sitegen-tip" && n.tagName !== "SCRIPT" &&
              (n.matches(".table-wrap, [data-figure], #reports, " + SEL) || n.querySelector(".table-wrap, [data-figure], #reports, " + SEL));
          });
        });
        if (!added) { return; }
        queued = true;
        window.requestAnimationFrame(function () { queued = false; enhance(); });
      }).observe(doc.body, { childList: true, subtree: true });
    }
    doc.addEventListener("focusin", function (e) { var el = target(e); if (el) { show(el); } else { hide(); } });
    doc.addEventListener("focusout", function (e) { if (owner && e.target === owner) { hide(); } });
    doc.addEventListener("pointerover", function (e) { var el = target(e); if (el && e.pointerType === "mouse") { show(el); } });
    doc.addEventListener("pointerout", function (e) {
      var el = target(e);
      if (el && el === owner && e.pointerType === "mouse" && doc.activeElement !== el && !el.contains(e.relatedTarget)) { hide(); }
    });
    doc.addEventListener("keydown", function (e) {
      if (e.key === "Escape" || e.key === "Esc") {
        hide();
        Array.prototype.forEach.call(doc.querySelectorAll(".chart-tip"), function (t) { t.hidden = true; });
      }
    });
    window.addEventListener("scroll", function () { if (owner) { place(owner); } }, true);
    var pending = false;
    window.addEventListener("resize", function () {
      if (pending) { return; }
      pending = true;
      window.requestAnimationFrame(function () { pending = false; measure(); if (owner) { place(owner); } });
    });
  }
  if (doc.readyState === "loading") { doc.addEventListener("DOMContentLoaded", start); } else { start(); }
  window.sitegenMeasure = measure;
})();
