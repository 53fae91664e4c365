// Sorts and filters the reports table in the browser; without script it stays a plain table.
(function () {
  function setup() {
    var table = document.getElementById("reports"), tools = document.querySelector(".dashboard-tools");
    if (!table || !tools || table._sorts) { return; }  // none on this page, or set up already
    table._sorts = true;
    tools.hidden = false;
    var body = table.tBodies[0], input = document.getElementById("reports-filter"), count = document.getElementById("reports-count");
    function rows() { return Array.prototype.slice.call(body.rows); }
    var none = document.getElementById("reports-none"), wrap = document.getElementById("reports-wrap");
    function show() {
      var q = input.value.trim().toLowerCase(), n = 0;
      rows().forEach(function (tr) { var hit = !q || tr.textContent.toLowerCase().indexOf(q) >= 0; tr.hidden = !hit; n += hit ? 1 : 0; });
      count.textContent = n + " of " + body.rows.length + " reports";
      // No match: a message in place of an empty table (whose columns would shrink to the headers).
      if (none && wrap) {
        none.hidden = n > 0; wrap.hidden = n === 0;
        none.querySelector("span").textContent = input.value.trim();
      }
    }
    input.addEventListener("input", show);
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var button = document.createElement("button");
      button.type = "button"; button.className = "sort"; button.textContent = th.textContent;
      th.textContent = ""; th.appendChild(button);
      // The whole header cell sorts, not only its text; the button is what the keyboard reaches.
      th.addEventListener("click", function (e) { if (e.target === th) { button.click(); } });
      th.classList.add("sortable-col");
      button.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending", numeric = th.getAttribute("data-type") === "number";
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        rows().map(function (tr) {
          var cell = tr.cells[col], v = cell.getAttribute("data-sort");
          if (v === null) { v = cell.textContent; }
          return [numeric ? (v === "" ? -Infinity : parseFloat(v)) : v.toLowerCase(), tr];
        }).sort(function (a, b) { return (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) * (asc ? 1 : -1); })
          .forEach(function (pair) { body.appendChild(pair[1]); });
      });
    });
    show();
  }
  // Material for MkDocs' instant navigation swaps the page's content without loading it: its
  // document$ tells each new page. The page's own load sets up the first one (document$ may have
  // completed without a page, as for pages opened from disk); whichever comes second finds it done.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(setup);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
  window.sitegenDashboard = setup;
})();
