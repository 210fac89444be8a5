// Progressive enhancement only: every page is complete and readable without this file.
(function () {
  "use strict";

  var scriptBase = (function () {
    var src = document.currentScript && document.currentScript.src;
    return src ? src.replace(/site\.js(\?.*)?$/, "") : "";
  })();

  // --- copy the launch command ---------------------------------------------------
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(target.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
  });

  // --- sortable tables -------------------------------------------------------------
  function sortValue(cell, type) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (type === "number") {
      var number = parseFloat(raw);
      return isNaN(number) ? null : number;
    }
    return raw === "—" ? null : raw.toLowerCase();
  }

  // A header sorts by its own column, looked up when clicked: point.js adds columns later.
  var makeSortable = function (table, th) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () {
      var column = th.cellIndex;
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var type = th.getAttribute("data-type") || "text";
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = sortValue(a.cells[column], type), y = sortValue(b.cells[column], type);
        if (x === null && y === null) return 0;
        if (x === null) return 1;  // not measured sorts last either way
        if (y === null) return -1;
        var order = x < y ? -1 : x > y ? 1 : 0;
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  };
  window.sitegenSortable = makeSortable;
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th) { makeSortable(table, th); });
  });

  // --- index filters, kept in the address -----------------------------------------------
  var filters = document.getElementById("filters");
  var filtered = document.querySelector("table[data-filterable='true']");
  if (filters && filtered) {
    var selects = filters.querySelectorAll("select");
    var shown = document.getElementById("shown-count");
    var params = new URLSearchParams(window.location.search);
    selects.forEach(function (select) {
      var wanted = params.get(select.name);
      if (wanted) select.value = wanted.toLowerCase();
    });
    var apply = function () {
      // Other settings in the address (an operating point) stay as they are.
      var query = new URLSearchParams(window.location.search);
      var visible = 0;
      selects.forEach(function (select) {
        if (select.value) query.set(select.name, select.value); else query.delete(select.name);
      });
      Array.prototype.forEach.call(filtered.tBodies[0].rows, function (row) {
        var match = true;
        selects.forEach(function (select) {
          if (select.value && row.getAttribute("data-" + select.name) !== select.value) match = false;
        });
        row.hidden = !match;
        if (match) visible += 1;
      });
      var text = query.toString();
      history.replaceState(null, "", text ? "?" + text : window.location.pathname);
      if (shown) shown.textContent = visible < filtered.tBodies[0].rows.length ? visible + " shown" : "";
    };
    selects.forEach(function (select) { select.addEventListener("change", apply); });
    filters.addEventListener("reset", function () { setTimeout(apply, 0); });
    filters.hidden = false;
    apply();
  }

  // --- interactive charts: load the Vega bundle only when a reader asks for it -------------
  var vegaLoading = null;
  var loadVega = function () {
    if (!vegaLoading) {
      vegaLoading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = scriptBase + "vega.js";
        script.onload = resolve;
        script.onerror = function () { reject(new Error("could not load the chart library")); };
        document.head.appendChild(script);
      });
    }
    return vegaLoading;
  };
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var fetchJson = function (url) {
    return fetch(url).then(function (r) {
      if (!r.ok) { throw new Error(url + ": " + r.status); }
      return r.text();
    });
  };
  // A chart's file holds its values; the spec is its kind's template (one file per kind) with
  // them filled in, as sitegen's charts.fill does. The template is the light chart's; on a
  // dark screen its colours are swapped as the SVG's own style swaps them.
  var PLACEHOLDER = /\["(@[a-z-]+)"\]|"(@[a-z-]+)"|(\{"name":"@data"\})/g;
  var loadSpec = function (url) {
    return fetchJson(url).then(function (text) {
      var chart = JSON.parse(text);
      var rows = chart.rows.map(function (values) {
        var row = {};
        chart.fields.forEach(function (field, i) { if (values[i] !== null) { row[field] = values[i]; } });
        return row;
      });
      var templateUrl = new URL(chart.template, new URL(url, location.href)).href;
      return Promise.all([fetchJson(templateUrl), dark ? fetchJson(scriptBase + "chart-colours.json") : "{}"])
        .then(function (texts) {
          var colours = JSON.parse(texts[1]);
          var template = texts[0].replace(/#[0-9a-fA-F]{6}\b/g, function (colour) { return colours[colour] || colour; });
          return JSON.parse(template.replace(PLACEHOLDER, function (match, list, value, data) {
            if (data) { return JSON.stringify({ values: rows }); }
            var name = list || value;
            return Object.prototype.hasOwnProperty.call(chart.fills, name) ? JSON.stringify(chart.fills[name]) : match;
          }));
        });
    });
  };
  document.querySelectorAll("figure.chart[data-spec]").forEach(function (figure) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button chart-toggle";
    button.textContent = "Interactive";
    button.setAttribute("aria-label", "Make this chart interactive (tooltips)");
    figure.insertBefore(button, figure.firstChild);
    button.addEventListener("click", function () {
      button.disabled = true;
      Promise.all([loadVega(), loadSpec(figure.getAttribute("data-spec"))]).then(function (done) {
        var spec = done[1];
        spec.width = "container";
        var target = document.createElement("div");
        target.className = "interactive";
        var picture = figure.querySelector("img");
        // As wide as the static chart it replaces; in the page first, so "container" has a width.
        // (Setting a style property from a script is allowed by the CSP; inline style attributes are not.)
        target.style.width = Math.round(picture.getBoundingClientRect().width) + "px";
        figure.insertBefore(target, picture);
        // CSP forbids eval; with ast on, vega-embed runs Vega's expression interpreter instead.
        // It also forbids inline styles, so vega-embed and its tooltips must not inject their
        // own <style>: style.css carries what they need.
        var options = {
          actions: false, renderer: "svg", ast: true, defaultStyle: false,
          tooltip: { disableDefaultStyle: true }
        };
        return window.vegaEmbed(target, spec, options).then(function () {
          picture.hidden = true;
          button.remove();
        }, function (error) {
          target.remove();
          throw error;
        });
      }).catch(function (error) {
        button.disabled = false;
        button.textContent = "Interactive chart unavailable";
        button.title = error.message;
      });
    });
  });
})();
