// The reader's comparison view, /compare/?runs=a,b,c (2 to 6 runs; ?a=&b= still works).
// Every comparison on the site is this view: the ready-made ones (natural pairs) and the run
// pages' links come here with their runs in the address. It draws caveats, setups, ratios,
// curves, frontier and prefill from each run's JSON, with sitegen/site/draw/plots.py's rules
// for the small charts. Wording of facts, launch settings and caveats comes from
// /data/setups.json, written by sitegen/site/pages/compare.py, so the view and the run pages
// never disagree on them.
(function () {
  "use strict";

  var form = document.getElementById("compare-form");
  if (!form || !window.fetch) return;
  var result = document.getElementById("compare-result");
  var chosenList = document.getElementById("compare-chosen");
  var add = form.elements.add;
  var maxRuns = parseInt(form.getAttribute("data-max"), 10) || 6;
  var LETTERS = "ABCDEF";
  var PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#8c8c8c"];
  var STATUS = { valid: "Valid", requests_queued: "Requests queued", over_capacity: "Over capacity",
                 not_run: "Not run", failed: "Failed" };
  var MISSING = "—";

  // Numbers as sitegen/site/figures/numbers.py writes them: site.js, loaded first.
  var numbers = window.sitegenNumbers;
  var grouped = numbers.grouped, rate = numbers.rate, rateShort = numbers.rateShort, contextLabel = numbers.contextLabel;
  var ms = numbers.ms;
  var percent = function (change) {
    var exact = change * 100, rounded = Math.round(exact);
    if (Math.abs(exact % 1) === 0.5 && rounded % 2) rounded -= 1;  // Python's round: a tie to even
    if (rounded === 0) return "0%";  // never a signed zero
    return (rounded > 0 ? "+" : "−") + Math.abs(rounded) + "%";
  };
  window.sitegenCompare = { percent: percent };  // for tests/browser/test_browser_compare.py to hold against Python's round
  var median = function (values) {
    var sorted = values.slice().sort(function (x, y) { return x - y; });
    var middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };

  // Element makers, shared with the plot drawing (plots.js).
  var el = window.sitegenPlots.el, svgEl = window.sitegenPlots.svgEl;
  // A table's scrolling frame, a focusable region named by the element ``labelledBy``.
  var scrollRegion = function (labelledBy) {
    var scroll = el("div", undefined, "scroll");
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-labelledby", labelledBy);
    scroll.tabIndex = 0;
    return scroll;
  };
  var section = function (id, heading) {
    var node = el("section");
    node.setAttribute("aria-labelledby", id);
    var h = el("h2", heading);
    h.id = id;
    node.appendChild(h);
    return node;
  };
  var measured = function (cell) { return cell.status === "valid" || cell.status === "requests_queued"; };
  var hasPrefill = function (run) {
    return run.doc.measurements.prefill.some(function (p) { return p.prompt_tokens_per_s !== null && p.prompt_tokens_per_s !== undefined; });
  };

  // The small charts: templates/static/plots.js, loaded before this file.
  var plot = window.sitegenPlots.plot, plotGrid = window.sitegenPlots.plotGrid;
  var frontier = window.sitegenPlots.frontier;

  // --- the sections --------------------------------------------------------------------------------
  // A reader's own file has its command, but this view does not read its flags (ownfile.js).
  var noCommand = function (run) {
    return run.setup.unparsed ? "command not read here" : "no command";
  };
  var setupRows = function (runs, setups) {
    var rows = [];
    var push = function (label, values) {
      rows.push({ label: label, values: values, differs: values.some(function (v) { return v !== values[0]; }) });
    };
    setups.facts.forEach(function (label, i) { push(label, runs.map(function (r) { return r.setup.facts[i]; })); });
    setups.launch.forEach(function (pair) {
      if (!runs.some(function (r) { return r.setup.launch[pair[0]]; })) return;
      push("Launch: " + pair[1], runs.map(function (r) {
        return r.setup.command ? r.setup.launch[pair[0]] || "not set" : noCommand(r);
      }));
    });
    var keys = [];
    runs.forEach(function (r) { Object.keys(r.setup.settings).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
    keys.sort().forEach(function (key) {
      push("Setting: " + key, runs.map(function (r) { return key in r.setup.settings ? r.setup.settings[key] : MISSING; }));
    });
    if (runs.some(function (r) { return r.setup.command && r.setup.other_flags !== "none"; })) {
      push("Launch: other flags", runs.map(function (r) {
        return r.setup.command ? r.setup.other_flags : noCommand(r);
      }));
    }
    return rows;
  };

  var caveatsOf = function (runs, rows, setups) {
    var byLabel = {};
    rows.forEach(function (row) { byLabel[row.label] = row; });
    var list = [];
    setups.caveats.forEach(function (pair) {
      var row = byLabel[pair[0]];
      if (row && row.differs) {
        list.push(pair[1] + " (" + runs.map(function (r, i) { return r.letter + " " + row.values[i]; }).join("; ") + ")");
      }
    });
    var launch = rows.filter(function (row) { return row.differs && row.label.indexOf("Launch: ") === 0; })
                     .map(function (row) { return row.label.slice(8); });
    if (launch.length) list.push("Launch settings differ: " + launch.join(", ") + ". See the setup table.");
    return list;
  };

  var cellMap = function (run) {
    var map = {};
    run.doc.measurements.decode.forEach(function (c) {
      var key = c.context_tokens + "x" + c.concurrency;
      if (!(key in map)) map[key] = c;
    });
    return map;
  };

  // What legends call a run: its model's own name · accelerator
  // ×count · engine, from the setups' facts; a name another run of the view shares gets its id.
  var nameOf = function (run) {
    var facts = run.setup.facts;
    return facts[0].split("/").pop() + " · " + facts[1] + " ×" + facts[2] + " · " + facts[3];
  };
  var legendName = function (run) {
    var name = nameOf(run);
    var shared = shown.filter(function (other) { return nameOf(other) === name; }).length > 1;
    return shared ? name + " (" + run.id + ")" : name;
  };
  var shown = [];
  var ratioSection = function (base, other, perDevice, index) {
    var contexts = {}, levels = {};
    [base, other].forEach(function (run) {
      run.doc.measurements.decode.forEach(function (c) { contexts[c.context_tokens] = 1; levels[c.concurrency] = 1; });
    });
    var sorted = function (o) { return Object.keys(o).map(Number).sort(function (x, y) { return x - y; }); };
    var ctxList = sorted(contexts), levelList = sorted(levels);
    if (!ctxList.length) return null;
    var ca = cellMap(base), cb = cellMap(other);
    var divisor = function (run) { return perDevice ? run.setup.count : 1; };
    // Totals are compared only when the counts are equal; each then gets its per-accelerator figure.
    var shared = !perDevice && base.setup.count === other.setup.count ? base.setup.count : 1;
    var share = function (v) { return v === null ? MISSING : rate(v / shared); };
    var perDeviceLine = function (td, text) { if (shared > 1) td.appendChild(el("small", "per acc. " + text)); };
    // Both runs' figures, each after its letter: "A 105.5 · B 23.0".
    var both = function (x, y) { return base.letter + " " + x + " · " + other.letter + " " + y; };
    var value = function (cell, run) {
      return cell && measured(cell) && cell.total_tokens_per_s !== null && cell.total_tokens_per_s !== undefined
        ? cell.total_tokens_per_s / divisor(run) : null;
    };
    var state = function (cell, v) {
      if (!cell) return "not measured";
      var label = STATUS[cell.status] || cell.status;
      if (v === null) return label;
      return cell.status === "valid" ? rate(v) : label + " (" + rate(v) + ")";
    };
    var unit = perDevice ? "tok/s per accelerator" : "total tok/s";
    var node = section("ratio-h-" + index, "Sustained decode, " + other.letter + " against " + base.letter + ", " + unit);
    var summary = el("p");
    node.appendChild(summary);
    var wrap = scrollRegion("ratio-caption-" + index);
    var caption = el("p", "change in " + (perDevice ? "tok/s per accelerator (derived)" : "total tok/s") +
                     " · rows are context length, columns are simultaneous requests · each cell: the change, then each run's figure" +
                     (shared > 1 ? ", then per acc.: tok/s per accelerator (derived: total ÷ " + shared + ")" : ""), "table-caption");
    caption.id = "ratio-caption-" + index;
    wrap.appendChild(caption);
    var table = el("table", undefined, "rt");
    table.setAttribute("aria-labelledby", caption.id);
    var head = table.createTHead().insertRow();
    head.appendChild(el("th", "Context"));
    levelList.forEach(function (level) { head.appendChild(el("th", String(level))); });
    var body = table.createTBody();
    var changes = [];
    ctxList.forEach(function (ctx) {
      var row = body.insertRow();
      row.appendChild(el("th", contextLabel(ctx)));
      var last = null;
      levelList.forEach(function (level) {
        var cellA = ca[ctx + "x" + level], cellB = cb[ctx + "x" + level];
        var x = value(cellA, base), y = value(cellB, other);
        var td = el("td");
        // Only two valid cells are divided; any other pair shows both statuses. The cell's class
        // gives its arrow and colour (style.css's .rt): u2 = up, step 2; d1; e = level.
        if (cellA && cellB && cellA.status === "valid" && cellB.status === "valid" && x && y !== null) {
          var change = y / x - 1;
          changes.push(change);
          var size = Math.abs(change) < 0.03 ? 0 : Math.abs(change) < 0.15 ? 1 : Math.abs(change) < 0.40 ? 2 : 3;
          td.className = change >= 0.005 ? "u" + size : change <= -0.005 ? "d" + size : "e";
          td.appendChild(el("b", percent(change)));
          td.appendChild(document.createTextNode(both(rate(x), rate(y))));
          perDeviceLine(td, both(share(x), share(y)));
        } else {
          td.textContent = cellA || cellB ? both(state(cellA, x), state(cellB, y)) : MISSING;
          if (x !== null || y !== null) perDeviceLine(td, both(share(x), share(y)));
          // Neighbours that show the same statuses share one cell.
          if (last && !last.className && last.innerHTML === td.innerHTML) {
            last.colSpan += 1;
            return;
          }
        }
        row.appendChild(td);
        last = td;
      });
    });
    // Like with like: no change across models is summed up.
    var modelOf = function (run) { return run.doc.run.base_model || run.doc.run.model; };
    summary.textContent = modelOf(base).toLowerCase() !== modelOf(other).toLowerCase()
      ? other.letter + " and " + base.letter + " are runs of different models (" + modelOf(other) +
        ", " + modelOf(base) +
        "): each cell sets their figures side by side, and no change across models is summed up. " +
        "Compare runs of the same model to read a change."
      : changes.length
      ? other.letter + " is faster in " + changes.filter(function (c) { return c >= 0.005; }).length + " of " + changes.length +
        " cells both runs measured as valid; median change " + percent(median(changes)) + "."
      : "The two runs have no valid cell in common.";
    wrap.appendChild(table);
    node.appendChild(wrap);
    return node;
  };


  var prefillSection = function (runs) {
    var withPrefill = runs.filter(hasPrefill);
    if (!withPrefill.length) return null;
    var node = section("prefill-h", "Prefill");
    node.id = "prefill";
    var byContext = {}, peak = 0;
    withPrefill.forEach(function (run, i) {
      run.doc.measurements.prefill.forEach(function (p) {
        if (p.prompt_tokens_per_s === null || p.prompt_tokens_per_s === undefined) return;
        byContext[p.context_tokens] = byContext[p.context_tokens] || {};
        if (!(i in byContext[p.context_tokens])) byContext[p.context_tokens][i] = p;
        peak = Math.max(peak, p.prompt_tokens_per_s);
      });
    });
    // A table: a row per run at each context, the context's header spanning them; letter, bar (width class w<n>, colour c<place>), figure, TTFT.
    var figure = el("figure", undefined, "bars");
    var caption = el("figcaption", "prompt tok/s by context length");
    caption.id = "prefill-c";
    figure.appendChild(caption);
    var table = el("table", undefined, "pf");
    table.setAttribute("aria-labelledby", caption.id);
    var body = table.createTBody();
    // A bar's width in whole percent of the peak, at least 1, rounded half to even (bars.py _width).
    var width = function (value) {
      var share = value / peak * 100, whole = Math.round(share);
      if (Math.abs(share % 1) === 0.5 && whole % 2) whole -= 1;
      return Math.max(1, whole);
    };
    Object.keys(byContext).map(Number).sort(function (a, b) { return a - b; }).forEach(function (ctx) {
      withPrefill.forEach(function (run, i) {
        var point = byContext[ctx][i];
        var row = body.insertRow();
        if (i === 0) {
          var th = el("th", contextLabel(ctx) + " context");
          if (withPrefill.length > 1) th.rowSpan = withPrefill.length;
          row.appendChild(th);
        }
        row.appendChild(el("td", run.letter));
        var bar = row.appendChild(el("td"));
        bar.appendChild(el("i", undefined, "w" + (point ? width(point.prompt_tokens_per_s) : 0) + " c" + run.index % PALETTE.length));
        row.appendChild(el("td", point ? rateShort(point.prompt_tokens_per_s) : MISSING));
        var ttft = point && point.ttft_ms !== null && point.ttft_ms !== undefined ? ms(point.ttft_ms) + " TTFT" : "";
        row.appendChild(el("td", point ? ttft : "not measured"));
      });
    });
    figure.appendChild(table);
    node.appendChild(figure);
    return node;
  };

  // Open-loop load points two or more runs measured at one load and workload: the same rate,
  // arrival, burstiness and cap, with input lengths within 10 % of each other (the rule
  // sitegen/site/figures/history.py matches the runs of a setup by). Never decode cells.
  var LENGTH_TOLERANCE = 0.10;
  var loadWords = function (p) {
    var given = function (v) { return v !== null && v !== undefined; };
    var shape = given(p.burstiness) ? p.arrival + " " + p.burstiness : p.arrival;
    return p.request_rate + " req/s (" + shape + (given(p.max_concurrency) ? ", ≤" + p.max_concurrency + " at once" : "") + ")";
  };
  var loadSection = function (runs) {
    var rows = [];
    runs.forEach(function (run, i) {
      (run.doc.measurements.load_points || []).forEach(function (p) {
        var words = loadWords(p), length = p.input_tokens_per_request;
        var row = rows.filter(function (r) {
          return r.words === words && !(i in r.points) &&
            (!length || !r.length || Math.abs(length / r.length - 1) <= LENGTH_TOLERANCE);
        })[0];
        if (!row) { row = { words: words, rate: p.request_rate, length: length, points: {} }; rows.push(row); }
        row.points[i] = p;
      });
    });
    var shared = rows.filter(function (r) { return Object.keys(r.points).length >= 2; });
    if (!shared.length) return null;
    shared.sort(function (a, b) {
      return a.rate - b.rate || (a.length || 0) - (b.length || 0) || (a.words < b.words ? -1 : a.words > b.words ? 1 : 0);
    });
    var node = section("loads-h", "Load points");
    node.id = "loads";
    var caption = el("p", "Requests sent at a rate (open loop) that two or more runs measured at one load and workload " +
                          "(input lengths within 10 %) · each cell: total tok/s, its change against " + runs[0].letter +
                          " where both measured it, then TTFT (each run's own statistic)", "table-caption");
    caption.id = "loads-c";
    node.appendChild(caption);
    var scroll = scrollRegion("loads-c");
    var table = el("table", undefined, "data loads");
    var head = table.createTHead().insertRow();
    head.appendChild(el("th", "Load"));
    runs.forEach(function (r) { head.appendChild(el("th", r.letter)); });
    var body = table.createTBody();
    shared.forEach(function (row) {
      var tr = body.insertRow();
      tr.appendChild(el("th", row.words + (row.length ? ", " + grouped(row.length, 0) + " tokens in" : "")));
      var base = row.points[0];
      runs.forEach(function (run, i) {
        var p = row.points[i], td = el("td");
        if (!p) {
          td.textContent = MISSING;
        } else {
          td.appendChild(el("b", rate(p.total_tokens_per_s)));
          if (i > 0 && base && base.total_tokens_per_s && p.total_tokens_per_s !== null && p.total_tokens_per_s !== undefined) {
            td.appendChild(el("span", " " + percent(p.total_tokens_per_s / base.total_tokens_per_s - 1)));
          }
          td.appendChild(el("small", ms(p.ttft_ms) + " TTFT"));
        }
        tr.appendChild(td);
      });
    });
    scroll.appendChild(table);
    node.appendChild(scroll);
    return node;
  };

  var render = function (runs, setups) {
    result.textContent = "";
    var rows = setupRows(runs, setups);
    var counts = {};
    runs.forEach(function (r) { counts[r.setup.count] = 1; });
    var perDevice = Object.keys(counts).length > 1;
    var unit = perDevice ? "tok/s per accelerator" : "total tok/s";

    var caveats = caveatsOf(runs, rows, setups);
    if (caveats.length) {
      var box = section("caveats-h", "Before you compare");
      box.className = "caveats";
      var list = el("ul");
      caveats.forEach(function (text) { list.appendChild(el("li", text)); });
      box.appendChild(list);
      result.appendChild(box);
    }

    var facts = section("facts-h", "Setups");
    var scroll = scrollRegion("facts-h");
    var table = el("table", undefined, "data facts");
    var head = table.createTHead().insertRow();
    var corner = el("th");
    head.appendChild(corner);
    runs.forEach(function (r) { head.appendChild(el("th", r.letter)); });
    var body = table.createTBody();
    rows.forEach(function (row) {
      var tr = body.insertRow();
      if (row.differs) tr.className = "df";
      var th = el("th", row.label);
      if (row.differs) th.appendChild(el("i", " (differs)"));
      tr.appendChild(th);
      row.values.forEach(function (v) { tr.appendChild(el("td", v)); });
    });
    scroll.appendChild(table);
    facts.appendChild(scroll);
    facts.appendChild(el("p", "Rows where the setups differ are marked with a bar. Launch settings are read from each run's " +
                              "launch command; \"not set\" means the engine's default, which can differ between engines and versions.", "legend"));
    result.appendChild(facts);

    // Runs of open-loop load points only: nothing for the ratios, curves, frontier or prefill.
    var hasCells = function (run) { return (run.doc.measurements.decode || []).length > 0 || hasPrefill(run); };
    if (!runs.some(hasCells)) {
      result.appendChild(el("p", "None of these runs measured decode cells or prefill: they are compared at the load " +
                                 "points they share.", "legend"));
      result.appendChild(loadSection(runs) ||
        el("p", "No load point was measured by two of these runs at one load and workload.", "legend"));
      return;
    }

    runs.slice(1).forEach(function (other, i) {
      var node = ratioSection(runs[0], other, perDevice, i + 1);
      if (node) result.appendChild(node);
    });
    result.appendChild(el("p", "▲ higher than the baseline, ▼ lower, = within half a percent. Colour steps: under 3 %, under 15 %, " +
      "under 40 %, 40 % and more. Only two valid cells are divided; any other pair shows both statuses." +
      (perDevice ? " The runs use different numbers of accelerators, so every figure is per accelerator (total tok/s ÷ accelerators), a derived figure."
        : runs[0].setup.count > 1 ? " Per acc. is tok/s per accelerator (total tok/s ÷ accelerators), a derived figure." : ""),
      "legend"));

    // Decode curves at every context two or more runs measured.
    var curves = section("curves-h", "Decode curves");
    var seen = {};
    runs.forEach(function (run) {
      var mine = {};
      run.doc.measurements.decode.forEach(function (c) {
        if (measured(c) && c.total_tokens_per_s !== null && c.total_tokens_per_s !== undefined) mine[c.context_tokens] = 1;
      });
      Object.keys(mine).forEach(function (ctx) { seen[ctx] = (seen[ctx] || 0) + 1; });
    });
    var shared = Object.keys(seen).map(Number).filter(function (c) { return seen[c] >= 2; }).sort(function (a, b) { return a - b; });
    var alone = Object.keys(seen).map(Number).filter(function (c) { return seen[c] < 2; }).sort(function (a, b) { return a - b; });
    if (shared.length) {
      curves.appendChild(el("p", (perDevice ? "tok/s per accelerator (derived)" : "Total tok/s") +
                                 " by simultaneous requests, one chart per context length two or more runs measured.", "legend"));
      var figures = [];
      // One x axis for the grid: the request counts measured at any context (sections/curves.py's decode_plot).
      var levels = [];
      runs.forEach(function (run) {
        run.doc.measurements.decode.forEach(function (c) {
          if (measured(c) && c.total_tokens_per_s !== null && c.total_tokens_per_s !== undefined &&
              levels.indexOf(c.concurrency) < 0) levels.push(c.concurrency);
        });
      });
      shared.forEach(function (ctx) {
        var series = runs.map(function (run) {
          var divisor = perDevice ? run.setup.count : 1;
          var label = run.letter + ": " + legendName(run);
          var points = run.doc.measurements.decode.filter(function (c) {
            return c.context_tokens === ctx && measured(c) && c.total_tokens_per_s !== null && c.total_tokens_per_s !== undefined;
          }).map(function (c) {
            return [c.concurrency, c.total_tokens_per_s / divisor, c.concurrency + " → " +
                    rate(c.total_tokens_per_s / divisor) + (c.status === "valid" ? "" : " (" + STATUS[c.status].toLowerCase() + ")")];
          });
          // One hover title per run, as sections/curves.py's decode_plot writes it.
          return { label: label, index: run.index, runId: run.id, joined: null, points: points,
                   title: run.letter + ": " + points.map(function (p) { return p[2]; }).join(", ") };
        });
        var missing = series.filter(function (s) { return !s.points.length; }).map(function (s) { return s.label; });
        // A single point has no curve and may hide behind another run's point: say where it is.
        var single = series.filter(function (s) { return s.points.length === 1; }).map(function (s) {
          var level = s.points[0][0];
          return s.label + " (at " + grouped(level, 0) + (level === 1 ? " request)" : " requests)");
        });
        var notes = (missing.length ? ["Not measured at this context: " + missing.join(", ") + "."] : [])
          .concat(single.length ? ["One point only: " + single.join(", ") + "."] : []);
        var figure = plot(contextLabel(ctx) + " context", series, true, "simultaneous requests", unit,
                          notes.length ? notes.join(" ") : null, levels);
        if (figure) figures.push(figure);
      });
      plotGrid(figures).forEach(function (node) { curves.appendChild(node); });
    } else {
      curves.appendChild(el("p", "No context length was measured by two of these runs, so there is no curve to compare.", "legend"));
    }
    if (alone.length) {
      curves.appendChild(el("p", "Contexts only one run measured are in the matrices above, not drawn: " +
                                 alone.map(contextLabel).join(", ") + ".", "legend"));
    }
    result.appendChild(curves);

    // Throughput against interactivity: runs with per-request figures at two or more request counts.
    var pareto = section("pareto-h", "Throughput against interactivity");
    pareto.appendChild(el("p", "Each point is one valid cell; the lines join each run's frontier, the cells no other cell of that " +
                               "run beats on both axes. Throughput is per accelerator (total tok/s ÷ accelerators), a derived figure, so setups " +
                               "of any size read on one scale.", "legend"));
    var leftOut = [];
    var paretoSeries = [];
    runs.forEach(function (run) {
      var label = run.letter + ": " + legendName(run);
      var cells = run.doc.measurements.decode.filter(function (c) {
        return c.status === "valid" && c.total_tokens_per_s !== null && c.total_tokens_per_s !== undefined &&
               c.per_request_tokens_per_s !== null && c.per_request_tokens_per_s !== undefined;
      });
      var levels = {};
      cells.forEach(function (c) { levels[c.concurrency] = 1; });
      var levelKeys = Object.keys(levels);
      if (levelKeys.length < 2) {
        var where = levelKeys.length ? "only at " + levelKeys[0] + (levelKeys[0] === "1" ? " request" : " requests") : "none";
        leftOut.push(label + " (per-request tok/s: " + where + ")");
        return;
      }
      var divisor = run.setup.count;  // the frontier is always per accelerator
      var points = cells.map(function (c) {
        var y = c.total_tokens_per_s / divisor;
        return [c.per_request_tokens_per_s, y, contextLabel(c.context_tokens) + " × " + c.concurrency +
                " → " + rate(c.per_request_tokens_per_s) + " per request, " + rate(y)];
      });
      var joined = frontier(points);
      // The hover title lists the frontier's cells (the view has no figures table beside it).
      var words = {};
      points.forEach(function (p) { words[p[0] + " " + p[1]] = p[2]; });
      var title = run.letter + ", frontier: " + joined.slice().sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; })
        .map(function (p) { return words[p[0] + " " + p[1]]; }).join("; ") +
        " (" + grouped(points.length, 0) + (points.length === 1 ? " cell" : " cells") + " in all: see the run's page)";
      paretoSeries.push({ label: label, index: run.index, runId: run.id, points: points, joined: joined, title: title });
    });
    var note = leftOut.length ? "Left out, for lack of per-request figures at two or more request counts: " + leftOut.join("; ") + "." : null;
    // The x axis names the statistic of the per-request figures: the runs' one, or each run's.
    var kinds = runs.map(function (run) {
      var kind = run.doc.run.latency_statistic;
      return [run.letter, kind === "mean" || kind === "median" ? kind : "as reported"];
    });
    var alike = kinds.every(function (k) { return k[1] === kinds[0][1]; });
    var speedTitle = "per-request tok/s (" + (alike ? kinds[0][1]
      : kinds.map(function (k) { return k[0] + " " + k[1]; }).join(", ")) + ")";
    var frontierPlot = plot("Throughput against interactivity", paretoSeries, false, speedTitle,
                            "tok/s per accelerator", note);
    if (frontierPlot) pareto.appendChild(frontierPlot);
    else if (note) pareto.appendChild(el("p", note, "legend"));
    result.appendChild(pareto);

    var prefill = prefillSection(runs);
    if (prefill) result.appendChild(prefill);
    var without = runs.filter(function (r) { return !hasPrefill(r); }).map(function (r) { return r.letter; });
    if (without.length) result.appendChild(el("p", "No prefill figures: " + without.join(", ") + ".", "legend"));
    var loads = loadSection(runs);
    if (loads) result.appendChild(loads);
  };

  // --- picking runs, kept in the address --------------------------------------------------------
  // Each run's result file is runs/<id>.json under the site root the page names (site.js).
  var root = document.documentElement.getAttribute("data-root") || "";
  var known = {};
  // A reader's own file (ownfile.js): a run of this view under a name no published run can have
  // (ids are lower-case), never put in the address, never sent anywhere.
  var OWN = "Your file";
  var own = null;
  Array.prototype.forEach.call(add.options, function (option) {
    if (option.value) known[option.value] = { result: root + "runs/" + encodeURIComponent(option.value) + ".json", label: option.textContent };
  });
  var query = new URLSearchParams(window.location.search);
  var asked = (query.get("runs") || [query.get("a"), query.get("b")].filter(Boolean).join(",")).split(",")
    .filter(function (id, i, all) { return id && all.indexOf(id) === i; });
  var unknown = asked.filter(function (id) { return !known[id]; });
  var chosen = asked.filter(function (id) { return known[id]; });
  var dropped = chosen.slice(maxRuns);
  chosen = chosen.slice(0, maxRuns);
  // Said once, above the comparison: what the address asked for that cannot be shown.
  var warning = el("p", undefined, "legend");
  warning.id = "compare-warning";
  warning.textContent = (unknown.length ? "No such run on this site: " + unknown.join(", ") + ". " : "") +
    (dropped.length ? "At most " + maxRuns + " runs at once; left out: " + dropped.join(", ") + "." : "");
  if (warning.textContent) form.parentNode.insertBefore(warning, result);
  // A run's colour: its place on its model's page (setups.json "colour") where no run before
  // it in the view has it, else the next free one (sitegen/site/figures/run_colours.py chart_places).
  var colourPlace = function (preferred, taken) {
    var place = (preferred || 0) % PALETTE.length;
    if (taken.length < PALETTE.length) {
      while (taken.indexOf(place) >= 0) place = (place + 1) % PALETTE.length;
    }
    taken.push(place);
    return place;
  };

  var setupsPromise = null;
  var loadSetups = function () {
    if (!setupsPromise) {
      setupsPromise = fetch(form.getAttribute("data-setups")).then(function (r) {
        if (!r.ok) throw new Error(r.status + " " + r.url);
        return r.json();
      });
    }
    return setupsPromise;
  };
  var cache = {};
  var loadRun = function (id) {
    if (id === OWN) return Promise.resolve(own.doc);
    if (!cache[id]) {
      cache[id] = fetch(known[id].result).then(function (r) {
        if (!r.ok) throw new Error(r.status + " " + r.url);
        return r.json();
      }).then(window.sitegenRunJson.resultDocument);  // its measurements as records (site.js)
    }
    return cache[id];
  };
  var button = function (text, label, action) {
    var b = el("button", text, "button");
    b.type = "button";
    b.setAttribute("aria-label", label);
    b.addEventListener("click", action);
    return b;
  };
  var drawList = function () {
    chosenList.textContent = "";
    chosen.forEach(function (id, i) {
      var item = el("li");
      item.appendChild(el("span", LETTERS[i], "tag tag-" + LETTERS[i].toLowerCase()));
      item.appendChild(document.createTextNode(" " + id + (i === 0 ? " (baseline)" : "") + " "));
      if (i > 0) item.appendChild(button("Make baseline", "Make baseline: " + id, function () {
        chosen.splice(i, 1);
        chosen.unshift(id);
        update();
      }));
      item.appendChild(button("Remove", "Remove: " + id, function () {
        chosen.splice(i, 1);
        update();
      }));
      chosenList.appendChild(item);
    });
    add.disabled = chosen.length >= maxRuns;
  };
  var update = function () {
    var addressed = chosen.filter(function (id) { return id !== OWN; });
    var address = addressed.length ? "?runs=" + addressed.join(",") : window.location.pathname;
    history.replaceState(null, "", address);
    drawList();
    if (chosen.length < 2) {
      result.textContent = "";
      result.appendChild(el("p", "Pick at least two runs.", "legend"));
      return;
    }
    var ids = chosen.slice();
    Promise.all([loadSetups()].concat(ids.map(loadRun))).then(function (loaded) {
      if (ids.join(",") !== chosen.join(",")) return;  // the choice changed while loading
      var setups = loaded[0];
      var taken = [];
      var runs = ids.map(function (id, i) {
        var setup = id === OWN ? window.sitegenOwnFile.setup(own.doc, setups) : setups.runs[id];
        return { id: id === OWN ? OWN + " (" + own.name + ")" : id, letter: LETTERS[i],
                 index: colourPlace(setup.colour, taken), doc: loaded[i + 1], setup: setup };
      });
      shown = runs;
      render(runs, setups);
    }).catch(function (error) {
      // Browsers do not let a page opened from disk read other files with fetch().
      result.textContent = window.location.protocol === "file:"
        ? "Comparing runs here needs the site served over HTTP (for example `sitegen serve`); the " +
          "ready-made comparisons below work from disk."
        : "Could not load the runs: " + error.message;
    });
  };
  add.addEventListener("change", function () {
    if (add.value && chosen.indexOf(add.value) < 0 && chosen.length < maxRuns) chosen.push(add.value);
    add.value = "";
    update();
  });
  // --- the reader's own file: parsed and checked here, by ownfile.js, loaded on the first file --
  var ownInput = document.getElementById("own-file");
  var ownProblems = document.getElementById("own-problems");
  var ownScript = null;
  var loadOwnFile = function () {
    if (!ownScript) {
      ownScript = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = form.getAttribute("data-ownfile");
        script.onload = resolve;
        script.onerror = function () { reject(new Error("could not load " + script.src)); };
        document.head.appendChild(script);
      });
    }
    return ownScript;
  };
  var showProblems = function (problems) {
    ownProblems.textContent = "";
    problems.forEach(function (text) { ownProblems.appendChild(el("li", text)); });
    ownProblems.hidden = !problems.length;
  };
  if (ownInput) {
    document.getElementById("own-note").hidden = false;
    ownInput.addEventListener("change", function () {
      var file = ownInput.files && ownInput.files[0];
      if (!file) return;
      var assets = { yaml: form.getAttribute("data-yaml") };
      Promise.all([file.text(), loadOwnFile()]).then(function (loaded) {
        var schemas = form.getAttribute("data-schemas").replace(/result\.schema\.json$/, "");
        return window.sitegenOwnFile.read(loaded[0], file.name, assets, schemas);
      }).then(function (outcome) {
        showProblems(outcome.problems);
        if (!outcome.doc) return;
        own = { doc: outcome.doc, name: file.name };
        var at = chosen.indexOf(OWN);
        if (at < 0 && chosen.length >= maxRuns) chosen.pop();
        if (at < 0) chosen.push(OWN);
        update();
      }).catch(function (error) { showProblems([file.name + ": " + error.message]); });
    });
  }
  form.hidden = false;
  update();
})();
