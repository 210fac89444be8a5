// A model page's frontier charts (templates/pages/group.html, section.pareto). The page draws
// the default context's chart and its figures table; the other contexts' it leaves to this
// script where /data/points/ holds every cell they draw (pages/group.py frontier_data), and
// drawLeft below makes them as the build would. Then, with JavaScript, each point names its own
// run, requests and figures on hover, and each run's line title names its frontier's points,
// read from the chart's figures table (the page says each figure once, in that table). Without
// it, a line's title says its run and how many of its points are on its frontier, "The figures
// of this chart" lists every point, and a context left to the browser says so. A chart's
// points are matched to the rows of its own figures table in the order
// sitegen/site/draw/plots.py draws them (each run's frontier by its figures, ascending, then its
// other points by position); where a run's points cannot be told apart so (two at one pixel),
// its line keeps only its title.
(function () {
  "use strict";

  var section = document.querySelector("section.pareto");
  var charts = document.querySelectorAll("section.pareto .pareto-at");
  if (!charts.length) return;
  var NEAR = 12; // viewBox units (about pixels) within which the pointer is at a point

  // The vertices of a path as plots.py writes it: M x y, then relative l pairs, then m or M per
  // point drawn alone; in viewBox units.
  var vertices = function (d) {
    var tokens = d.match(/[MmLl]|-?\d+(?:\.\d+)?/g) || [];
    var points = [], command = "M", x = 0, y = 0;
    for (var i = 0; i < tokens.length;) {
      if (/[MmLl]/.test(tokens[i])) { command = tokens[i]; i += 1; continue; }
      var dx = Number(tokens[i]), dy = Number(tokens[i + 1]);
      if (command === "M" || command === "L") { x = dx; y = dy; } else { x += dx; y += dy; }
      points.push([x, y]);
      if (command === "M") command = "L";
      if (command === "m") command = "l";
      i += 2;
    }
    return points;
  };

  var number = function (text) { return Number(text.replace(/,/g, "")); };

  // The figures table's rows of one run, in the order its path visits its points.
  var drawnOrder = function (rows) {
    var onLine = rows.filter(function (r) { return r.frontier; });
    var alone = rows.filter(function (r) { return !r.frontier; });
    onLine.sort(function (a, b) { return a.x - b.x || a.y - b.y; });
    // Off the line: left to right on the screen, and top to bottom (a larger y is higher up).
    alone.sort(function (a, b) { return a.x - b.x || b.y - a.y; });
    return onLine.concat(alone);
  };

  // A line's full title: its frontier's points, the slowest per request first, as the table says
  // them (sitegen/site/sections/curves.py pareto_plot words them the same way).
  var frontierTitle = function (run, rows, context) {
    var on = rows.filter(function (r) { return r.frontier; });
    on.sort(function (a, b) { return a.x - b.x || a.y - b.y; });
    var words = on.map(function (r) {
      return context + " × " + r.requests + " → " + r.speed + " per request, " + r.perAccelerator;
    });
    var all = rows.length === 1 ? "1 cell" : rows.length + " cells";
    return run + ", frontier: " + words.join("; ") + " (" + all + " in all: see the run's page)";
  };

  var attach = function (chart) {
    var figure = chart.querySelector("figure.plot"), svg = figure && figure.querySelector("svg");
    var table = chart.querySelector("table.frontier-figures");
    // The context, from the caption plots.py writes: "… at 8K context", or "… at context 0 (…)".
    var caption = figure ? figure.querySelector("figcaption") : null;
    var where = caption && caption.textContent.match(/ at (?:context (\d+)|(\S+) context)/);
    var context = where ? where[1] || where[2] : "";
    if (!svg || !table || !svg.getScreenCTM) return;
    // Each run's rows: its name heads the first of them (a header cell spanning the rest).
    var byRun = {}, run = null;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
      var cells = Array.prototype.slice.call(tr.cells);
      if (cells[0].tagName === "TH") run = cells.shift().textContent;
      if (run === null || cells.length < 4) return;
      (byRun[run] = byRun[run] || []).push({
        run: run, requests: cells[0].textContent, speed: cells[1].textContent,
        perAccelerator: cells[2].textContent, frontier: cells[3].textContent === "yes",
        x: number(cells[1].textContent), y: number(cells[2].textContent)
      });
    });
    var points = [];
    Array.prototype.forEach.call(svg.querySelectorAll("path[class]"), function (path) {
      var title = path.querySelector("title");
      var said = title ? title.textContent : "";
      var run = Object.keys(byRun).filter(function (name) {
        return said.indexOf(name + ",") === 0;
      })[0];
      if (!run) return;
      title.textContent = frontierTitle(run, byRun[run], context);
      var at = vertices(path.getAttribute("d") || ""), rows = drawnOrder(byRun[run]);
      if (at.length !== rows.length) return; // two points at one pixel: the table says them
      at.forEach(function (xy, i) { points.push({ x: xy[0], y: xy[1], row: rows[i] }); });
    });
    if (!points.length) return;

    var tip = document.createElement("p");
    tip.className = "plot-tip";
    tip.setAttribute("role", "status");
    tip.hidden = true;
    figure.appendChild(tip);
    // The statistic the speed column names, e.g. "(as reported)" or "(mean)".
    var statistic = (table.tHead.rows[0].cells[2].textContent.match(/\([^)]*\)/) || [""])[0];
    svg.addEventListener("pointermove", function (event) {
      var matrix = svg.getScreenCTM();
      if (!matrix) return;
      var point = svg.createSVGPoint();
      point.x = event.clientX;
      point.y = event.clientY;
      var local = point.matrixTransform(matrix.inverse());
      var best = null, bestDistance = NEAR;
      points.forEach(function (p) {
        var distance = Math.hypot(p.x - local.x, p.y - local.y);
        if (distance <= bestDistance) { best = p; bestDistance = distance; }
      });
      if (!best) { tip.hidden = true; return; }
      var row = best.row;
      tip.textContent = row.run + ": " + row.requests +
        (row.requests === "1" ? " request" : " requests") + " at once → " + row.speed +
        " tok/s per request" + (statistic ? " " + statistic : "") + ", " + row.perAccelerator +
        " tok/s per accelerator (derived)" + (row.frontier ? "" : "; off its frontier");
      tip.hidden = false;
      // Beside the pointer, but inside the figure: never wider than the page (no sideways scroll).
      var box = figure.getBoundingClientRect();
      var left = Math.min(event.clientX - box.left + 12, box.width - tip.offsetWidth);
      tip.style.left = Math.max(0, left) + "px";
      tip.style.top = Math.max(0, event.clientY - box.top + 12) + "px";
    });
    svg.addEventListener("pointerleave", function () { tip.hidden = true; });
  };

  Array.prototype.forEach.call(charts, function (chart) {
    if (!chart.querySelector(".frontier-wait")) attach(chart);
  });
  drawLeft().then(function (drawn) { drawn.forEach(attach); });

  // --- the charts left to the browser (pages/group.py frontier_data) ------------------------------
  // Drawn from /data/points/<context>/<model>.json with the rules of sections/curves.py
  // pareto_plot and the markup of templates/pages/group.html, as if the build had drawn them.
  function drawLeft() {
    var plots = window.sitegenPlots;
    var text = section && section.getAttribute("data-frontiers");
    if (!text || !plots || !window.fetch) return Promise.resolve([]);
    var data = JSON.parse(text);
    var load = plots.points;
    // A run's cells a frontier is drawn from (curves.py frontier_cells): valid, with a total and
    // a per-request figure, at exactly this context; [requests, per-request, total].
    var cellsOf = function (file, runId, context) {
      var fields = file.fields, found = [];
      var speed = file.columns.indexOf("per_request_tokens_per_s");
      var total = file.columns.indexOf("total_tokens_per_s");
      file.runs.forEach(function (values) {
        if (values[fields.indexOf("run")] !== runId || values[fields.indexOf("context_tokens")] !== context) return;
        values[fields.indexOf("cells")].forEach(function (cell, i) {
          if (!cell || file.statuses[cell[0]] !== "valid") return;
          if (typeof cell[speed] === "number" && typeof cell[total] === "number") {
            found.push([file.concurrency[i], cell[speed], cell[total]]);
          }
        });
      });
      return found;
    };
    var el = plots.el;
    var row = function (tbody, values, head, span) {
      var tr = tbody.insertRow();
      if (head !== null) {
        var th = el("th", head);
        if (span > 1) th.rowSpan = span;
        tr.appendChild(th);
      }
      values.forEach(function (value) { tr.appendChild(el("td", value)); });
    };
    var draw = function (context) {
      var runs = data.at[String(context)].map(function (i) { return data.runs[i]; });
      var statistic = data.statistic[String(context)];
      var eachSays = statistic === "each run's statistic";
      var words = plots.contextLabel(context);
      var models = [];
      runs.forEach(function (run) { if (models.indexOf(run[1]) < 0) models.push(run[1]); });
      return Promise.all(models.map(function (m) { return load(context, data.models[m]); })).then(function (loaded) {
        var tbody = document.createElement("tbody");
        var series = runs.map(function (run) {
          var cells = cellsOf(loaded[models.indexOf(run[1])], run[0], context);
          var points = cells.map(function (c) { return [c[1], c[2] / run[4], c[0]]; });
          var joined = plots.frontier(points), best = {};
          joined.forEach(function (p) { best[p[0] + " " + p[1]] = true; });
          var said = {};
          points.forEach(function (p) {
            said[p[0] + " " + p[1]] = words + " × " + p[2] + " → " + plots.rate(p[0]) + " per request, " + plots.rate(p[1]);
          });
          points.forEach(function (p, i) {
            row(tbody, [String(p[2]), plots.rate(p[0]) + (eachSays ? " (" + run[5] + ")" : ""), plots.rate(p[1]),
                        best[p[0] + " " + p[1]] ? "yes" : ""], i ? null : run[2], points.length);
          });
          var count = joined.length;
          return { label: run[2], index: run[3], runId: run[0], joined: joined,
                   points: points.map(function (p) { return [p[0], p[1], said[p[0] + " " + p[1]]]; }),
                   title: run[2] + ", frontier: " + count + " of " + points.length + (points.length === 1 ? " cell" : " cells") };
        });
        var figure = plots.plot("Throughput against interactivity at " + words + " context", series, false,
                                "per-request tok/s (" + statistic + ")", "tok/s per accelerator",
                                data.notes[String(context)] || null, null);
        if (figure && data.shared) figure.removeChild(figure.querySelector(".chart-legend"));
        var table = el("table", undefined, "data frontier-figures");
        var head = table.createTHead().insertRow();
        [["Run", ""], ["Requests at once", "num"], ["Per-request tok/s (" + statistic + ")", "num"],
         ["tok/s per accelerator (derived)", "num"], ["On the frontier", ""]].forEach(function (h) {
          var th = el("th", h[0], h[1] || null);
          th.scope = "col";
          head.appendChild(th);
        });
        table.appendChild(tbody);
        var details = el("details", undefined, "more");
        details.appendChild(el("summary", "The figures of this chart"));
        var scroll = el("div", undefined, "scroll");
        scroll.appendChild(table);
        details.appendChild(scroll);
        return [figure, details];
      });
    };
    var left = Array.prototype.filter.call(charts, function (chart) { return chart.querySelector(".frontier-wait"); });
    return Promise.all(left.map(function (chart) {
      var note = chart.querySelector(".frontier-wait");
      return draw(Number(chart.id.replace("pareto-", ""))).then(function (made) {
        if (!made[0]) return null;
        chart.insertBefore(made[0], note);
        chart.insertBefore(made[1], note);
        chart.removeChild(note);
        return chart;
      }).catch(function (error) {
        // Browsers do not let a page opened from disk read other files with fetch().
        note.textContent += window.location.protocol === "file:"
          ? " (A page opened from disk cannot read them: serve the site, for example with `sitegen serve`.)"
          : " (They could not be loaded: " + error.message + ".)";
        return null;
      });
    })).then(function (drawn) { return drawn.filter(Boolean); });
  }
}());
