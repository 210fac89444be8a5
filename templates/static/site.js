// Progressive enhancement only: every page is complete and readable without this file.
(function () {
  "use strict";

  // --- numbers, as sitegen/site/figures/numbers.py writes them ----------------------------------------
  // The one copy: point.js, plots.js and compare.js, loaded after this file, take them from
  // window.sitegenNumbers.
  var grouped = function (value, digits) {
    return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  };
  // Python's format rounds the exact binary value to the nearest, as toFixed does (51.85 is a
  // little more: 51.9), but a true tie to even (135.25 → 135.2, 0.125 → 0.12) where toFixed and
  // toLocaleString go up; so must this, or the scripts and the static pages would disagree in
  // the last digit. At d digits a true tie is a double that is an odd multiple of 2^-(d+1).
  // Returns the nearest double to the rounded decimal, for grouped() or toFixed() to write.
  var fixed = function (value, digits) {
    var halves = value * Math.pow(2, digits + 1);  // exact: a power of two
    if (Number.isInteger(halves) && Math.abs(halves) % 2 === 1) {
      var scale = Math.pow(10, digits), below = Math.floor(value * scale);
      return (below % 2 === 0 ? below : below + 1) / scale;
    }
    return Number(value.toFixed(digits));
  };
  var scaled = function (value) {  // 10.2K, 1.3M for 10,000 and up; null below
    var strip = function (text) { return text.replace(/\.0$/, ""); };
    if (value >= 999950) return strip(fixed(value / 1e6, 1).toFixed(1)) + "M";
    if (value >= 10000) return strip(fixed(value / 1000, 1).toFixed(1)) + "K";
    return null;
  };
  // numbers.context: 0, 500; 8K, 1019K (× 1,024 tokens); else one decimal, half up: 4.9K.
  var contextLabel = function (tokens) {
    if (tokens < 1024) return grouped(tokens, 0);
    if (tokens % 1024 === 0) return tokens / 1024 + "K";
    var tenths = Math.floor((tokens * 10 + 512) / 1024);
    return Math.floor(tenths / 10) + "." + (tenths % 10) + "K";
  };

  window.sitegenNumbers = {
    grouped: grouped,
    fixed: fixed,
    // numbers.rate: 10.2K, 9,544.0, 228.4; numbers.rate_short: 10.2K, 9,544, 228.
    rate: function (value) {
      return value === null || value === undefined ? "—" : scaled(value) || grouped(fixed(value, 1), 1);
    },
    rateShort: function (value) { return scaled(value) || grouped(fixed(value, 0), 0); },
    // numbers.milliseconds: 1,317 ms.
    ms: function (value) { return value === null || value === undefined ? "—" : grouped(fixed(value, 0), 0) + " ms"; },
    // numbers.setting: a launch setting's value, yes or no for a switch, "unset" for null.
    setting: function (value) {
      return typeof value === "boolean" ? (value ? "yes" : "no") : value === null ? "unset" : String(value);
    },
    contextLabel: contextLabel
  };

  // Every internal URL is relative to the page, so the site works from disk and under any path:
  // the page carries the way back to the site root ("", "../../", or "/repo/" on the 404 page).
  var root = document.documentElement.getAttribute("data-root") || "";
  var siteUrl = function (path) { return root + path; };

  // --- copy the launch command ---------------------------------------------------
  // The button is made here, beside the heading that names what it copies: without a
  // clipboard (or JavaScript) there is nothing to press.
  document.querySelectorAll("[data-copy]").forEach(function (head) {
    var target = document.getElementById(head.getAttribute("data-copy"));
    if (!target || !navigator.clipboard) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    head.appendChild(button);
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(target.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
  });

  // --- a run JSON read back as its result file ----------------------------------------------
  // Formats 2 and 3 write each phase of measurements as field names once and a row a
  // measurement (3 leaves out a row's absent values at its end: read as absent, as null is),
  // statistics as "statistics/<figure>/<name>" columns and the columns equal to their figure's
  // named in "same" (sitegen/measurement_rows.py; docs/result-format.md). compare.js, ownfile.js
  // and run.js (the run page's tables and CSV) read records: this makes them, as result_document
  // does in Python. Values are copied, never parsed, so the CSV's numbers keep their text.
  var versionOf = function (value) {
    return value === undefined ? 1 : Number(String(value).replace(/^\u0000/, ""));
  };
  var phaseRecords = function (phase) {
    var fields = phase.fields || [], same = phase.same || {};
    return (phase.rows || []).map(function (row) {
      var flat = {}, record = {};
      fields.forEach(function (name, i) {
        if (row[i] !== null && row[i] !== undefined) flat[name] = row[i];
      });
      Object.keys(same).forEach(function (name) {
        if (same[name] in flat) flat[name] = flat[same[name]];
      });
      Object.keys(flat).forEach(function (name) {
        var parts = name.split("/");
        if (parts.length === 3 && parts[0] === "statistics") {
          var statistics = record.statistics = record.statistics || {};
          (statistics[parts[1]] = statistics[parts[1]] || {})[parts[2]] = flat[name];
        } else {
          record[name] = flat[name];
        }
      });
      return record;
    });
  };
  // Throws on a format this script does not know.
  var resultDocument = function (published) {
    var version = versionOf(published.run_json_version);
    if (version === 1) return published;
    if (version !== 2 && version !== 3) throw new Error("run JSON format " + version + " is newer than this page");
    var result = {};
    Object.keys(published).forEach(function (key) {
      if (key !== "run_json_version") result[key] = published[key];
    });
    var measurements = published.measurements || {};
    result.measurements = {};
    Object.keys(measurements).forEach(function (phase) {
      var rows = measurements[phase];
      result.measurements[phase] = Array.isArray(rows) ? rows : phaseRecords(rows);
    });
    return result;
  };
  window.sitegenRunJson = { resultDocument: resultDocument };

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
  // The index is paginated; the filters search every run. On their first use (or when the
  // address already holds a filter) they fetch the search index, one compact file of every
  // row (sitegen/site/pages/index.py search_index), fill in each facet's values, and show the
  // matching rows of all pages in place of this page's; clearing them brings the page back.
  var filters = document.getElementById("filters");
  var filtered = document.querySelector("table[data-filterable='true']");
  if (filters && filtered && window.fetch) {
    var shown = document.getElementById("shown-count");
    var pageCount = shown ? shown.textContent : "";
    var pager = document.querySelector("nav.pager");
    var body = filtered.tBodies[0];
    var pageRows = Array.prototype.slice.call(body.rows);
    // The search index's links are relative to the site root, which the page names (data-root).
    var rootUrl = new URL(root || "./", location.href);
    var selects = filters.querySelectorAll("select");
    var search = filters.elements.q;
    var params = new URLSearchParams(window.location.search);
    var index = null, loading = null;
    // Browsers block fetch() on file://: opened from disk, the filters search this page's rows,
    // their values read from the rows themselves, and say that all runs need the site served.
    var fromDisk = location.protocol === "file:";
    // One option per known value (lower-cased key → text as shown), then the address's choice.
    var addOptions = function (select, known) {
      Object.keys(known).sort().forEach(function (key) {
        var option = document.createElement("option");
        option.value = key;
        option.textContent = known[key];
        select.appendChild(option);
      });
      var wanted = params.get(select.name);
      if (wanted) select.value = wanted.toLowerCase();
    };
    // A page row's filter values (lower-cased), in data-f: model|accelerator|engine|quantization.
    var FACETS = ["model", "accelerator", "engine", "quantization"];
    var facetOf = function (tr, name) {
      return (tr.getAttribute("data-f") || "").split("|")[FACETS.indexOf(name)] || "";
    };
    var fillFromPage = function () {
      selects.forEach(function (select) {
        var known = {};
        pageRows.forEach(function (tr) {
          var value = facetOf(tr, select.name);
          if (!value || known[value]) return;
          var shownText = tr.textContent, at = shownText.toLowerCase().indexOf(value);
          known[value] = at >= 0 ? shownText.slice(at, at + value.length) : value;
        });
        addOptions(select, known);
      });
      if (params.get("q")) search.value = params.get("q");
    };

    var load = function () {
      if (!loading && fromDisk) loading = Promise.resolve().then(fillFromPage);
      if (!loading) {
        loading = fetch(siteUrl("data/index.json")).then(function (r) {
          if (!r.ok) throw new Error(r.status + " " + r.url);
          return r.json();
        }).then(function (data) {
          index = joined(data);
          var values = {};
          index.runs.forEach(function (run) {
            run[12].forEach(function (pair) {
              var name = index.strings[pair[0]], value = index.strings[pair[1]];
              if (!value) return;
              values[name] = values[name] || {};
              if (!values[name][value.toLowerCase()]) values[name][value.toLowerCase()] = value;
            });
          });
          selects.forEach(function (select) { addOptions(select, values[select.name] || {}); });
          if (params.get("q")) search.value = params.get("q");
        });
      }
      return loading;
    };

    // The search index comes in parts, one a model, each with its own table of texts (so that a
    // build keeps the parts of models that did not change): made one table, each run's positions
    // moved by where its part's texts start. A figure is [text, sort value, where, per accelerator].
    var joined = function (data) {
      var strings = [], runs = [];
      data.parts.forEach(function (part) {
        var base = strings.length;
        var at = function (i) { return i + base; };
        var figure = function (value) { return [at(value[0]), value[1], at(value[2]), at(value[3])]; };
        Array.prototype.push.apply(strings, part.strings);
        part.runs.forEach(function (run) {
          runs.push(run.slice(0, 8).map(at).concat([figure(run[8]), figure(run[9]), figure(run[10]), figure(run[11]),
            run[12].map(function (pair) { return [at(pair[0]), at(pair[1])]; }), at(run[13])]));
        });
      });
      return { strings: strings, runs: runs };
    };
    var text = function (i) { return index.strings[i]; };
    var cell = function (tag, label, content) {
      var element = document.createElement(tag);
      if (label) element.setAttribute("data-label", label);
      if (content !== undefined) element.textContent = content;
      return element;
    };
    var link = function (href, content) {
      var a = document.createElement("a");
      a.href = new URL(text(href), rootUrl).href;
      a.textContent = content;
      return a;
    };
    var figure = function (value, label) {
      var td = cell("td", label, text(value[0]));
      if (value[1] !== null) td.setAttribute("data-sort", String(value[1]));  // none: shows —, sorts last
      // Beneath: per accelerator (derived), then where it was measured, a line each in one <small>.
      var lines = [text(value[3]), text(value[2])].filter(Boolean);
      if (lines.length) {
        var small = cell("small");
        lines.forEach(function (line, i) {
          if (i) small.appendChild(document.createElement("br"));
          small.appendChild(document.createTextNode(line));
        });
        td.appendChild(document.createTextNode(" "));
        td.appendChild(small);
      }
      return td;
    };
    // The same row as templates/_macros.html's runs_table makes, from the index's texts.
    var row = function (run) {
      var tr = document.createElement("tr");
      var th = cell("th");
      th.appendChild(link(run[0], text(run[1])));
      if (text(run[13])) {
        th.appendChild(document.createTextNode(" "));
        var label = cell("span", null, text(run[13]));
        label.className = "run-label";
        th.appendChild(label);
      }
      th.appendChild(document.createTextNode(" "));
      var all = link(run[2], "all runs");
      th.appendChild(all);
      tr.appendChild(th);
      var hardware = cell("td", "Hardware");
      hardware.appendChild(link(run[4], text(run[3])));
      tr.appendChild(hardware);
      tr.appendChild(cell("td", "Engine", text(run[5])));
      tr.appendChild(cell("td", "Quantization", text(run[6])));
      tr.appendChild(cell("td", "Date", text(run[7])));
      // The phone layout's labels are the column headings, as the template writes them.
      // The headline headings (th.h): an operating point's columns may stand before them.
      var heading = function (i) {
        return filtered.tHead.querySelectorAll("th.h")[i].textContent.trim();
      };
      [8, 9, 10, 11].forEach(function (field, i) {
        tr.appendChild(figure(run[field], heading(i)));
      });
      return tr;
    };

    // The rows shown changed: point.js reads its operating point again for them.
    var changed = function () { filtered.dispatchEvent(new CustomEvent("sitegen:rows")); };
    var apply = function () {
      // Other settings in the address (an operating point) stay as they are.
      var query = new URLSearchParams(window.location.search);
      selects.forEach(function (select) {
        if (select.value) query.set(select.name, select.value); else query.delete(select.name);
      });
      var words = search.value.trim().toLowerCase();
      if (words) query.set("q", search.value.trim()); else query.delete("q");
      var address = query.toString();
      history.replaceState(null, "", address ? "?" + address : window.location.pathname);
      var filtering = !!words || Array.prototype.some.call(selects, function (select) { return !!select.value; });
      if (!filtering) {  // this page's own rows again
        body.replaceChildren.apply(body, pageRows);
        if (pager) pager.hidden = false;
        if (shown) shown.textContent = pageCount;
        changed();
        return;
      }
      if (fromDisk) {
        load().then(function () {
          var mine = pageRows.filter(function (tr) {
            for (var i = 0; i < selects.length; i++) {
              if (selects[i].value && facetOf(tr, selects[i].name) !== selects[i].value) return false;
            }
            var haystack = tr.cells[0].textContent + " " + tr.cells[1].textContent + " " + tr.cells[2].textContent +
              " " + tr.cells[3].textContent;
            haystack = haystack.toLowerCase();
            return !words || words.split(/\s+/).every(function (word) { return haystack.indexOf(word) >= 0; });
          });
          body.replaceChildren.apply(body, mine);
          changed();
          if (shown) {
            shown.textContent = mine.length + " of " + pageRows.length + " on this page shown (searching every run " +
              "needs the site served over HTTP, for example `sitegen serve`)";
          }
        });
        return;
      }
      load().then(function () {
        var matches = index.runs.filter(function (run) {
          var facets = {};
          run[12].forEach(function (pair) { facets[text(pair[0])] = text(pair[1]).toLowerCase(); });
          for (var i = 0; i < selects.length; i++) {
            if (selects[i].value && facets[selects[i].name] !== selects[i].value) return false;
          }
          if (!words) return true;
          var haystack = [run[1], run[3], run[5], run[6], run[13]].map(text).join(" ").toLowerCase();
          return words.split(/\s+/).every(function (word) { return haystack.indexOf(word) >= 0; });
        });
        body.replaceChildren.apply(body, matches.map(row));
        changed();
        if (pager) pager.hidden = true;
        if (shown) shown.textContent = matches.length + " of " + index.runs.length + " shown";
      }).catch(function (error) {
        if (shown) shown.textContent = "Could not load the runs to filter: " + error.message;
      });
    };
    filters.addEventListener("focusin", function () { load(); }, { once: true });
    filters.addEventListener("pointerdown", function () { load(); }, { once: true });
    selects.forEach(function (select) { select.addEventListener("change", apply); });
    search.addEventListener("input", apply);
    filters.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
    filters.addEventListener("reset", function () { setTimeout(apply, 0); });
    filters.hidden = false;
    if (fromDisk) load();  // this page's own values: cheap, and nothing to fetch
    var filteredBefore = params.get("q") || Array.prototype.some.call(selects, function (select) { return params.get(select.name); });
    if (filteredBefore) load().then(apply);
  }

  // --- interactive charts: load the Vega bundle only when a reader asks for it -------------
  var vegaLoading = null;
  var loadVega = function () {
    if (!vegaLoading) {
      vegaLoading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = siteUrl("assets/vega.js");
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
  // them filled in, as sitegen's chart_specs.fill does. The template is the light chart's; on a
  // dark screen its colours are swapped as the SVG's own style swaps them.
  var PLACEHOLDER = /\["(@[a-z-]+)"\]|"(@[a-z-]+)"|(\{"name":"@data"\})/g;
  var loadSpec = function (url) {
    return fetchJson(url).then(function (text) {
      var chart = JSON.parse(text);
      var rows = chart.rows.map(function (values) {
        var row = {};
        chart.fields.forEach(function (field, i) { if (values[i] !== null) { row[field] = values[i]; } });
        // What the file leaves out because it follows from the rest (chart_specs.ChartSpec.data_json).
        (chart.derived || []).forEach(function (name) {
          if (name === "series") { row.series = chart.fills["@series"][parseInt(String(row.line), 10)]; }
          if (name === "context_text") {
            row.context_text = contextLabel(row.context);
          }
        });
        return row;
      });
      var templateUrl = new URL(chart.template, new URL(url, location.href)).href;
      return Promise.all([fetchJson(templateUrl), dark ? fetchJson(siteUrl("assets/chart-colours.json")) : "{}"])
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
