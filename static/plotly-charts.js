// With `charts: plotly`: draws each speed chart with Plotly from the spec beside it (the same spec
// the built-in SVG drawer reads), in the page's current colours, and redraws when the reader's
// colour scheme changes.
(function () {
  "use strict";
  function colours() {
    var s = getComputedStyle(document.documentElement);
    function v(name) { return s.getPropertyValue(name).trim(); }
    return { bg: v("--bg"), fg: v("--fg"), line: v("--line"), band: v("--band"), aggregate: v("--series-aggregate"), decode: v("--series-decode") };
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
      if (shape.meta === "band") { shape.fillcolor = c.band; }
      if (shape.meta === "one") { shape.line = { color: c.fg, width: 1.5 }; }
    });
    fig.data.forEach(function (trace) {
      var colour = trace.meta && trace.meta.role === "decode" ? c.decode : c.aggregate;
      trace.marker = trace.marker || {}; trace.marker.color = colour;
      trace.marker.line = { color: c.bg, width: 1 };
    });
    return fig;
  }
  function draw() {
    if (!window.Plotly) { return; }
    document.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-figure"));
      if (!source) { return; }
      var fig = themed(JSON.parse(source.textContent));
      window.Plotly.react(el, fig.data, fig.layout, fig.config || { displaylogo: false, responsive: true });
      el.classList.add("ready");
      el.removeAttribute("aria-hidden");
      el.setAttribute("role", "img");
      var caption = el.parentElement.querySelector("figcaption");
      if (caption) { el.setAttribute("aria-label", caption.textContent); }
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); } else { draw(); }
  if (window.matchMedia) {
    var mq = window.matchMedia("(prefers-color-scheme: dark)");
    if (mq.addEventListener) { mq.addEventListener("change", draw); }
  }
  window.sitegenRedraw = draw;
})();
