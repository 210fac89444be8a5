// The operating-point picker of the index and the group pages: each run's cell at a chosen
// context × requests, its verdict and capacity at a service level (or for the reader's number
// of users) and its cost at a price per accelerator, added to the runs table.
// Progressive enhancement: without JavaScript the presets link to static views (at/<name>/).
// Nothing is fetched until a reader picks a point or arrives with one in the address; then
// data/points/<context>.json names the models measured there, and data/points/<context>/<model>.json
// holds every cell at that context of that model's runs: one file per model the table lists.
// The rules mirror sitegen/site/figures/capacity.py and are documented in docs/capacity.md.
(function () {
  "use strict";
  var form = document.getElementById("point-form");
  var table = document.querySelector("table.runs");
  var status = document.getElementById("point-status");
  var TOLERANCE = 0.03;  // capacity.CONTEXT_TOLERANCE
  var KEYS = ["context", "concurrency", "level", "min_tps", "max_ttft", "users"];
  var STATUS = { valid: "Valid", requests_queued: "Requests queued", over_capacity: "Over capacity",
                 not_run: "Not run", failed: "Failed" };
  var field = function (name) { return form.elements[name]; };

  // --- numbers, as sitegen/site/figures/numbers.py writes them: site.js, loaded first ---------------
  var numbers = window.sitegenNumbers;
  var grouped = numbers.grouped, fixed = numbers.fixed, rate = numbers.rate, ms = numbers.ms;
  var contextLabel = numbers.contextLabel;
  // capacity_page: users per accelerator, a whole number as it is, else one decimal.
  var users_ = function (v) { return v % 1 ? grouped(fixed(v, 1), 1) : String(v); };
  var money = function (usd) { return "$" + (usd >= 0.1 ? grouped(fixed(usd, 2), 2) : fixed(usd, 4).toFixed(4)); };
  // The figures as the picker writes them, for tests/browser/test_browser_capacity.py to hold against
  // Python's format.
  window.sitegenPoint = { rate: rate, ms: ms, users: users_, money: money };
  var number = function (text) {
    if (text === null || text === "") return null;
    var value = Number(text);
    return isFinite(value) && value > 0 ? value : null;
  };

  // --- the rules (sitegen/site/figures/capacity.py: judge, capacity, answer_for_users) --------------
  // The run's context standing for the wanted one: the nearest within the tolerance, else none.
  var matchContext = function (list, wanted) {
    var best = null;
    list.forEach(function (c) {
      if (Math.abs(c - wanted) <= TOLERANCE * wanted &&
          (best === null || Math.abs(c - wanted) < Math.abs(best - wanted) ||
           (Math.abs(c - wanted) === Math.abs(best - wanted) && c < best))) best = c;
    });
    return best;
  };
  var mirrored = function (p) { return "p" + String(+(100 - Number(p.slice(1))).toFixed(2)); };
  var figure = function (cell, name, percentile) {
    var value;
    if (!percentile) value = cell[name];
    else {
      var stats = cell.statistics && cell.statistics[name];
      value = stats ? stats[name === "per_request_tokens_per_s" ? mirrored(percentile) : percentile] : null;
    }
    return typeof value === "number" && isFinite(value) ? value : null;
  };
  // Per-request tok/s as reported (at a percentile, its slow tail), else 1000 ÷ the time
  // between tokens (at that percentile), else none.
  var speedOf = function (cell, percentile) {
    var reported = figure(cell, "per_request_tokens_per_s", percentile);
    if (reported !== null) return { value: reported, source: "reported" };
    var gap = figure(cell, "time_between_tokens_ms", percentile);
    if (gap !== null && gap > 0) return { value: 1000 / gap, source: "time_between_tokens" };
    return { value: null, source: null };
  };
  var TTFT_WORDS = { warm: "warm TTFT (prompt cached)", cold: "cold TTFT",
                     unknown: "TTFT, prompt cache not stated",
                     cold_estimate: "cold TTFT estimate: at least the measured prefill time" };
  // Which TTFT a level judges for a run: as measured, or for a cold level a cold estimate
  // unless the run's TTFT is known to be cold. timing: {cache, prefill} of the run.
  var ttftJudged = function (level, timing) {
    if (level.cold && timing.cache !== "cold") return "cold_estimate";
    return timing.cache || "unknown";
  };
  // A cell's verdict: meets, misses (a figure outside its limit decides) or cannot_tell (a
  // figure the level limits is missing), with the reason, the speed's source and the TTFT judged.
  var judge = function (cell, level, timing) {
    var at = level.percentile ? " (" + level.percentile + ")" : "";
    var speed = speedOf(cell, level.percentile), kind = ttftJudged(level, timing);
    var verdict = function (state, reason) {
      return { state: state, reason: reason, source: speed.source, ttft: kind };
    };
    if (cell.status === "not_run") return verdict("cannot_tell", "not run");
    if (cell.status !== "valid") return verdict("misses", "not a valid measurement");
    var misses = [], missing = [];
    if (level.min !== null) {
      if (speed.value === null) {
        missing.push("no per-request tok/s" + at + " nor time between tokens" + at);
      } else if (speed.value < level.min) {
        misses.push("per-request tok/s" + at + " below " + level.min);
      }
    }
    if (level.ttft !== null) {
      var ttft = figure(cell, "ttft_ms", level.percentile);
      if (ttft === null) missing.push("no TTFT" + at);
      else if (ttft > level.ttft) misses.push("TTFT" + at + " above " + level.ttft + " ms");
      if (kind === "cold_estimate") {
        if (timing.prefill === null) {
          missing.push("no prefill time at this context for a cold TTFT");
        } else if (timing.prefill > level.ttft) {
          misses.push("cold TTFT (at least the prefill time) above " + level.ttft + " ms");
        }
      }
    }
    if (level.tbt !== null) {
      var gap = figure(cell, "time_between_tokens_ms", level.percentile);
      if (gap === null) missing.push("no time between tokens" + at);
      else if (gap > level.tbt) {
        misses.push("time between tokens" + at + " above " + level.tbt + " ms");
      }
    }
    if (misses.length) return verdict("misses", misses.join("; "));
    if (missing.length) return verdict("cannot_tell", missing.join("; "));
    return verdict("meets", "");
  };
  // The largest measured concurrency meeting the level with every smaller one meeting it too;
  // its state (meets, none_meets, cannot_tell) and where and why the ladder stopped.
  var capacity = function (cells, level, timing) {
    var best = null, held = null, stop = null;
    for (var i = 0; i < cells.length; i += 1) {
      var verdict = judge(cells[i], level, timing);
      if (verdict.state !== "meets") { stop = { cell: cells[i], verdict: verdict }; break; }
      best = cells[i];
      held = verdict;
    }
    var found = { best: best, measured: cells.map(function (c) { return c.concurrency; }),
                  stoppedAt: stop ? stop.cell.concurrency : null,
                  stoppedState: stop ? stop.verdict.state : null,
                  reason: stop ? stop.verdict.reason : "" };
    var resting = held || (stop && stop.verdict);
    var none = stop && stop.verdict.state === "misses";
    found.state = best ? "meets" : none ? "none_meets" : "cannot_tell";
    found.source = resting ? resting.source : null;
    found.ttft = resting ? resting.ttft : ttftJudged(level, timing);
    return found;
  };
  // "Does it hold N users?": meets at the smallest measured concurrency ≥ users, fails or
  // cannot tell where the ladder stopped at or below it, or not measured that high.
  var answerForUsers = function (found, users) {
    var rung = null;
    found.measured.forEach(function (n) { if (rung === null && n >= users) rung = n; });
    if (found.stoppedAt !== null && (rung === null || found.stoppedAt <= rung)) {
      var state = found.stoppedState === "cannot_tell" ? "cannot_tell" : "fails";
      return { state: state, concurrency: found.stoppedAt };
    }
    if (rung === null) return { state: "not_measured", concurrency: null };
    return { state: "meets", concurrency: rung };
  };
  var cost = function (usdPerHour, accelerators, total) {
    return total !== null && total > 0 ? usdPerHour * accelerators / (total * 3600) * 1e6 : null;
  };

  // --- reading and keeping the choice ------------------------------------------------------
  // A price per accelerator (price.<accelerator, lower-cased>), one field each; the address's
  // old price= (one price for every accelerator) is still read, and the status says so.
  var priceFields = form
    ? Array.prototype.slice.call(form.querySelectorAll("input[data-accelerator]")) : [];
  var levelOf = function (choice) {
    if (choice.level && choice.level !== "custom") {
      var option = field("level").querySelector("option[value='" + CSS.escape(choice.level) + "']");
      if (!option) return null;
      return { name: choice.level, min: number(option.getAttribute("data-min")),
               ttft: number(option.getAttribute("data-ttft")), tbt: number(option.getAttribute("data-tbt")),
               percentile: option.getAttribute("data-percentile"),
               cold: option.getAttribute("data-ttft-kind") === "cold" };
    }
    var min = number(choice.min_tps), ttft = number(choice.max_ttft);
    if (min === null && ttft === null) return null;
    return { name: "your level", min: min, ttft: ttft, tbt: null, percentile: null, cold: false };
  };
  var fromAddress = function () {
    var params = new URLSearchParams(window.location.search), choice = { prices: {} };
    KEYS.forEach(function (key) { choice[key] = params.get(key) || ""; });
    if (!choice.level && (choice.min_tps || choice.max_ttft)) choice.level = "custom";
    var all = params.get("price");
    priceFields.forEach(function (input) {
      var key = input.getAttribute("data-accelerator");
      var value = params.get("price." + key) || (all && number(all) !== null ? all : "");
      if (value) choice.prices[key] = value;
    });
    choice.allPrice = all && number(all) !== null ? all : "";
    return choice;
  };
  var fromForm = function () {
    var choice = { prices: {}, allPrice: "" };
    KEYS.forEach(function (key) { choice[key] = field(key).value; });
    if (choice.level !== "custom") { choice.min_tps = ""; choice.max_ttft = ""; }
    priceFields.forEach(function (input) {
      if (input.value) choice.prices[input.getAttribute("data-accelerator")] = input.value;
    });
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
    field("users").value = choice.users;
    priceFields.forEach(function (input) {
      input.value = choice.prices[input.getAttribute("data-accelerator")] || "";
    });
    showThresholds();
  };
  var keep = function (choice) {
    var params = new URLSearchParams(window.location.search);
    KEYS.forEach(function (key) {
      if (choice && choice[key]) params.set(key, choice[key]); else params.delete(key);
    });
    params.delete("price");  // read once (fromAddress), kept as a price per accelerator
    priceFields.forEach(function (input) {
      var key = input.getAttribute("data-accelerator");
      if (choice && choice.prices[key]) params.set("price." + key, choice.prices[key]);
      else params.delete("price." + key);
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

  // Each run of the model files, its cells as objects: the file's ladder gives each position's
  // concurrency, its columns the figures (absent at the end: null), statuses the status; with
  // what its verdicts need of the run (timing: how its TTFT was measured, its prefill time here).
  var merged = function (files) {
    var runs = {};
    files.forEach(function (file) {
      file.runs.forEach(function (values) {
        var entry = {};
        file.fields.forEach(function (name, i) {
          entry[name] = values[i] === undefined ? null : values[i];
        });
        entry.price_usd_per_hour = file.prices && file.prices[entry.run] !== undefined ? file.prices[entry.run] : null;
        entry.timing = { cache: entry.ttft_prompt_cache, prefill: entry.prefill_ms };
        // The statistic of its latency figures (mean or median), where its file says.
        entry.statistic = entry.latency_statistic || "as reported";
        entry.cells = entry.cells.map(function (figures, i) {
          if (!figures) return null;
          var cell = { concurrency: file.concurrency[i], context_tokens: entry.context_tokens };
          file.columns.forEach(function (name, j) {
            cell[name] = j < figures.length ? figures[j] : null;
          });
          cell.status = file.statuses[cell.status];
          return cell;
        }).filter(function (cell) { return cell !== null; });
        runs[entry.run] = entry;
      });
    });
    return runs;
  };
  // The rules as the page applies them, for tests/browser/test_browser_verdicts.py to hold against the
  // build.
  window.sitegenPoint.rules = { judge: judge, capacity: capacity, answerForUsers: answerForUsers,
                                merged: merged, levelOf: levelOf };
  // The one copy of the rules in the browser: /capacity/'s question (capacity.js) loads this
  // file for them, and has no picker, so the picker's part ends here there.
  window.sitegenRules = { matchContext: matchContext, judge: judge, capacity: capacity,
                          answerForUsers: answerForUsers, merged: merged, cost: cost,
                          ttftWords: TTFT_WORDS };
  if (!form || !table || !window.fetch || !window.URLSearchParams) return;
  var contexts = Array.prototype.map.call(field("context").options, function (o) {
    return Number(o.value);
  });

  var plural = function (n) { return n + (n === 1 ? " request" : " requests"); };
  // The labels of a verdict: where its speed came from (when not reported), which TTFT it judged.
  var labelsOf = function (verdict) {
    var gaps = verdict.source === "time_between_tokens" ? "speed from time between tokens · " : "";
    return gaps + TTFT_WORDS[verdict.ttft];
  };
  // A capacity, or the answer for the reader's users, as a cell's parts ([text, class]).
  var capacityParts = function (found, accelerators, users) {
    var labels = [labelsOf(found), "at derived"];
    if (users) {
      var answer = answerForUsers(found, users);
      if (answer.state === "meets") {
        return [["meets at " + plural(answer.concurrency), "value"],
                [users + " users: every measured load up to " + answer.concurrency + " meets it",
                 "at derived"], labels];
      }
      if (answer.state === "not_measured") {
        return [["not measured that high", "value"],
                ["all measured loads meet it, up to " +
                 plural(found.measured[found.measured.length - 1]), "at"], labels];
      }
      var said = answer.state === "fails" ? "does not meet at " : "cannot tell at ";
      var below = answer.concurrency < users ? " (below " + users + " users)" : "";
      return [[said + plural(answer.concurrency), "value"], [found.reason + below, "at"], labels];
    }
    if (found.best) {
      var held = found.best.concurrency / accelerators;
      return [[users_(held), "value"],
        [plural(found.best.concurrency) + " · " + rate(found.best.total_tokens_per_s) +
         " tok/s · " + rate(found.best.total_tokens_per_s / accelerators) + " per accelerator",
         "at derived"], labels];
    }
    if (found.state === "none_meets") {
      return [["does not meet", "value"],
              ["even at " + plural(found.measured[0]) + ": " + found.reason, "at"], labels];
    }
    return [["cannot tell", "value"], [found.reason, "at"], labels];
  };

  var render = function (data, choice, wanted, level) {
    clear();
    table.classList.add("at-point");
    // Without a number of requests only the capacity (and its cost) is read: it needs none.
    var concurrency = choice.concurrency ? Number(choice.concurrency) : null;
    var users = choice.users && Number(choice.users) >= 1 ? Math.floor(Number(choice.users)) : null;
    var at = contextLabel(wanted) + (concurrency === null ? "" : " × " + concurrency);
    // Each run's price: the reader's for its accelerator, else the configured one; never one
    // for all.
    var priceOf = function (entry) {
      var entered = entry ? number(choice.prices[String(entry.accelerator).toLowerCase()]) : null;
      if (entered !== null) return { usd: entered, said: "your price for " + entry.accelerator };
      return entry && entry.price_usd_per_hour !== null
        ? { usd: entry.price_usd_per_hour, said: "configured price for " + entry.accelerator }
        : null;
    };
    var priced = Object.keys(data.runs).some(function (id) {
      return priceOf(data.runs[id]) !== null;
    });
    // The statistic is named in the header when the rows share one, else beside each figure.
    var kinds = {};
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var entry = data.runs[runOf(row)];
      if (entry) kinds[entry.statistic] = true;
    });
    var shared = Object.keys(kinds).length === 1 ? Object.keys(kinds)[0] : null;
    var named = function (text, entry) {
      return shared || !entry ? text : text + " (" + entry.statistic + ")";
    };
    var speedLabel = "Per request tok/s (" + (shared || "each run's statistic") + ")";
    var waitLabel = "TTFT (" + (shared || "each run's statistic") + ")";
    if (concurrency !== null) {
      header("Total tok/s at " + at);
      header(speedLabel);
      header(waitLabel);
      header("Status", undefined, "text");
    }
    if (level) {
      var where = contextLabel(wanted) + ", " + level.name;
      header(users ? "At " + users + " users, " + where + " (derived)"
                   : "Capacity at " + where + ": users per accelerator (derived)");
    }
    if (priced && (concurrency !== null || level)) {
      header("USD per million output tokens at " + (concurrency === null ? "capacity, " : "") + at +
             " (derived)");
    } else priced = false;
    var found = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var entry = data.runs[runOf(row)];
      var cells = entry ? entry.cells : [];
      var cell = cells.filter(function (c) { return c.concurrency === concurrency; })[0];
      var accelerators = entry ? entry.accelerators : 1;
      var price = priceOf(entry);
      if (concurrency === null) {
        if (entry) found += 1;
      } else if (!cell) {
        td(row, "At " + at, [["not measured", "absent"]], null);
        td(row, speedLabel, [["not measured"]], null);
        td(row, waitLabel, [["not measured"]], null);
        td(row, "Status", [["not measured"]], null, "text");
      } else {
        found += 1;
        var measured = cell.status === "valid" || cell.status === "requests_queued";
        var total = measured ? cell.total_tokens_per_s : null;
        var parts = [[rate(total), "value"]];
        if (total !== null && accelerators > 1) parts.push([rate(total / accelerators) + " per accelerator", "at derived"]);
        if (entry.context_tokens !== wanted) parts.push(["run's context " + contextLabel(entry.context_tokens), "at"]);
        td(row, "At " + at, parts, total);
        var speed = speedOf(cell, null);
        var fromGaps = speed.source === "time_between_tokens"
          ? [["from time between tokens", "at derived"]] : [];
        td(row, speedLabel,
           [[speed.value === null ? rate(null) : named(rate(speed.value), entry)]].concat(fromGaps),
           speed.value);
        td(row, waitLabel, [[cell.ttft_ms === null ? ms(null) : named(ms(cell.ttft_ms), entry)]],
           cell.ttft_ms);
        var verdict = [[STATUS[cell.status] || cell.status]];
        if (level) {
          var judged = judge(cell, level, entry.timing);
          var head = judged.state === "meets" ? "meets "
            : judged.state === "misses" ? "does not meet " : "cannot tell, ";
          verdict.push([head + level.name + (judged.reason ? ": " + judged.reason : ""),
                        judged.state === "meets" ? "at meets" : "at miss"]);
          verdict.push([labelsOf(judged), "at derived"]);
        }
        td(row, "Status", verdict, undefined, "text");
      }
      if (level) {
        if (entry) {
          var held = capacity(cells, level, entry.timing);
          td(row, "Capacity", capacityParts(held, accelerators, users),
             held.best ? held.best.concurrency / accelerators : null);
        } else {
          td(row, "Capacity", [["not measured at " + contextLabel(wanted)]], null);
        }
      }
      if (priced) {
        var costs = [], sort = null;
        if (price === null) {
          costs.push([entry ? "no price for " + entry.accelerator : "not measured", "at"]);
        }
        var here = price && cell && cell.status === "valid"
          ? cost(price.usd, accelerators, cell.total_tokens_per_s) : null;
        if (here !== null) {
          sort = here;
          costs.push([money(here), "value"]);
        }
        if (price && level && entry) {
          var most = capacity(cells, level, entry.timing).best;
          var there = most ? cost(price.usd, accelerators, most.total_tokens_per_s) : null;
          if (there !== null) {
            if (sort === null) sort = there;
            costs.push([money(there) + " at capacity", "at derived"]);
          }
        }
        if (price && costs.length) {
          costs.push(["at $" + price.usd + " per accelerator-hour (" + price.said + ")", "at"]);
        }
        td(row, "USD per M tokens", costs.length ? costs : [["no cost: no valid total here", "at"]],
           sort);
      }
    });
    status.textContent = found + " of " + table.tBodies[0].rows.length + " runs measured " + at +
      (concurrency === null
        ? " (capacity only: choose a number of requests for each run's cell)" : "") +
      (wanted !== Number(choice.context) ? " (nearest listed context to " + contextLabel(Number(choice.context)) + ")" : "") +
      ". Per-accelerator figures, service-level verdicts, capacity and cost are derived (rules: Capacity page)." +
      (choice.allPrice ? " The address's price=" + choice.allPrice + " (one price for every " +
        "accelerator) is deprecated: it was read as each accelerator's price; the address now " +
        "keeps a price per accelerator." : "");
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
    ["min_tps", "max_ttft", "users"].forEach(function (name) { field(name).value = ""; });
    priceFields.forEach(function (input) { input.value = ""; });
    showThresholds();
  });
  // With JavaScript a preset reads this page's own runs at its point, in place; without it,
  // the link opens the preset's static view.
  var presets = Array.prototype.slice.call(document.querySelectorAll(".presets a[data-point]"));
  var presetChoice = function (link) {
    var params = new URLSearchParams(link.getAttribute("data-point")), choice = {};
    KEYS.forEach(function (key) { choice[key] = params.get(key) || ""; });
    var kept = fromForm();
    choice.users = kept.users;
    choice.prices = kept.prices;
    choice.allPrice = "";
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
