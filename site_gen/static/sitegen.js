// Draws the speed charts as inline SVG, with no library. Each chart's spec sits in its element's
// data-spec attribute (Plotly's figure format: marker traces over category rows, a fixed x range,
// shapes for the noise band and the 1.0 line), so the page carries data, not a drawing. Colours come from the stylesheet: the chart follows the light or dark theme by itself.
// Hover or tap a point to read its cell; drag across the plot to zoom the ratio axis; double-click
// or "Reset zoom" returns to the fixed scale; the legend buttons show or hide a metric.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: "\"", "#x27": "'", "#39": "'" };

  function node(name, attrs, parent, text) {
    var n = document.createElementNS(NS, name);
    for (var k in attrs) { if (attrs[k] !== undefined) { n.setAttribute(k, attrs[k]); } }
    if (text !== undefined) { n.textContent = text; }
    if (parent) { parent.appendChild(n); }
    return n;
  }
  // Receipt text in the spec is HTML-escaped (safe for any consumer); SVG text is set as text.
  function plain(s) {
    return String(s).replace(/&(amp|lt|gt|quot|#x27|#39);/g, function (m, e) { return ENTITIES[e]; });
  }
  function ticks(lo, hi, count) {
    // At most `count` labels: as many as the plot's width holds apart (a narrow chart, a deep zoom).
    var raw = (hi - lo) / (count || 5), p = Math.pow(10, Math.floor(Math.log10(raw))), step = 10 * p;
    [1, 2, 2.5, 5].some(function (m) { if (raw <= m * p) { step = m * p; return true; } return false; });
    var out = [], digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) + (step / p === 2.5 ? 1 : 0);
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
      out.push({ v: v, label: v.toFixed(Math.max(1, digits)) });
    }
    return out;
  }
  function symbol(name, r) {
    if (name === "diamond") { r *= 1.25; return "M0," + -r + "L" + r + ",0L0," + r + "L" + -r + ",0Z"; }
    if (name === "triangle-right") { return "M" + -r + "," + -r + "L" + r + ",0L" + -r + "," + r + "Z"; }
    if (name === "triangle-left") { return "M" + r + "," + -r + "L" + -r + ",0L" + r + "," + r + "Z"; }
    return "M" + r + ",0A" + r + "," + r + " 0 1,1 " + -r + ",0A" + r + "," + r + " 0 1,1 " + r + ",0Z";
  }
  function fit(text, width) {
    // Shortens a row label until it fits, the workload name first (the size and streams tell rows
    // apart); the full label stays in the tooltip.
    var full = text.textContent, parts = full.split(" · "), head = parts[0], s = full;
    while (text.getComputedTextLength() > width && s.length > 4) {
      if (parts.length > 1 && head.length > 2) {
        head = head.slice(0, -1);
        s = head + "… · " + parts.slice(1).join(" · ");
      } else {
        s = s.slice(0, -2);
        text.textContent = s + "…";
        continue;
      }
      text.textContent = s;
    }
    if (s !== full) { node("title", {}, text, full); }
  }

  function render(host, state) {
    var spec = state.spec, layout = spec.layout, m = layout.margin || {};
    var width = Math.max(host.clientWidth || 0, 280), height = layout.height || 400;
    // The row labels take up to half a narrow chart (their text is what tells the rows apart), 42% of a wide one.
    var left = Math.min(m.l || 80, Math.round(width * (width < 500 ? 0.5 : 0.42))), right = m.r || 20, top = m.t || 10, bottom = m.b || 40;
    var x0 = left, x1 = width - right, y0 = top, y1 = height - bottom;
    var lo = state.range[0], hi = state.range[1];
    function sx(v) { return x0 + (Math.min(Math.max(v, lo), hi) - lo) / (hi - lo) * (x1 - x0); }
    var cats = (layout.yaxis.categoryarray || []).slice().reverse();  // Plotly lists them bottom-up
    var row = (y1 - y0) / Math.max(cats.length, 1), rows = {};
    cats.forEach(function (c, i) { rows[c] = y0 + (i + 0.5) * row; });

    var svg = node("svg", { "class": "chart-svg", width: width, height: height, viewBox: "0 0 " + width + " " + height,
                            role: "img", "aria-label": state.label, "data-range": lo + " " + hi });
    var old = host.querySelector("svg.chart-svg");  // in the page before drawing: labels are measured
    if (old) { host.replaceChild(svg, old); } else { host.appendChild(svg); }
    var clip = "clip-" + host.getAttribute("data-figure");
    var defs = node("defs", {}, svg), reach = 8;  // markers are whole up to `reach` px past the plot's edge
    node("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, node("clipPath", { id: clip }, defs));
    node("rect", { x: x0 - reach, y: y0, width: x1 - x0 + 2 * reach, height: y1 - y0 }, node("clipPath", { id: clip + "-points" }, defs));
    var grid = node("g", { "class": "grid" }, svg), axis = node("g", { "class": "axis" }, svg);
    ticks(lo, hi, Math.max(2, Math.min(5, Math.floor((x1 - x0) / 36)))).forEach(function (t) {
      node("line", { x1: sx(t.v), x2: sx(t.v), y1: y0, y2: y1 }, grid);
      node("text", { x: sx(t.v), y: y1 + 16, "text-anchor": "middle", "class": "tick-label" }, axis, t.label);
    });
    var shapes = node("g", { "clip-path": "url(#" + clip + ")" }, svg);
    (layout.shapes || []).forEach(function (s) {
      if (s.xref !== "x") { return; }
      if (s.type === "rect") {
        var a = Math.max(Math.min(s.x0, s.x1), lo), b = Math.min(Math.max(s.x0, s.x1), hi);
        if (b > a) {
          node("rect", { "class": s.meta || "shape", x: sx(a), width: sx(b) - sx(a), y: y0, height: y1 - y0,
                         "data-x0": s.x0, "data-x1": s.x1 }, shapes);
        }
      } else if (s.type === "line" && s.x0 >= lo && s.x0 <= hi) {
        node("line", { "class": s.meta || "shape", x1: sx(s.x0), x2: sx(s.x0), y1: y0, y2: y1, "data-x": s.x0 }, shapes);
      }
    });
    node("line", { "class": "axis-line", x1: x0, x2: x1, y1: y1, y2: y1 }, axis);
    var title = layout.xaxis.title && layout.xaxis.title.text;
    if (title) {
      // Centred under the plot while it fits the chart; else anchored at the chart's right edge and
      // shortened (the caption above names both engines; the whole title is its tooltip).
      var at = node("text", { x: (x0 + x1) / 2, y: y1 + 34, "text-anchor": "middle", "class": "axis-title" }, axis, plain(title));
      if ((x0 + x1) / 2 + at.getComputedTextLength() / 2 > width - 4) {
        at.setAttribute("x", width - 4); at.setAttribute("text-anchor", "end");
        var full = plain(title), s = full;
        while (at.getComputedTextLength() > width - 8 && s.length > 4) { s = s.slice(0, -2); at.textContent = s + "…"; }
        node("title", {}, at, full);
      }
    }
    var labels = node("g", { "class": "row-labels" }, svg), shown = {};
    // The label drawn is the short one (the parts that tell the rows apart); the full one is its title.
    (layout.yaxis.tickvals || []).forEach(function (v, i) { shown[v] = layout.yaxis.ticktext[i]; });
    cats.forEach(function (c) {
      var t = node("text", { x: x0 - 8, y: rows[c], dy: "0.35em", "text-anchor": "end" }, labels, plain(shown[c] || c));
      fit(t, x0 - 12);
      if (shown[c] && !t.querySelector("title")) { node("title", {}, t, plain(c)); }
    });
    var points = node("g", { "class": "points", "clip-path": "url(#" + clip + "-points)" }, svg);
    var size = 5;
    spec.data.forEach(function (trace, ti) {
      if (state.hidden[ti]) { return; }
      var role = (trace.meta && trace.meta.role) || "trace-" + ti, g = node("g", { "class": "trace m-" + role }, points);
      var symbols = (trace.marker && trace.marker.symbol) || "circle";
      size = trace.marker && trace.marker.size ? trace.marker.size / 2 : size;
      trace.x.forEach(function (v, i) {
        var cy = rows[trace.y[i]];
        if (cy === undefined || v < lo || v > hi) { return; }
        var tip = [plain(trace.y[i]), plain((trace.text || [])[i] || v), plain(trace.name || "")];
        var name = Array.isArray(symbols) ? symbols[i] : symbols;
        // A mark for a value beyond the scale sits wholly inside the plot, its tip on the edge.
        var cx = sx(v) + (name === "triangle-right" ? -size : name === "triangle-left" ? size : 0);
        var p = node("path", { "class": "point", d: symbol(name, size),
                               transform: "translate(" + cx.toFixed(2) + "," + cy.toFixed(2) + ")" }, g);
        p.tip = tip;
        node("title", {}, p, tip.join(" · "));
      });
    });
    state.box = node("rect", { "class": "zoom-box", x: 0, y: y0, width: 0, height: y1 - y0, visibility: "hidden" }, svg);
    state.plot = { x0: x0, x1: x1, lo: lo, hi: hi };
    state.width = host.clientWidth;
    // Labels are fitted by measuring them, which a closed <details> or tab does not allow.
    state.blind = host.checkVisibility ? !host.checkVisibility() : !host.getClientRects().length;
    state.reset.hidden = lo === state.spec.layout.xaxis.range[0] && hi === state.spec.layout.xaxis.range[1];
  }

  function setup(host) {
    var source = host.getAttribute("data-spec");
    if (source === null) { return; }
    var spec = JSON.parse(source), figure = host.closest("figure");
    var caption = figure && figure.querySelector("figcaption");
    var state = { spec: spec, range: spec.layout.xaxis.range.slice(), hidden: {},
                  label: caption ? caption.textContent.trim() : "" };
    while (host.firstChild) { host.removeChild(host.firstChild); }
    var legend = document.createElement("div");
    legend.className = "chart-legend";
    spec.data.forEach(function (trace, ti) {
      var b = document.createElement("button"), role = (trace.meta && trace.meta.role) || "trace-" + ti;
      b.type = "button"; b.setAttribute("aria-pressed", "true");
      var key = node("svg", { width: 12, height: 12, viewBox: "-6 -6 12 12", "class": "key m-" + role, "aria-hidden": "true" }, b);
      node("path", { "class": "point", d: symbol(role === "decode" ? "diamond" : "circle", 4) }, key);
      b.appendChild(document.createTextNode(" " + plain(trace.name || role)));
      b.addEventListener("click", function () {
        state.hidden[ti] = !state.hidden[ti];
        b.setAttribute("aria-pressed", state.hidden[ti] ? "false" : "true");
        render(host, state);
      });
      legend.appendChild(b);
    });
    var reset = document.createElement("button");
    reset.type = "button"; reset.className = "reset"; reset.textContent = "Reset zoom"; reset.hidden = true;
    reset.addEventListener("click", function () { state.range = spec.layout.xaxis.range.slice(); render(host, state); });
    legend.appendChild(reset);
    state.reset = reset;
    state.tip = document.createElement("div");
    state.tip.className = "chart-tip"; state.tip.hidden = true; state.tip.setAttribute("role", "status");
    host.appendChild(legend);
    host.appendChild(state.tip);
    host._chart = state;
    render(host, state);
    if (!host._wired) { wire(host); }
    host.classList.add("ready");
    host.removeAttribute("aria-hidden");
  }

  // Pointer handling, attached once per chart; it reads the chart's current state when it runs.
  function wire(host) {
    host._wired = true;
    function show(state, point) {
      var tip = state.tip;
      tip.textContent = "";
      point.tip.forEach(function (line, i) {
        var span = document.createElement(i ? "span" : "strong");
        span.textContent = line; tip.appendChild(span);
      });
      tip.hidden = false;
      var box = point.getBoundingClientRect(), within = host.getBoundingClientRect();
      var x = box.left + box.width / 2 - within.left, y = box.top - within.top;
      tip.style.left = Math.max(0, Math.min(x - tip.offsetWidth / 2, host.clientWidth - tip.offsetWidth)) + "px";
      tip.style.top = Math.max(0, y - tip.offsetHeight - 6) + "px";
    }
    function value(state, e) {
      var svg = host.querySelector("svg.chart-svg"), r = svg.getBoundingClientRect(), p = state.plot;
      var px = Math.min(Math.max((e.clientX - r.left) * svg.width.baseVal.value / (r.width || 1), p.x0), p.x1);
      return { px: px, v: p.lo + (px - p.x0) / (p.x1 - p.x0) * (p.hi - p.lo) };
    }
    host.addEventListener("pointerover", function (e) {
      var state = host._chart;
      if (state && e.target.tip && !state.drag) { show(state, e.target); }
    });
    host.addEventListener("pointerout", function (e) {
      if (host._chart && e.target.tip) { host._chart.tip.hidden = true; }
    });
    host.addEventListener("pointerdown", function (e) {
      var state = host._chart;
      if (!state || e.button !== 0 || !e.target.closest || !e.target.closest("svg.chart-svg")) { return; }
      state.drag = value(state, e);
      if (e.pointerType === "mouse" && host.setPointerCapture) { host.setPointerCapture(e.pointerId); }
    });
    host.addEventListener("pointermove", function (e) {
      var state = host._chart;
      if (!state || !state.drag) { return; }
      var at = value(state, e), a = Math.min(at.px, state.drag.px), w = Math.abs(at.px - state.drag.px);
      state.box.setAttribute("x", a); state.box.setAttribute("width", w);
      state.box.setAttribute("visibility", w > 4 ? "visible" : "hidden");
      if (w > 4) { state.tip.hidden = true; }
    });
    host.addEventListener("pointerup", function (e) {
      var state = host._chart;
      if (!state || !state.drag) { return; }
      var start = state.drag, at = value(state, e);
      state.drag = null;
      state.box.setAttribute("visibility", "hidden");
      if (Math.abs(at.px - start.px) > 4) {
        var range = [Math.min(start.v, at.v), Math.max(start.v, at.v)].map(function (v) { return Math.round(v * 1000) / 1000; });
        if (range[1] > range[0]) { state.range = range; render(host, state); }
      }
    });
    host.addEventListener("pointercancel", function () {
      var state = host._chart;
      if (state) { state.drag = null; state.box.setAttribute("visibility", "hidden"); }
    });
    host.addEventListener("dblclick", function (e) {
      // (After a drag, pointer capture makes the host itself the target.)
      if (host._chart && !(e.target.closest && e.target.closest(".chart-legend"))) { host._chart.reset.click(); }
    });
  }

  // A chart drawn while hidden (a closed tab or <details>) has no width, or labels it could not
  // measure: it is drawn again at its real size once it shows, and whenever its width changes.
  var sized = window.ResizeObserver ? new window.ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var host = entry.target;
      if (!host.isConnected) { sized.unobserve(host); return; }
      if (host._chart && host.clientWidth && host.clientWidth !== host._chart.width) { render(host, host._chart); }
    });
  }) : null;
  var seen = window.IntersectionObserver ? new window.IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      var host = entry.target;
      if (entry.isIntersecting && host._chart && host._chart.blind) { render(host, host._chart); }
    });
  }) : null;
  var watched = [];

  // Draws the charts of the page not drawn yet, or the given ones afresh (the live preview passes
  // those whose spec changed). Drawing twice is harmless: a drawn chart is skipped.
  function draw(hosts) {
    var fresh = hosts && hosts.length !== undefined;
    var list = fresh ? hosts : document.querySelectorAll("[data-figure]");
    watched = watched.filter(function (host) {
      if (host.isConnected) { return true; }
      if (sized) { sized.unobserve(host); }  // content a host page swapped out
      if (seen) { seen.unobserve(host); }
      return false;
    });
    Array.prototype.forEach.call(list, function (host) {
      if (!fresh && host._chart) { return; }
      try {
        setup(host);
        if (watched.indexOf(host) < 0) {
          watched.push(host);
          if (sized) { sized.observe(host); }
          if (seen) { seen.observe(host); }
        }
      } catch (err) {
        // A broken spec leaves its text fallback showing; the other charts still draw.
        host.classList.remove("ready");
        if (window.console) { window.console.warn("sitegen: chart not drawn:", err); }
      }
    });
  }
  // Material for MkDocs' instant navigation swaps the page's content without loading it: its
  // document$ tells each new page. The page's own load draws the first one (document$ may have
  // completed without a page, as for pages opened from disk); whichever comes second finds it done.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(function () { draw(); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { draw(); });
  } else {
    draw();
  }
  if (!sized) {
    var pending = false;
    window.addEventListener("resize", function () {
      if (pending) { return; }
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        document.querySelectorAll("[data-figure].ready").forEach(function (host) {
          if (host._chart && host.clientWidth !== host._chart.width) { render(host, host._chart); }
        });
      });
    });
  }
  window.sitegenRedraw = draw;
})();
