// Loaded on every page, in sitegen's own theme and inside a host theme (the MkDocs plugin adds it to
// every page of the host, its 404 page too); without it the page still reads (native titles, a
// focus tooltip in CSS, tables that scroll). With it:
// - a table wider than its box says so: a "scroll" hint above it, and the box takes keyboard focus
//   (arrow keys scroll it) and names itself after the table's caption; so does a block of code on a
//   docs page of sitegen's own theme, named after its first line;
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
    if (wrap.tagName === "PRE") {  // a block of code: its first line
      return "code: " + (wrap.textContent.trim().split("\n")[0] || "").slice(0, 80);
    }
    // The table's own caption names its box (unique on the page), else the figure's.
    var own = wrap.querySelector("table > caption"), fig = wrap.closest("figure"), cap = own || (fig && fig.querySelector("figcaption"));
    return (cap ? cap.textContent.trim().slice(0, 120) : "") || "table";
  }
  function measure() {
    var named = {};
    Array.prototype.forEach.call(doc.querySelectorAll(".table-wrap, .sidenav ul, .doc pre"), function (box) {
      var wide = box.scrollWidth > box.clientWidth + 1, tall = box.scrollHeight > box.clientHeight + 1;
      box.classList.toggle("scrolls", wide);
      if (box.tagName === "UL") { return; }
      hint(box).classList.toggle("on", wide);
      // A box that scrolls takes keyboard focus (arrow keys scroll it), named after its table (its
      // code's first line: the same line twice on a page gets a number).
      if (wide || tall) {
        if (!box.hasAttribute("tabindex")) { box.setAttribute("tabindex", "0"); }
        box.setAttribute("role", "region");
        var name = label(box);
        named[name] = (named[name] || 0) + 1;
        box.setAttribute("aria-label", named[name] > 1 ? name + " (" + named[name] + ")" : name);
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
    return el && (!el.closest("svg") || el.classList.contains("tip-mark")) ? adopt(el) : null;
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
  // Chart points drawn in the page (the serving pages' curves and distributions, the History page's
  // dots, a shortened label): each one's SVG <title> becomes the same tooltip, on hover, on a tap near
  // it and from the keyboard: a chart is one tab stop whose arrow keys go from point to point (Home
  // and End: its first and last), Escape closes. The charts the chart script draws have their own.
  function chartTips() {
    Array.prototype.forEach.call(doc.querySelectorAll("svg title"), function (t) {
      var el = t.parentNode, svg = el.ownerSVGElement;
      if (!svg || el.closest("[data-figure]")) { return; }  // a chart's own name; a drawn chart's point
      el.setAttribute("data-tip", t.textContent.trim());
      el.classList.add("tip-mark");
      t.remove();
      svg.classList.add("tip-chart");
      svg.setAttribute("tabindex", "0");
    });
  }
  function marks(svg) { return Array.prototype.slice.call(svg.querySelectorAll(".tip-mark")); }
  function show(el) {
    if (!tip) {
      tip = doc.createElement("div");
      tip.id = "sitegen-tip"; tip.className = "sitegen-tip"; tip.setAttribute("role", "tooltip"); tip.hidden = true;
      doc.body.appendChild(tip);
    }
    if (owner && owner !== el) { hide(); }
    owner = el;
    if (el.ownerSVGElement) { el.classList.add("tip-on"); }
    tip.textContent = el.getAttribute("data-tip");
    tip.hidden = false;
    (el.ownerSVGElement || el).setAttribute("aria-describedby", tip.id);  // a chart's point: the chart it is in
    place(el);
  }
  function hide() {
    if (tip) { tip.hidden = true; }
    if (owner) { (owner.ownerSVGElement || owner).removeAttribute("aria-describedby"); owner.classList.remove("tip-on"); owner = null; }
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
    chartTips();
    if (window.sitegenParts) { window.sitegenParts(); }
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
            return n.nodeType === 1 && n.id !== "sitegen-tip" && n.tagName !== "SCRIPT" && !n.closest("[data-figure]") &&
              (n.matches(".table-wrap, [data-figure], #reports, svg, " + SEL) || n.querySelector(".table-wrap, [data-figure], #reports, svg title, " + SEL));
          });
        });
        if (!added) { return; }
        queued = true;
        window.requestAnimationFrame(function () { queued = false; enhance(); });
      }).observe(doc.body, { childList: true, subtree: true });
    }
    doc.addEventListener("focusin", function (e) {
      var svg = e.target, el = target(e);
      // A chart the keyboard reached shows a point (one a tap focused shows the point it hit).
      if (svg.classList && svg.classList.contains("tip-chart")) {
        if (svg.matches(":focus-visible")) { show(owner && svg.contains(owner) ? owner : marks(svg)[0]); }
      } else if (el) { show(el); } else { hide(); }
    });
    doc.addEventListener("focusout", function (e) { if (owner && (e.target === owner || e.target === owner.ownerSVGElement)) { hide(); } });
    doc.addEventListener("pointerover", function (e) { var el = target(e); if (el && e.pointerType === "mouse") { show(el); } });
    doc.addEventListener("pointerout", function (e) {
      var el = target(e);
      if (el && el === owner && e.pointerType === "mouse" && !el.contains(e.relatedTarget) &&
          doc.activeElement !== el && doc.activeElement !== el.ownerSVGElement) { hide(); }
    });
    doc.addEventListener("click", function (e) {
      // The point nearest a tap or a click, within a finger's reach.
      var svg = e.target.closest && e.target.closest(".tip-chart"), best = null, reach = 24;
      if (!svg) { return; }
      marks(svg).forEach(function (m) {
        var r = m.getBoundingClientRect(), d = Math.max(r.left - e.clientX, e.clientX - r.right, r.top - e.clientY, e.clientY - r.bottom, 0);
        if (d <= reach) { reach = d; best = m; }
      });
      if (best) { show(best); } else { hide(); }
    });
    doc.addEventListener("keydown", function (e) {
      var all = e.target.classList && e.target.classList.contains("tip-chart") && marks(e.target);
      var step = all && {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -1e9, End: 1e9}[e.key];
      if (step) {
        e.preventDefault();
        show(all[Math.min(all.length - 1, Math.max(0, all.indexOf(owner) + step))]);
        return;
      }
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


// Phones and tables (issue 32), apart from the tooltips above:
// - the current page's tab in the report's section strip is scrolled into view;
// - a long page gets an "On this page" list (in the sidebar on a wide screen, folded under the
//   section strip on a phone);
// - a table's figures are no tab stop each: one "Show sources" button per table writes each
//   figure's source under it (the tooltip still shows on hover).
(function () {
  "use strict";
  var doc = document;
  function each(sel, f, root) { Array.prototype.forEach.call((root || doc).querySelectorAll(sel), f); }

  // `unlessSeen`: left where it is when the tab is in view already (a strip the reader scrolled).
  function currentTab(unlessSeen) {
    each(".sidenav ul", function (ul) {
      var a = ul.querySelector("a[aria-current='page']");
      if (!a || ul.scrollWidth <= ul.clientWidth + 1) { return; }
      var r = a.getBoundingClientRect(), u = ul.getBoundingClientRect();
      if (unlessSeen && r.left >= u.left - 1 && r.right <= u.right + 1) { return; }
      ul.scrollLeft += (r.left - u.left) - (u.width - r.width) / 2;
    });
  }
  // A window narrowed to a phone's width, or a phone turned, lays the section links out as a strip
  // then: its current tab is brought into view as on a load, once a frame.
  var tabPending = false;
  window.addEventListener("resize", function () {
    if (tabPending) { return; }
    tabPending = true;
    window.requestAnimationFrame(function () { tabPending = false; currentTab(true); });
  });

  function text(el, max) {
    var t = el.textContent.replace(/\s+/g, " ").trim();
    return t.length > max ? t.slice(0, max - 1).replace(/[\s,;:]+\S*$/, "") + "\u2026" : t;
  }
  function contents() {
    var main = doc.getElementById("main"), h1 = main && main.querySelector("h1");
    if (!main || !h1 || doc.getElementById("on-this-page")) { return; }
    var entries = [];
    each("h2[id], h3[id], figure[id]", function (el) {
      if (el.closest("details:not([open]), .sitegen-block, nav")) { return; }
      var name = "";
      if (el.tagName === "FIGURE") {
        var cap = el.querySelector("table > caption") || el.querySelector("figcaption");
        if (!cap || el.parentElement.closest("figure")) { return; }
        name = text(cap, 60);
      } else {
        var copy = el.cloneNode(true);
        each(".anchor", function (a) { a.remove(); }, copy);
        name = text(copy, 60);
      }
      if (name) { entries.push({id: el.id, name: name, sub: el.tagName !== "H2"}); }
    }, main);
    // Long pages only: a few sections and several screens of them.
    var heads = entries.filter(function (e) { return !e.sub; }).length;
    if (entries.length < 4 || heads < 2 && entries.length < 6) { return; }
    var nav = doc.createElement("nav"), det = doc.createElement("details"), sum = doc.createElement("summary"), ol = doc.createElement("ol");
    nav.id = "on-this-page"; nav.className = "toc"; nav.setAttribute("aria-label", "On this page");
    sum.textContent = "On this page";
    entries.forEach(function (e) {
      var li = doc.createElement("li"), a = doc.createElement("a");
      a.href = "#" + encodeURIComponent(e.id); a.textContent = e.name;
      if (e.sub) { li.className = "toc-sub"; }
      li.appendChild(a); ol.appendChild(li);
    });
    det.appendChild(sum); det.appendChild(ol); nav.appendChild(det);
    var side = doc.querySelector(".sidenav");
    // Inside the section links' column, so both stay in view together on a wide screen.
    if (side) { side.appendChild(nav); } else { h1.parentNode.insertBefore(nav, h1.nextSibling); }
    // Open in a wide screen's sidebar; folded above the content (a phone, a page without sections).
    var wide = side && window.matchMedia ? window.matchMedia("(min-width: 861px)") : null;
    function fit() { det.open = !!(wide && wide.matches); }
    fit();
    if (wide && wide.addEventListener) { wide.addEventListener("change", fit); }
  }

  var made = 0;
  function sources() {
    each("table.data", function (table) {
      var figs = table.querySelectorAll(".fig");
      if (!figs.length || table.hasAttribute("data-sources")) { return; }
      table.setAttribute("data-sources", "");
      Array.prototype.forEach.call(figs, function (f) { if (f.getAttribute("tabindex") === "0") { f.removeAttribute("tabindex"); } });
      if (!table.id) { table.id = "sitegen-table-" + (++made); }
      var wrap = table.closest(".table-wrap") || table, p = doc.createElement("p"), b = doc.createElement("button");
      p.className = "sources-control";
      b.type = "button"; b.className = "sources-toggle"; b.setAttribute("aria-pressed", "false");
      b.setAttribute("aria-controls", table.id);
      // A toggle button: its name stays, aria-pressed says whether the sources show.
      var cap = table.querySelector("caption");
      b.textContent = "Show sources";
      if (cap) { b.setAttribute("aria-label", "Show sources: " + text(cap, 80)); }
      b.addEventListener("click", function () {
        var on = b.getAttribute("aria-pressed") !== "true";
        b.setAttribute("aria-pressed", on ? "true" : "false");
        Array.prototype.forEach.call(table.querySelectorAll(".fig"), function (f) {
          var s = f.nextElementSibling && f.nextElementSibling.classList.contains("fig-source") ? f.nextElementSibling : null;
          if (on && !s) {
            s = doc.createElement("span"); s.className = "fig-source";
            s.textContent = f.getAttribute("data-tip") || f.getAttribute("title") || "";
            f.parentNode.insertBefore(s, f.nextSibling);
          }
          if (s) { s.hidden = !on; }
        });
        if (window.sitegenMeasure) { window.sitegenMeasure(); }
      });
      p.appendChild(b);
      var before = wrap.previousElementSibling && wrap.previousElementSibling.classList.contains("scroll-hint") ? wrap.previousElementSibling : wrap;
      before.parentNode.insertBefore(p, before);
    });
  }

  // On paper a caveat, what differs between the sides and folded detail are read whole. The print style opens them
  // where the browser knows ::details-content; elsewhere they are opened for the print and closed after.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    each("details.about-data:not([open]), details#differs:not([open]), details.fold:not([open])", function (d) { d.open = true; opened.push(d); });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });

  function start() { sources(); contents(); currentTab(); }
  if (doc.readyState === "loading") { doc.addEventListener("DOMContentLoaded", start); } else { start(); }
  // Again on content swapped in: a host theme's instant navigation (enhance() above calls it) and
  // the live preview's patch, at once, before the page is laid out again: a part the patch rebuilt
  // loses what these added, and a page that shrank for a moment would lose its scroll position.
  window.sitegenParts = start;
  doc.addEventListener("sitegen:patched", start);
})();
