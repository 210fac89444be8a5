// The run page's own tables and files (templates/pages/run.html), loaded by run pages only so
// that no other page carries them: citable figures, the run's CSV, and the "All measurements",
// tails and power tables, made from the run JSON. Needs site.js (loaded before it) for
// window.sitegenNumbers and window.sitegenRunJson.
(function () {
  "use strict";
  var resultDocument = window.sitegenRunJson.resultDocument;

  // --- cite a figure (receipt_page.py, templates/_receipt.html) --------------------------------
  // Every matrix cell and measurement row has an id that is part of the permalink. Clicking one
  // gives a citation (the figure, its cell, the statistic, the run's date and the address with
  // that id) to copy; without JavaScript the address with the id is the citation.
  var reproduce = document.getElementById("reproduce");
  var citeText = function (target) {
    var heading = (document.querySelector("h1") || {}).textContent || document.title;
    var address = location.href.split("#")[0] + "#" + target.id;
    var statistic = reproduce.getAttribute("data-statistic");
    var date = reproduce.getAttribute("data-date");
    var where, figure;
    if (target.tagName === "TD") {
      var row = target.parentNode, table = row.closest("table");
      var column = Array.prototype.indexOf.call(row.children, target);
      var requests = table.querySelector("thead tr").children[column].textContent;
      var total = target.querySelector("b"), status = target.querySelector("i");
      where = row.firstElementChild.textContent + " context × " + requests +
        " simultaneous requests";
      figure = (total ? total.textContent + " tok/s total" : "no figure") +
        (status ? " (" + status.textContent + ")" : "");
    } else {
      var heads = target.closest("table").querySelectorAll("thead th");
      var cells = target.querySelectorAll("td"), offset = heads.length - cells.length, parts = [];
      cells.forEach(function (cell, index) {
        var name = heads[index + offset] ? heads[index + offset].textContent : "";
        if (cell.textContent !== "—") parts.push(name + " " + cell.textContent);
      });
      var pieces = target.id.split("-");
      where = pieces[0] === "p" ? "prefill, " + pieces[1] + " context tokens"
        : "decode, " + pieces[1] + " context tokens × " + pieces[2] + " requests";
      figure = parts.join(", ");
    }
    return heading + ": " + figure + "; " + where + "; latencies: " + statistic +
      (date ? "; measured " + date : "") + ". " + address;
  };
  if (reproduce) {
    var panel = null;
    var cite = function (target) {
      if (!panel) {
        panel = document.createElement("div");
        panel.className = "cite";
        panel.setAttribute("role", "status");
        panel.innerHTML = "<p class=section-head><strong>Cite this figure</strong></p>" +
          "<p class=command></p>";
        if (navigator.clipboard) {
          var button = document.createElement("button");
          button.type = "button";
          button.className = "copy";
          button.textContent = "Copy";
          button.addEventListener("click", function () {
            navigator.clipboard.writeText(panel.lastChild.textContent);
          });
          panel.firstChild.appendChild(button);
        }
      }
      panel.lastChild.textContent = citeText(target);
      target.closest(".scroll").after(panel);
      history.replaceState(null, "", "#" + target.id);
    };
    // One listener for the page: the measurement rows are made after it loads.
    document.addEventListener("click", function (event) {
      var target = event.target.closest("table.matrix td[id], table.figures tr[id]");
      if (target) cite(target);
    });
  }

  // --- the run's CSV, made here from its JSON -----------------------------------------
  // The site ships each run once, as its canonical JSON; the CSV (docs/result-format.md, "The
  // run CSV") is made from it in the reader's browser, as sitegen's Python once wrote it. Without
  // JavaScript, or opened from disk (where fetch is refused), the page's own words stay: they
  // say the browser makes the file and that the JSON holds the same figures.
  var CSV_COLUMNS = ["phase", "context_tokens", "concurrency", "status", "total_tokens_per_s",
    "per_request_tokens_per_s", "ttft_ms", "time_between_tokens_ms", "average_active_requests",
    "completed_requests", "output_tokens", "measured_s", "prompt_tokens", "prompt_chunk_tokens",
    "output_tokens_per_request"];
  var CSV_STATISTICS = [];
  ["ttft_ms", "time_between_tokens_ms", "per_request_tokens_per_s"].forEach(function (figure) {
    ["mean", "p50", "p90", "p99"].forEach(function (name) { CSV_STATISTICS.push([figure, name]); });
  });
  // JSON.parse would turn 10211.0 into 10211: each number is kept as the file writes it (a
  // string after a NUL mark), which is how Python's csv module wrote it (repr of the float).
  var NUMBER_MARK = "\u0000";
  var parseKeepingNumbers = function (text) {
    return JSON.parse(text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, function (token) {
      return token.charAt(0) === '"' ? token : '"\\u0000' + token + '"';  // NUMBER_MARK, escaped for JSON
    }));
  };
  var isNumber = function (value) { return typeof value === "string" && value.charAt(0) === NUMBER_MARK; };
  var numberOf = function (value) { return isNumber(value) ? parseFloat(value.slice(1)) : 0; };
  var cellText = function (value) {
    if (value === undefined || value === null) return "";
    if (isNumber(value)) return value.slice(1);
    var text = String(value);
    // Spreadsheet programs run cells that start with these as formulas.
    if (/^[=+\-@\t\r]/.test(text)) text = "'" + text;
    // Quoted only when it must be, as Python's csv.writer (QUOTE_MINIMAL) does.
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  };
  var statisticCells = function (point) {
    var statistics = point.statistics || {};
    return CSV_STATISTICS.map(function (pair) { return (statistics[pair[0]] || {})[pair[1]]; });
  };
  var runCsv = function (run) {
    var measurements = run.measurements || {};
    var byKeys = function (keys) {
      return function (a, b) {
        for (var i = 0; i < keys.length; i++) {
          var d = numberOf(a[keys[i]]) - numberOf(b[keys[i]]);
          if (d) return d;
        }
        return 0;
      };
    };
    var prefill = (measurements.prefill || []).slice().sort(byKeys(["context_tokens", "prompt_chunk_tokens"]));
    var decode = (measurements.decode || []).slice().sort(byKeys(["context_tokens", "concurrency", "output_tokens_per_request"]));
    var one = NUMBER_MARK + "1";
    var rows = prefill.map(function (p) {
      return ["prefill", p.context_tokens, one, "valid", p.prompt_tokens_per_s, null, p.ttft_ms, null, null,
        p.samples, null, null, p.prompt_tokens, p.prompt_chunk_tokens, null].concat(statisticCells(p));
    }).concat(decode.map(function (c) {
      return ["decode", c.context_tokens, c.concurrency, c.status, c.total_tokens_per_s, c.per_request_tokens_per_s,
        c.ttft_ms, c.time_between_tokens_ms, c.average_active_requests, c.completed_requests, c.output_tokens,
        c.measured_s, null, null, c.output_tokens_per_request].concat(statisticCells(c));
    }));
    var header = CSV_COLUMNS.concat(CSV_STATISTICS.map(function (pair) { return pair[0] + "_" + pair[1]; }));
    // A column empty in every row of the run is left out; the others keep their order and names.
    var kept = header.map(function (name, i) { return i; }).filter(function (i) {
      return !rows.length || rows.some(function (row) { return cellText(row[i]) !== ""; });
    });
    var line = function (cells) { return kept.map(function (i) { return cellText(cells[i]); }).join(",") + "\n"; };
    return line(header) + rows.map(line).join("");
  };
  var csvItem = document.getElementById("csv");
  var resultLink = document.getElementById("json");
  if (csvItem && resultLink && window.fetch && window.Blob && window.URL && location.protocol !== "file:") {
    var said = Array.prototype.slice.call(csvItem.childNodes);
    var csvButton = document.createElement("button");
    csvButton.type = "button";
    csvButton.className = "link";
    csvButton.textContent = "All measurements (CSV)";
    csvItem.replaceChildren(csvButton);
    csvButton.addEventListener("click", function () {
      csvButton.disabled = true;
      fetch(resultLink.href).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.url);
        return response.text();
      }).then(function (text) {
        var csv = runCsv(resultDocument(parseKeepingNumbers(text)));
        var url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
        var save = document.createElement("a");
        save.href = url;
        save.download = decodeURIComponent(resultLink.pathname.split("/").pop()).replace(/\.json$/, "") + ".csv";
        document.body.appendChild(save);
        save.click();
        save.remove();
        setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
        csvButton.disabled = false;
      }).catch(function (error) {
        // The page's own words again, and what went wrong.
        csvItem.replaceChildren.apply(csvItem, said);
        csvItem.appendChild(document.createTextNode(" (" + error.message + ")"));
      });
    });
  }

  // --- the tails and power tables, made here from the run JSON ----------------------------
  // The run page says what the table holds (sitegen/site/pages/run.py, _tails); its rows
  // are every cell with statistics, prefill then decode, each by context and requests, made
  // when the reader opens the detail, as the build once wrote them (numbers.py's rules).
  var mirrored = function (name) {  // p90 → p10, p99.9 → p0.1 (capacity.mirrored_percentile)
    var digits = (name.slice(1).split(".")[1] || "").length;
    return "p" + (100 - parseFloat(name.slice(1))).toFixed(digits);
  };
  var numbers = window.sitegenNumbers;
  var TAIL_FORMATS = {
    ttft_ms: numbers.ms,
    time_between_tokens_ms: function (value) {
      if (value === null || value === undefined) return "—";
      return numbers.grouped(numbers.fixed(value, 1), 1) + " ms";
    }
  };
  var speedTail = function (statistics, name) {  // run.py's rule: given, else 1000 ÷ gap, †
    var speed = statistics.per_request_tokens_per_s || {};
    var gaps = statistics.time_between_tokens_ms || {};
    if (name === "mean") return numbers.rate(speed.mean);
    var given = speed[mirrored(name)];
    if (given !== undefined) return numbers.rate(given);
    return gaps[name] ? numbers.rate(1000 / gaps[name]) + "†" : "—";
  };
  var tailRows = function (run, table) {
    var keys = table.getAttribute("data-figures").split(" ").filter(Boolean);
    var names = table.getAttribute("data-statistics").split(" ");
    var phased = table.classList.contains("phased"), speed = table.hasAttribute("data-speed");
    var byKeys = function (keysOf) {
      return function (a, b) {
        var x = keysOf(a), y = keysOf(b);
        for (var i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
        return 0;
      };
    };
    var measurements = run.measurements || {};
    var items = (measurements.prefill || []).slice().sort(byKeys(function (p) {
      return [p.context_tokens, p.prompt_chunk_tokens || 0];
    })).map(function (p) { return ["Prefill", "1", p]; });
    items = items.concat((measurements.decode || []).slice().sort(byKeys(function (c) {
      return [c.context_tokens, c.concurrency, c.output_tokens_per_request || 0];
    })).map(function (c) { return [table.getAttribute("data-phase"), String(c.concurrency), c]; }));
    return items.filter(function (item) { return item[2].statistics; }).map(function (item) {
      var statistics = item[2].statistics, cells = phased ? [item[0]] : [];
      cells.push(numbers.contextLabel(item[2].context_tokens), item[1]);
      keys.forEach(function (key) {
        var values = statistics[key] || {};
        names.forEach(function (name) { cells.push(TAIL_FORMATS[key](values[name])); });
      });
      if (speed) names.forEach(function (name) { cells.push(speedTail(statistics, name)); });
      return cells;
    });
  };
  // The power table: every measured decode cell with its power, energy derived as power ÷ total
  // tok/s unless the file measured it (run.py, _power; numbers.joules and per_joule's digits).
  var significant = function (value) {  // three significant digits, never 1e-3
    if (value >= 100) return numbers.grouped(numbers.fixed(value, 0), 0);
    var digits = value >= 10 ? 1 : value >= 1 ? 2 : 3;
    return numbers.fixed(value, digits).toFixed(digits);
  };
  var powerRows = function (run) {
    var decode = ((run.measurements || {}).decode || []).slice().sort(function (a, b) {
      return a.context_tokens - b.context_tokens || a.concurrency - b.concurrency ||
        (a.output_tokens_per_request || 0) - (b.output_tokens_per_request || 0);
    });
    return decode.filter(function (c) {
      return (c.status === "valid" || c.status === "requests_queued") &&
        (c.average_power_w || c.energy_per_output_token_j);
    }).map(function (c) {
      var measured = c.energy_per_output_token_j, energy = measured;
      if (energy === undefined && c.average_power_w && c.total_tokens_per_s) {
        energy = c.average_power_w / c.total_tokens_per_s;  // derived: W ÷ tok/s = J a token
      }
      var power = c.average_power_w === undefined ? "—"
        : numbers.grouped(numbers.fixed(c.average_power_w, 0), 0) + " W";
      return [numbers.contextLabel(c.context_tokens), String(c.concurrency),
        numbers.rate(c.total_tokens_per_s), power,
        energy ? significant(energy) + " J" + (measured ? " measured" : "") : "—",
        energy ? significant(1 / energy) + " tok/J" : "—"];
    });
  };

  // The heads of the tails and power tables (run.py, _tails: the data- attributes say which
  // figures, statistics and phase): made here, as their rows are, so the page carries neither.
  var TAIL_TITLES = { ttft_ms: "TTFT", time_between_tokens_ms: "Time between tokens" };
  var SPEED_TAIL = "Per request tok/s, slow tail";  // run.py, SPEED_TAIL
  var headCell = function (row, text, attributes) {
    var cell = document.createElement("th");
    cell.textContent = text;
    Object.keys(attributes || {}).forEach(function (name) {
      cell.setAttribute(name, attributes[name]);
    });
    row.appendChild(cell);
  };
  var tailHead = function (table) {
    var keys = table.getAttribute("data-figures").split(" ").filter(Boolean);
    var names = table.getAttribute("data-statistics").split(" ");
    var titles = keys.map(function (key) { return TAIL_TITLES[key]; });
    var groups = keys.map(function () { return names; });
    if (table.hasAttribute("data-speed")) {
      titles.push(SPEED_TAIL);
      groups.push(names.map(function (name) { return name === "mean" ? name : mirrored(name); }));
    }
    var head = table.createTHead(), top = head.insertRow(), below = head.insertRow();
    var spanning = { scope: "col", rowspan: "2" };
    if (table.classList.contains("phased")) headCell(top, "Phase", spanning);
    headCell(top, "Context", spanning);
    headCell(top, "Requests at once", { scope: "col", rowspan: "2", "class": "num" });
    titles.forEach(function (title) {
      headCell(top, title, { scope: "colgroup", colspan: String(names.length), "class": "group" });
    });
    groups.forEach(function (group) {
      group.forEach(function (name) { headCell(below, name, { scope: "col", "class": "num" }); });
    });
  };
  var POWER_HEAD = ["Context", "Requests at once", "Total tok/s", "Average power",
    "Energy per output token (derived)", "Output tokens per joule (derived)"];
  var powerHead = function (table) {
    var row = table.createTHead().insertRow();
    POWER_HEAD.forEach(function (text, i) { headCell(row, text, i ? { "class": "num" } : {}); });
  };

  // --- "All measurements", made here from the run JSON ---------------------------------------
  // Every prefill point, then every decode cell, by context and requests (the order of
  // sitegen/model.py), written as run.py's _measurement_rows once wrote them: the same columns,
  // words and row ids (p-<context>, r-<context>-<requests>: receipts and citations point at
  // them), a phase and a context said once for the rows they span.
  var STATUSES = {  // labels.STATUSES, and the row's class (run.py, STATUS_CLASSES)
    valid: ["Valid", ""], requests_queued: ["Requests queued", "rq"],
    over_capacity: ["Over capacity", "oc"], not_run: ["Not run", "nr"], failed: ["Failed", "fl"]
  };
  var given = function (format) {
    return function (value) { return value === null || value === undefined ? "—" : format(value); };
  };
  var tenths = function (value) { return numbers.grouped(numbers.fixed(value, 1), 1); };
  var FORMAT = {  // numbers.py: integer, decimal, milliseconds_fine, seconds
    integer: given(function (value) { return numbers.grouped(value, 0); }),
    decimal: given(tenths),
    msFine: given(function (value) { return tenths(value) + " ms"; }),
    seconds: given(function (value) { return tenths(value) + " s"; })
  };
  var contextExact = function (tokens) {  // numbers.context_exact: 4.9K (5,000 tokens)
    var label = numbers.contextLabel(tokens);
    return tokens < 1024 || tokens % 1024 === 0 ? label
      : label + " (" + numbers.grouped(tokens, 0) + " tokens)";
  };
  var repeatsSaid = function (cell) {  // run.py, _repeats_said: 3 × (1,180.2–1,260.5 tok/s)
    if (!cell.repeats) return "—";
    var spread = (cell.repeats.spread || {}).total_tokens_per_s;
    return cell.repeats.count + " ×" + (spread ? " (" + numbers.rate(spread.min) + "–" +
      numbers.rate(spread.max) + " tok/s)" : "");
  };
  var FIGURES_HEAD = ["Phase", "Context", "Requests at once", "Status", "Total tok/s",
    "Per request tok/s", "TTFT", "Time between tokens", "Average active requests",
    "Completed requests", "Output tokens", "Measured for"];
  var byNumbers = function (keysOf) {
    return function (a, b) {
      var x = keysOf(a), y = keysOf(b);
      for (var i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
      return 0;
    };
  };
  // The optional columns a run needs: each decode cell's own output length, several prompt
  // sizes (llama-bench -p), repeated cells (run.py: varied_output, varied_prompt, with_repeats).
  var extraColumns = function (prefill, decode) {
    var sizes = {};
    prefill.forEach(function (p) { if (p.prompt_chunk_tokens) sizes[p.prompt_chunk_tokens] = 1; });
    return [
      decode.some(function (c) { return c.output_tokens_per_request; })
        ? ["Output tokens per request", function (item) {
          return item.output_tokens_per_request ? FORMAT.integer(item.output_tokens_per_request) : "—";
        }] : null,
      Object.keys(sizes).length > 1 ? ["Prompt tokens", function (item, isPrefill) {
        return isPrefill && item.prompt_chunk_tokens ? FORMAT.integer(item.prompt_chunk_tokens) : "—";
      }] : null,
      decode.some(function (c) { return c.repeats; })
        ? ["Repeats (their total tok/s)", function (item, isPrefill) {
          return isPrefill ? "—" : repeatsSaid(item);
        }] : null
    ].filter(Boolean);
  };
  var measurementItems = function (run, decodePhase) {
    var measurements = run.measurements || {};
    var prefill = (measurements.prefill || []).slice().sort(byNumbers(function (p) {
      return [p.context_tokens, p.prompt_chunk_tokens || 0];
    }));
    var decode = (measurements.decode || []).slice().sort(byNumbers(function (c) {
      return [c.context_tokens, c.concurrency, c.output_tokens_per_request || 0];
    }));
    var extra = extraColumns(prefill, decode);
    var more = function (item, isPrefill) {
      return extra.map(function (column) { return column[1](item, isPrefill); });
    };
    var items = prefill.map(function (p) {
      var id = "p-" + p.context_tokens + (p.prompt_chunk_tokens ? "-k" + p.prompt_chunk_tokens : "");
      return { phase: "Prefill", context: contextExact(p.context_tokens), id: id, css: "",
        cells: ["1", "Valid", numbers.rate(p.prompt_tokens_per_s), "—", numbers.ms(p.ttft_ms), "—",
          "—", FORMAT.integer(p.samples), "—", "—"].concat(more(p, true)) };
    });
    items = items.concat(decode.map(function (c) {
      var id = "r-" + c.context_tokens + "-" + c.concurrency +
        (c.output_tokens_per_request ? "-o" + c.output_tokens_per_request : "");
      var status = STATUSES[c.status] || [c.status, ""];
      return { phase: decodePhase, context: contextExact(c.context_tokens), id: id, css: status[1],
        cells: [String(c.concurrency), status[0], numbers.rate(c.total_tokens_per_s),
          numbers.rate(c.per_request_tokens_per_s), numbers.ms(c.ttft_ms),
          FORMAT.msFine(c.time_between_tokens_ms), FORMAT.decimal(c.average_active_requests),
          FORMAT.integer(c.completed_requests), FORMAT.integer(c.output_tokens),
          FORMAT.seconds(c.measured_s)].concat(more(c, false)) };
    }));
    return { head: FIGURES_HEAD.concat(extra.map(function (column) { return column[0]; })),
      items: items };
  };
  // How many rows from each row on share its key (0 inside a run): a spanning cell's rowspan.
  var spans = function (items, keyOf) {
    var counts = items.map(function () { return 0; }), start = 0;
    for (var i = 1; i <= items.length; i++) {
      if (i === items.length || keyOf(items[i]) !== keyOf(items[start])) {
        counts[start] = i - start;
        start = i;
      }
    }
    return counts;
  };
  var fillMeasurements = function (table, run) {
    var made = measurementItems(run, table.getAttribute("data-phase"));
    var top = table.createTHead().insertRow();
    made.head.forEach(function (text) { headCell(top, text); });
    var items = made.items, body = table.tBodies[0];
    var phases = spans(items, function (item) { return item.phase; });
    var contexts = spans(items, function (item) { return item.phase + "\n" + item.context; });
    var spanning = function (row, text, rows, i) {
      if (!rows) return;
      var cell = document.createElement("th");
      cell.textContent = text;
      if (rows > 1) cell.rowSpan = rows;
      if (i + rows === items.length) cell.className = "end";  // no line under the last row
      row.appendChild(cell);
    };
    items.forEach(function (item, i) {
      var row = body.insertRow();
      if (item.css) row.className = item.css;
      row.id = item.id;
      spanning(row, item.phase, phases[i], i);
      spanning(row, item.context, contexts[i], i);
      item.cells.forEach(function (text) { row.insertCell().textContent = text; });
    });
  };

  // --- the tables' rows, from the run JSON read once ------------------------------------------
  // Each table's words for readers without JavaScript (#…-where) stay until its rows are in, and
  // come back, with what went wrong, on failure. "All measurements" is made on load; the tails
  // and power tables when their detail is first opened.
  var jsonLink = document.getElementById("json");
  var served = Boolean(jsonLink && window.fetch && location.protocol !== "file:");
  var reading = null;
  var runDocument = function () {
    reading = reading || fetch(jsonLink.href).then(function (response) {
      if (!response.ok) throw new Error(response.status + " " + response.url);
      return response.json();
    }).then(resultDocument);
    return reading;
  };
  var fromRunJson = function (table, where, fill) {
    var said = Array.prototype.slice.call(where.childNodes);
    where.textContent = "Loading the figures from the result file…";
    return runDocument().then(function (run) {
      fill(table, run);
      table.hidden = false;
      where.remove();
    }).catch(function (error) {
      where.replaceChildren.apply(where, said);
      where.appendChild(document.createTextNode(" (" + error.message + ")"));
    });
  };
  var rowsOf = function (rowsFor) {
    return function (table, run) {
      var body = table.tBodies[0];
      rowsFor(run, table).forEach(function (cells) {
        var row = body.insertRow();
        cells.forEach(function (text) { row.insertCell().textContent = text; });
      });
    };
  };
  var onOpen = function (table, where, fill) {
    var detail = table.closest("details"), made = false;
    var make = function () {
      if (made || !detail.open) return;
      made = true;
      fromRunJson(table, where, fill);
    };
    detail.addEventListener("toggle", make);
    make();
  };
  var byId = function (id) { return document.getElementById(id); };
  var tails = document.querySelector("table.tails"), power = document.querySelector("table.power");
  if (tails) tailHead(tails);
  if (power) powerHead(power);
  if (!served) return;
  if (tails && byId("tails-where")) onOpen(tails, byId("tails-where"), rowsOf(tailRows));
  if (power && byId("power-where")) onOpen(power, byId("power-where"), rowsOf(powerRows));
  var figures = document.querySelector("table.figures");
  if (figures && byId("measurements-where")) {
    fromRunJson(figures, byId("measurements-where"), fillMeasurements).then(function () {
      // A row named by the address (a citation, a receipt) exists only now: go to it again.
      var named = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
      // Off and on again, in place: the browser then marks it :target and scrolls to it.
      if (named && figures.contains(named)) {
        var address = location.href;
        history.replaceState(history.state, "", address.split("#")[0]);
        location.replace(address);
      }
    });
  }
})();
