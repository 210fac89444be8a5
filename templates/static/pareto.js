// A model page's frontier charts (templates/pages/group.html, section.pareto): with JavaScript,
// each point names its own run, requests and figures on hover, and each run's line title names
// its frontier's points, read from the chart's figures table (the page says each figure once, in
// that table). Without it, a line's title says its run and how many of its points are on its
// frontier, and "The figures of this chart" lists every point. Nothing is fetched: a chart's
// points are matched to the rows of its own figures table in the order
// sitegen/site/draw/plots.py draws them (each run's frontier by its figures, ascending, then its
// other points by position); where a run's points cannot be told apart so (two at one pixel),
// its line keeps only its title.
(function () {
  "use strict";

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

  Array.prototype.forEach.call(charts, function (chart) {
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
  });
}());
