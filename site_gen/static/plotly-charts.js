// With `charts: plotly`: draws each speed chart with Plotly from the spec beside it (the same spec
// the built-in SVG drawer reads), in the page's current colours, and redraws when the reader's
// colour scheme changes.
(function () {
  "use strict";
  function colours() {
    var s = getComputedStyle(document.documentElement);
    function v(name) { return s.getPropertyValue(name).trim(); }
    return { bg: v("--bg"), fg: v("--fg"), line: v("--line"), band: v("--band"), edge: v("--band-edge"), aggregate: v("--series-aggregate"), decode: v("--series-decode") };
  }
  function themed(spec) {
    var c = colours(), fig = JSON.parse(JSON.stringify(spec));
    fig.layout.paper_bgcolor = c.bg; fig.layout.plot_bgcolor = c.bg;
    fig.layout.font = { color: c.fg, family: getComputedStyle(document.body).fontFamily };
    fig.layout.xaxis.gridcolor = c.line; fig.layout.yaxis.gridcolor = c.line;
    // Values beyond the scale are drawn as triangles on its ends: a little room on either side
    // keeps each whole inside the plot rather than cut in half by its edge.
    var r = fig.layout.xaxis.range, pad = (r[1] - r[0]) * 0.02;
    fig.layout.xaxis.range = [r[0] - pad, r[1] + pad];
    (fig.layout.shapes || []).forEach(function (shape) {
      if (shape.meta === "band") { shape.fillcolor = c.band; shape.line = { color: c.edge, width: 1 }; }
      if (shape.meta === "one") { shape.line = { color: c.fg, width: 1.5 }; }
    });
    fig.data.forEach(function (trace) {
      var colour = trace.meta && trace.meta.role === "decode" ? c.decode : c.aggregate;
      trace.marker = trace.marker || {}; trace.marker.color = colour;
      trace.marker.line = { color: c.bg, width: 1 };
    });
    return fig;
  }
  var sized = window.ResizeObserver ? new window.ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var el = entry.target;
      if (!el.isConnected) { sized.unobserve(el); return; }
      // A chart drawn in a closed tab or <details> takes its real size when it shows.
      if (el._width !== el.clientWidth && el.clientWidth && window.Plotly) {
        el._width = el.clientWidth;
        window.Plotly.Plots.resize(el);
      }
    });
  }) : null;
  // Draws the charts not drawn yet (every chart after a colour-scheme change, the given ones for
  // the live preview): drawing twice is harmless.
  function draw(hosts) {
    if (!window.Plotly) { return; }
    var every = hosts === true, given = !every && hosts && hosts.length !== undefined;
    var list = given ? hosts : document.querySelectorAll("[data-figure]");
    Array.prototype.forEach.call(list, function (el) {
      var source = el.getAttribute("data-spec");
      if (source === null || (el._drawn && !every && !given)) { return; }
      var fig = themed(JSON.parse(source));
      window.Plotly.react(el, fig.data, fig.layout, fig.config || { displaylogo: false, responsive: true });
      el._drawn = true;
      el._width = el.clientWidth;
      if (sized) { sized.observe(el); }
      el.classList.add("ready");
      el.removeAttribute("aria-hidden");
      el.setAttribute("role", "img");
      var caption = el.parentElement.querySelector("figcaption");
      if (caption) { el.setAttribute("aria-label", caption.textContent); }
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
  if (window.matchMedia) {
    var mq = window.matchMedia("(prefers-color-scheme: dark)");
    if (mq.addEventListener) { mq.addEventListener("change", function () { draw(true); }); }
  }
  window.sitegenRedraw = draw;
})();
