// The operating-point picker of the index and the group pages: each run's cell at a chosen
// context × requests, its capacity at a service level and its cost, added to the runs table.
// Progressive enhancement: without JavaScript the presets link to static views (at/<name>/).
// Nothing is fetched until a reader picks a point or arrives with one in the address; then
// data/points/<context>.json names the models measured there, and data/points/<context>/<model>.json
// holds every cell at that context of that model's runs: one file per model the table lists.
// The rules mirror sitegen/site/capacity.py and are documented in docs/capacity.md.
(function () {
  "use strict";
  var form = document.getElementById("point-form");
  var table = document.querySelector("table.runs");
  if (!form || !table || !window.fetch || !window.URLSearchParams) return;
  var status = document.getElementById("point-status");
  var KEYS = ["context", "concurrency", "level", "min_tps", "max_ttft", "price"];
  var STATUS = { valid: "Valid", requests_queued: "Requests queued", over_capacity: "Over capacity",
                 not_run: "Not run", failed: "Failed" };
  var field = function (name) { return form.elements[name]; };
  var contexts = Array.prototype.map.call(field("context").options, function (o) { return Number(o.value); });

  // --- numbers, as sitegen/site/numbers.py writes them: site.js, loaded first ---------------
  var numbers = window.sitegenNumbers;
  var grouped = numbers.grouped, fixed = numbers.fixed, rate = numbers.rate, ms = numbers.ms;
  var contextLabel = numbers.contextLabel;
  // capacity_page: users per accelerator, a whole number as it is, else one decimal.
  var users = function (v) { return v % 1 ? grouped(fixed(v, 1), 1) : String(v); };
  var money = function (usd) { return "$" + (usd >= 0.1 ? grouped(fixed(usd, 2), 2) : fixed(usd, 4).toFixed(4)); };
  // The figures as the picker writes them, for tests/test_browser_capacity.py to hold against
  // Python's format.
  window.sitegenPoint = { rate: rate, ms: ms, users: users, money: money };
  var number = function (text) {
    if (text === null || text === "") return null;
    var value = Number(text);
    return isFinite(value) && value > 0 ? value : null;
  };

  // --- the rules: site.js's one copy (of sitegen/site/capacity.py's, docs/capacity.md) ------
  var rules = window.sitegenRules;
  var matchContext = rules.matchContext, judge = rules.judge, capacity = rules.capacity;

  // --- reading and keeping the choice ------------------------------------------------------
  var levelOf = function (choice) {
    if (choice.level && choice.level !== "custom") {
      var option = field("level").querySelector("option[value='" + CSS.escape(choice.level) + "']");
      if (!option) return null;
      return { name: choice.level, min: number(option.getAttribute("data-min")),
               ttft: number(option.getAttribute("data-ttft")), tbt: number(option.getAttribute("data-tbt")),
               percentile: option.getAttribute("data-percentile") };
    }
    var min = number(choice.min_tps), ttft = number(choice.max_ttft);
    if (min === null && ttft === null) return null;
    return { name: "your level", min: min, ttft: ttft, tbt: null, percentile: null };
  };
  var fromAddress = function () {
    var params = new URLSearchParams(window.location.search), choice = {};
    KEYS.forEach(function (key) { choice[key] = params.get(key) || ""; });
    if (!choice.level && (choice.min_tps || choice.max_ttft)) choice.level = "custom";
    return choice;
  };
  var fromForm = function () {
    var choice = {};
    KEYS.forEach(function (key) { choice[key] = field(key).value; });
    if (choice.level !== "custom") { choice.min_tps = ""; choice.max_ttft = ""; }
    return choice;
  };
  var toForm = function (choice) {
    var wanted = Number(choice.context);
    var shown = matchContext(contexts, wanted);
    if (shown !== null) field("context").value = String(shown);
    field("concurrency").value = choice.concurrency || "";
    field("level").value = choice.level || "";
    field("min_tps").value = choice.min_tps;
    field("max_ttft").value = choice.max_ttft;
    field("price").value = choice.price;
    showThresholds();
  };
  var keep = function (choice) {
    var params = new URLSearchParams(window.location.search);
    KEYS.forEach(function (key) {
      if (choice && choice[key]) params.set(key, choice[key]); else params.delete(key);
    });
    var text = params.toString();
    history.replaceState(null, "", text ? "?" + text : window.location.pathname);
  };
  var showThresholds = function () {
    var custom = field("level").value === "custom";
    [field("min_tps"), field("max_ttft")].forEach(function (input) { input.parentNode.hidden = !custom; });
  };

  // --- drawing -----------------------------------------------------------------------------
  var el = function (tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  };
  // The point's columns take the headline columns' place while a point is chosen.
  var clear = function () {
    table.querySelectorAll(".op-col").forEach(function (node) { node.remove(); });
    table.classList.remove("at-point");
  };
  // Before the first headline figure: the 6th cell not of the point's own (_macros.html runs_table).
  var place = function (row, cell) {
    var cells = Array.prototype.filter.call(row.children, function (c) { return !c.classList.contains("op-col"); });
    row.insertBefore(cell, cells[5] || null);
  };
  var header = function (text, title, type) {
    var th = el("th", text, type === "text" ? "op-col op-text" : "num op-col");
    th.scope = "col";
    th.setAttribute("data-type", type || "number");
    if (title) th.title = title;
    place(table.tHead.rows[0], th);
    if (window.sitegenSortable) window.sitegenSortable(table, th);
  };
  var td = function (row, label, parts, sort, type) {
    var cell = el("td", undefined, type === "text" ? "op-col op-text" : "num op-col");
    cell.setAttribute("data-label", label);
    if (type !== "text") cell.setAttribute("data-sort", sort === null || sort === undefined ? "" : String(sort));
    parts.forEach(function (part, i) {
      if (i) cell.appendChild(document.createTextNode(" "));
      cell.appendChild(el("span", part[0], part[1]));
    });
    place(row, cell);
  };

  var merged = rules.merged;

  var render = function (data, choice, wanted, level) {
    clear();
    table.classList.add("at-point");
    // Without a number of requests only the capacity (and its cost) is read: it needs none.
    var concurrency = choice.concurrency ? Number(choice.concurrency) : null;
    var entered = number(choice.price);
    var at = contextLabel(wanted) + (concurrency === null ? "" : " × " + concurrency);
    var priced = entered !== null || Object.keys(data.runs).some(function (id) {
      return data.runs[id].price_usd_per_hour !== null;
    });
    // The statistic is named in the header when the rows share one, else beside each figure.
    var kinds = {};
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var entry = data.runs[runOf(row)];
      if (entry) kinds[entry.statistic] = true;
    });
    var shared = Object.keys(kinds).length === 1 ? Object.keys(kinds)[0] : null;
    var named = function (text, entry) { return shared || !entry ? text : text + " (" + entry.statistic + ")"; };
    var speedLabel = "Per request tok/s (" + (shared || "each run's statistic") + ")";
    var waitLabel = "TTFT (" + (shared || "each run's statistic") + ")";
    if (concurrency !== null) {
      header("Total tok/s at " + at);
      header(speedLabel);
      header(waitLabel);
      header("Status", undefined, "text");
    }
    if (level) header("Capacity at " + contextLabel(wanted) + ", " + level.name + ": users per accelerator (derived)");
    if (priced && (concurrency !== null || level)) {
      header("USD per million output tokens at " + (concurrency === null ? "capacity, " : "") + at + " (derived)");
    } else priced = false;
    var found = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var entry = data.runs[runOf(row)];
      var cells = entry ? entry.cells : [];
      var cell = cells.filter(function (c) { return c.concurrency === concurrency; })[0];
      var accelerators = entry ? entry.accelerators : 1;
      var price = entered !== null ? entered : entry ? entry.price_usd_per_hour : null;
      if (concurrency === null) {
        if (entry) found += 1;
      } else if (!cell) {
        td(row, "At " + at, [["not measured", "absent"]], null);
        td(row, speedLabel, [["—"]], null);
        td(row, waitLabel, [["—"]], null);
        td(row, "Status", [["not measured"]], null, "text");
      } else {
        found += 1;
        var measured = cell.status === "valid" || cell.status === "requests_queued";
        var total = measured ? cell.total_tokens_per_s : null;
        var parts = [[rate(total), "value"]];
        if (total !== null && accelerators > 1) parts.push([rate(total / accelerators) + " per accelerator", "at derived"]);
        if (entry.context_tokens !== wanted) parts.push(["run's context " + contextLabel(entry.context_tokens), "at"]);
        td(row, "At " + at, parts, total);
        var speed = cell.per_request_tokens_per_s, wait = cell.ttft_ms;
        td(row, speedLabel, [[speed === null ? rate(speed) : named(rate(speed), entry)]], speed);
        td(row, waitLabel, [[wait === null ? ms(wait) : named(ms(wait), entry)]], wait);
        var verdict = [[STATUS[cell.status] || cell.status]];
        if (level) {
          var reason = judge(cell, level);
          verdict.push([reason ? "misses " + level.name + ": " + reason : "meets " + level.name, reason ? "at miss" : "at meets"]);
        }
        td(row, "Status", verdict, undefined, "text");
      }
      if (level) {
        var best = entry ? capacity(cells, level) : null;
        if (best) {
          var held = best.concurrency / accelerators;
          td(row, "Capacity", [[users(held), "value"],
            [best.concurrency + (best.concurrency === 1 ? " request · " : " requests · ") + rate(best.total_tokens_per_s) +
             " tok/s · " + rate(best.total_tokens_per_s / accelerators) + " per accelerator", "at derived"]], held);
        } else {
          td(row, "Capacity", [[entry ? "none" : "—"]], null);
        }
      }
      if (priced) {
        var costs = [], sort = null;
        if (price !== null && cell && cell.status === "valid" && cell.total_tokens_per_s > 0) {
          sort = price * accelerators / (cell.total_tokens_per_s * 3600) * 1e6;
          costs.push([money(sort), "value"]);
        }
        if (price !== null && level) {
          var most = capacity(cells, level);
          if (most && most.total_tokens_per_s > 0) {
            if (sort === null) sort = price * accelerators / (most.total_tokens_per_s * 3600) * 1e6;
            costs.push([money(price * accelerators / (most.total_tokens_per_s * 3600) * 1e6) + " at capacity", "at derived"]);
          }
        }
        td(row, "USD per M tokens", costs.length ? costs : [["—"]], sort);
      }
    });
    status.textContent = found + " of " + table.tBodies[0].rows.length + " runs measured " + at +
      (concurrency === null ? " (capacity only: choose a number of requests for each run's cell)" : "") +
      (wanted !== Number(choice.context) ? " (nearest listed context to " + contextLabel(Number(choice.context)) + ")" : "") +
      ". Per-accelerator figures, service-level verdicts, capacity and cost are derived (rules: Capacity page)" +
      (entered !== null ? "; cost at your price of $" + entered + " per accelerator-hour." : ".");
  };

  // A row's run id, from its first link (runs/<id>/index.html, _macros.html runs_table).
  var runOf = function (row) {
    var link = row.cells[0] && row.cells[0].querySelector("a");
    var id = link && /(?:^|\/)runs\/([^/]+)\/(?:index\.html)?$/.exec(link.getAttribute("href"));
    return id ? decodeURIComponent(id[1]) : null;
  };

  // The choice shown, read again when the filters change the rows (site.js's sitegen:rows);
  // only the latest reading is drawn, whichever of the fetches ends last.
  var current = null, readings = 0;
  var apply = function (choice) {
    keep(choice);
    var reading = (readings += 1);
    current = null;
    var wanted = matchContext(contexts, Number(choice.context));
    var level = levelOf(choice);
    if (wanted === null) {
      clear();
      status.textContent = "No run here measured a context within ±3 % of " + choice.context + " tokens.";
      return;
    }
    if (!choice.concurrency && !level) {
      clear();
      status.textContent = "Choose a number of requests at once, a service level, or both.";
      return;
    }
    current = choice;
    // Built from the page's way back to the site root (site.js explains data-root), so the
    // picker works under any path.
    var base = (document.documentElement.getAttribute("data-root") || "") + "data/points/" + wanted;
    var load = function (url) {
      return fetch(url).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.url);
        return response.json();
      });
    };
    // The models of the rows shown, from their "all runs" links (models/<slug>/index.html); a
    // model page's rows have none (it would be the page itself): its model is in its address.
    var listed = {};
    var modelOf = function (href) { return /(?:^|\/)models\/([a-z0-9-]+)\/(?:index\.html)?$/.exec(href); };
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var link = row.cells[0] && row.cells[0].querySelector("a ~ a");  // "all runs"
      var slug = modelOf(link ? link.getAttribute("href") : window.location.pathname);
      if (slug) listed[slug[1]] = true;
    });
    status.textContent = "Loading…";
    load(base + ".json").then(function (present) {
      return Promise.all(present.models.filter(function (slug) { return listed[slug]; }).map(function (slug) {
        return load(base + "/" + slug + ".json");
      }));
    }).then(function (files) {
      if (reading === readings) render({ runs: merged(files) }, choice, wanted, level);
    }).catch(function (error) {
      // Browsers do not let a page opened from disk read other files with fetch().
      status.textContent = window.location.protocol === "file:"
        ? "Reading the runs at any point needs the site served over HTTP (for example `sitegen serve`); " +
          "the ready-made points above work from disk."
        : "Could not load the figures: " + error.message;
    });
  };

  form.hidden = false;
  field("level").addEventListener("change", showThresholds);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    apply(fromForm());
  });
  table.addEventListener("sitegen:rows", function () {
    if (current) apply(current); else clear();  // rows put back may still hold old point cells
  });
  document.getElementById("point-clear").addEventListener("click", function () {
    current = null;
    readings += 1;
    clear();
    keep(null);
    status.textContent = "";
    field("level").value = "";
    ["min_tps", "max_ttft", "price"].forEach(function (name) { field(name).value = ""; });
    showThresholds();
  });
  // With JavaScript a preset reads this page's own runs at its point, in place; without it,
  // the link opens the preset's static view.
  var presets = Array.prototype.slice.call(document.querySelectorAll(".presets a[data-point]"));
  var presetChoice = function (link) {
    var params = new URLSearchParams(link.getAttribute("data-point")), choice = {};
    KEYS.forEach(function (key) { choice[key] = params.get(key) || ""; });
    choice.price = field("price").value;
    return choice;
  };
  presets.forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      var choice = presetChoice(link);
      toForm(choice);
      apply(choice);
    });
  });
  var start = fromAddress();
  if (start.context && (start.concurrency || start.level || start.min_tps || start.max_ttft)) {
    toForm(start);
    apply(start);
  } else if (presets.length) {
    toForm(presetChoice(presets[0]));  // offered, not fetched
  }
})();
