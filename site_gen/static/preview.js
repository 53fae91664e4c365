// Live preview client. `sitegen serve` inlines it before </body> of the pages it serves; a built
// site never contains it. On each rebuild (a server-sent event, which a worker shared by the
// browser's preview tabs passes on) it fetches its own page again and patches only what changed,
// so scroll position, chart zoom and open details survive; it shows the build error in an overlay
// while there is one.
(function () {
  "use strict";
  var me = document.currentScript;
  var version = Number(me.getAttribute("data-version"));
  var instance = me.getAttribute("data-instance");
  var MARK = "data-sitegen-preview";
  // The page as served, before any script touched it: diffs are made between served versions.
  var base = document.documentElement.cloneNode(true);
  var placeholder = document.body && document.body.hasAttribute("data-sitegen-placeholder");
  var busy = false, again = false;
  var scrollKey = "sitegen-preview-scroll:" + location.pathname;

  try {
    var saved = sessionStorage.getItem(scrollKey);
    if (saved) {
      sessionStorage.removeItem(scrollKey);
      var xy = JSON.parse(saved);
      window.addEventListener("load", function () { window.scrollTo(xy[0], xy[1]); });
    }
  } catch (e) { /* storage unavailable */ }

  function reload() {
    try { sessionStorage.setItem(scrollKey, JSON.stringify([window.scrollX, window.scrollY])); } catch (e) { }
    location.reload();
  }

  function pageKey() {
    var p = decodeURIComponent(location.pathname).replace(/^\/+/, "");
    return (p === "" || p.slice(-1) === "/") ? p + "index.html" : p;
  }

  // Nodes the page's own scripts add (a chart library's measuring and style nodes) and ours are not diffed.
  function skip(n) { return n.nodeType === 1 && (n.hasAttribute(MARK) || /^(js-)?plotly/.test(n.id || "")); }
  function kids(n) {
    var out = [];
    for (var c = n.firstChild; c; c = c.nextSibling) { if (!skip(c)) { out.push(c); } }
    // The parser appends the whitespace after this script (and after </body>) to the body once
    // `base` is cloned: trailing blank text at the end of the body is not part of the diff.
    if (n.nodeName === "BODY") {
      while (out.length && out[out.length - 1].nodeType === 3 && !/\S/.test(out[out.length - 1].nodeValue)) { out.pop(); }
    }
    return out;
  }
  function attrs(live, old, neu) {
    var i, a;
    for (i = 0; i < neu.attributes.length; i++) {
      a = neu.attributes[i];
      if (old.getAttribute(a.name) !== a.value) { live.setAttribute(a.name, a.value); }
    }
    for (i = 0; i < old.attributes.length; i++) {
      a = old.attributes[i];
      if (!neu.hasAttribute(a.name)) { live.removeAttribute(a.name); }
    }
  }
  function fresh(n) { return document.importNode(n, true); }

  // live mirrors old (plus what scripts did to it); make it mirror neu, touching only differences.
  function patch(live, old, neu) {
    attrs(live, old, neu);
    var o = kids(old), n = kids(neu), l = kids(live), i;
    if (l.length !== o.length) {  // a script rebuilt this part: start it afresh
      var anchor = l.length ? l[l.length - 1].nextSibling : null;
      l.forEach(function (c) { live.removeChild(c); });
      n.forEach(function (c) { live.insertBefore(fresh(c), anchor); });
      return;
    }
    var s = 0, oe = o.length, ne = n.length;
    while (s < oe && s < ne && o[s].isEqualNode(n[s])) { s++; }
    while (oe > s && ne > s && o[oe - 1].isEqualNode(n[ne - 1])) { oe--; ne--; }
    if (oe - s === ne - s) {
      for (i = s; i < oe; i++) {
        if (o[i].isEqualNode(n[i])) { continue; }
        if (o[i].nodeType === 1 && o[i].nodeName === n[i].nodeName && l[i].nodeName === o[i].nodeName &&
            o[i].nodeName !== "SCRIPT") {
          patch(l[i], o[i], n[i]);
        } else if (o[i].nodeType === 3 && n[i].nodeType === 3 && l[i].nodeType === 3) {
          l[i].nodeValue = n[i].nodeValue;
        } else {
          live.replaceChild(fresh(n[i]), l[i]);
        }
      }
    } else {
      var before = oe < l.length ? l[oe] : (l.length ? l[l.length - 1].nextSibling : null);
      for (i = s; i < oe; i++) { live.removeChild(l[i]); }
      for (i = s; i < ne; i++) { live.insertBefore(fresh(n[i]), before); }
    }
  }

  function scripts(root) {
    var out = [];
    root.querySelectorAll("script:not([" + MARK + "])").forEach(function (s) {
      out.push(s.getAttribute("src") || s.textContent);
    });
    return out.join("\n");
  }
  function figures(root) {
    var out = {};
    root.querySelectorAll("[data-figure]").forEach(function (el) { out[el.getAttribute("data-figure")] = el.getAttribute("data-spec"); });
    return out;
  }

  function apply(doc) {
    var next = doc.documentElement;
    if (scripts(base) !== scripts(next)) { reload(); return; }  // new code: only a reload runs it
    var before = figures(base), after = figures(next);
    if (base.querySelector("title") && next.querySelector("title") &&
        base.querySelector("title").textContent !== next.querySelector("title").textContent) {
      document.title = next.querySelector("title").textContent;
    }
    patch(document.head, base.querySelector("head"), next.querySelector("head"));
    patch(document.body, base.querySelector("body"), next.querySelector("body"));
    base = next;
    var redraw = [];
    document.querySelectorAll("[data-figure]").forEach(function (el) {
      var id = el.getAttribute("data-figure");
      if (before[id] !== after[id] || !el.firstChild) { redraw.push(el); }
    });
    if (redraw.length && window.sitegenRedraw) { window.sitegenRedraw(redraw); }
  }

  function overlay(message, title) {
    var el = document.getElementById("sitegen-preview-overlay");
    if (!message) { if (el) { el.parentNode.removeChild(el); } return; }
    if (!el) {
      el = document.createElement("div");
      el.id = "sitegen-preview-overlay";
      el.setAttribute(MARK, "");
      el.setAttribute("role", "alert");
      el.style.cssText = "position:fixed;left:1rem;right:1rem;bottom:1rem;z-index:2147483647;max-height:60vh;" +
        "overflow:auto;padding:1rem 1.25rem;border:2px solid #c4161c;border-radius:6px;background:#fff4f4;" +
        "color:#3d0a0a;font:14px/1.45 system-ui,sans-serif;box-shadow:0 6px 24px rgba(0,0,0,.25)";
      document.body.appendChild(el);
    }
    el.textContent = "";
    var h = document.createElement("strong");
    h.textContent = title || "sitegen: the last build failed";
    var pre = document.createElement("pre");
    pre.style.cssText = "white-space:pre-wrap;word-break:break-word;margin:.5rem 0;font:13px/1.4 ui-monospace,monospace";
    pre.textContent = message;
    var p = document.createElement("p");
    p.style.margin = "0";
    p.textContent = "The page shows the last good build. This goes away when the file is fixed.";
    el.appendChild(h); el.appendChild(pre); el.appendChild(p);
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.pathname + location.search, { cache: "no-store" }).then(function (r) {
      if (r.status === 404) {
        overlay("This page is no longer in the site. Open the home page: " + location.origin + "/", "sitegen: page removed");
        return null;
      }
      return r.text();
    }).then(function (html) {
      if (html === null) { return; }
      var doc = new DOMParser().parseFromString(html, "text/html");
      var tag = doc.querySelector("script[" + MARK + "]");
      if (tag) { version = Number(tag.getAttribute("data-version")); instance = tag.getAttribute("data-instance"); }
      apply(doc);
      document.dispatchEvent(new CustomEvent("sitegen:patched", { detail: { version: version } }));
    }).catch(function (e) {
      console.warn("sitegen preview: patch failed, reloading", e);
      reload();
    }).then(function () {
      busy = false;
      if (again) { again = false; refresh(); }
    });
  }

  function onBuild(data) {
    var d = JSON.parse(data);
    overlay(d.error ? "Error: " + d.error : null);
    if (placeholder) {
      if (!d.error && (d.version !== version || d.instance !== instance)) { reload(); }
      return;
    }
    if (d.instance !== instance || d.version > version + 1 ||
        (d.version > version && d.changed.indexOf(pageKey()) >= 0)) {
      refresh();
    } else if (d.version > version) {
      version = d.version;
    }
  }

  // One event stream per browser, held by a worker all tabs share (static/preview-worker.js):
  // a stream per tab would use up the browser's 6 connections to this server by the 7th tab.
  // Without SharedWorker (or if it fails to start) the tab holds a stream of its own.
  function ownStream() {
    var events = new EventSource("/__sitegen__/events");
    events.addEventListener("build", function (e) { onBuild(e.data); });
    window.addEventListener("pagehide", function () { events.close(); });
  }
  function sharedStream() {
    var worker = new SharedWorker("/__sitegen__/worker.js", { name: "sitegen-preview" });
    var working = false;  // the worker passed on an event: it runs
    worker.onerror = function () { if (!working) { working = true; ownStream(); } };
    worker.port.onmessage = function (m) { working = true; onBuild(m.data); };
    window.addEventListener("pagehide", function () { worker.port.postMessage("bye"); });
  }
  try {
    if (window.SharedWorker) { sharedStream(); } else { ownStream(); }
  } catch (e) {
    ownStream();  // SharedWorker refused here (e.g. an opaque origin)
  }
  // Back from the back/forward cache the page missed every event since it left: start afresh.
  window.addEventListener("pageshow", function (e) { if (e.persisted) { location.reload(); } });
})();
