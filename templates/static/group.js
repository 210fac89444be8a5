// A model or accelerator page's decode charts at the contexts other than the one the page
// draws itself (sitegen/site/pages/group.py decode_charts): each chart's runs and figures come
// from data/points/<context>/<model>.json (sitegen/site/pages/presets.py point_files), and it
// is drawn by plots.js with the rules of sections/curves.py's decode_plot, so that with JavaScript the
// page shows a chart at every context two or more runs measured, as if the build had drawn it.
// Without JavaScript, or where the files cannot be fetched (a page opened from disk), the page
// keeps its one chart and its note saying where the others are.
(function () {
  "use strict";

  var section = document.getElementById("decode");
  var plots = window.sitegenPlots;
  if (!section || !plots || !window.fetch || !section.getAttribute("data-plots")) return;
  var data = JSON.parse(section.getAttribute("data-plots"));
  var note = document.getElementById("decode-more");
  // A run's legend label: the page's own chart's legend has those it draws, data-plots the others.
  var labels = {};
  Array.prototype.forEach.call(section.querySelectorAll(".chart-legend li[data-run]"), function (li) {
    labels[li.getAttribute("data-run")] = li.textContent;
  });
  data.runs = data.runs.map(function (run) { return [run[0], data.models[run[1]], run.length > 2 ? run[2] : labels[run[0]]]; });
  var STATUS = { valid: "Valid", requests_queued: "Requests queued", over_capacity: "Over capacity",
                 not_run: "Not run", failed: "Failed" };

  var load = plots.points;

  // A run's measured cells at exactly this context, as decode_plot takes them: [requests, total tok/s, status].
  var cellsOf = function (file, runId, context) {
    var fields = file.fields, found = [];
    var total = file.columns.indexOf("total_tokens_per_s");
    file.runs.forEach(function (values) {
      if (values[fields.indexOf("run")] !== runId || values[fields.indexOf("context_tokens")] !== context) return;
      values[fields.indexOf("cells")].forEach(function (cell, i) {
        if (!cell) return;
        var status = file.statuses[cell[0]];
        var value = cell[total];
        if ((status === "valid" || status === "requests_queued") && typeof value === "number") {
          found.push([file.concurrency[i], value, status]);
        }
      });
    });
    return found;
  };

  var chart = function (context) {
    var measured = data.at[String(context)];
    // The runs this chart names: every run of a small group, else the newest measured here;
    // each in its colour place (data.colours, sitegen/site/figures/run_colours.py).
    var colours = data.colours[String(context)];
    var named = data.each
      ? data.runs.map(function (run, i) {
        return { run: run, place: colours[i], here: measured.indexOf(i) >= 0 };
      })
      : measured.map(function (i, k) {
        return { run: data.runs[i], place: colours[k], here: true };
      });
    var models = [];
    named.forEach(function (n) { if (n.here && models.indexOf(n.run[1]) < 0) models.push(n.run[1]); });
    return Promise.all(models.map(function (model) { return load(context, model); })).then(function (loaded) {
      var series = named.map(function (n) {
        var points = n.here ? cellsOf(loaded[models.indexOf(n.run[1])], n.run[0], context).map(function (c) {
          return [c[0], c[1], c[0] + " → " + plots.rate(c[1]) + (c[2] === "valid" ? "" : " (" + STATUS[c[2]].toLowerCase() + ")")];
        }) : [];
        return { label: n.run[2], index: n.place, runId: n.run[0], joined: null, points: points,
                 title: n.run[2] + ": " + points.map(function (p) { return p[2]; }).join(", ") };
      });
      var missing = series.filter(function (s) { return !s.points.length; }).map(function (s) { return s.label; });
      // A single point has no curve and may hide behind another run's point: say where it is.
      var single = series.filter(function (s) { return s.points.length === 1; }).map(function (s) {
        var level = s.points[0][0];
        return s.label + " (at " + plots.grouped(level, 0) + (level === 1 ? " request)" : " requests)");
      });
      var notes = (missing.length ? ["Not measured at this context: " + missing.join(", ") + "."] : [])
        .concat(single.length ? ["One point only: " + single.join(", ") + "."] : []);
      return plots.plot(plots.contextLabel(context) + " context", series, true, "simultaneous requests", "total tok/s",
                        notes.length ? notes.join(" ") : null, data.levels);
    });
  };

  var others = data.contexts.filter(function (c) { return c !== data["default"]; });
  Promise.all(others.map(chart)).then(function (drawn) {
    var grid = section.querySelector(".plot-grid");
    var mine = grid.querySelector("figure.plot");
    // The page's own chart gets its legend back (drawn above the grid while it was alone).
    var above = grid.previousElementSibling;
    if (above && above.classList.contains("chart-legend")) {
      mine.insertBefore(above, mine.querySelector(".plot-note"));
    }
    var figures = [];
    data.contexts.forEach(function (c) {
      var figure = c === data["default"] ? mine : drawn[others.indexOf(c)];
      if (figure) figures.push(figure);
    });
    var nodes = plots.plotGrid(figures);
    nodes.forEach(function (node) { section.insertBefore(node, grid); });
    section.removeChild(grid);
    if (note) note.parentNode.removeChild(note);
  }).catch(function (error) {
    if (!note) return;
    // Browsers do not let a page opened from disk read other files with fetch().
    note.textContent += window.location.protocol === "file:"
      ? " (A page opened from disk cannot read them: serve the site, for example with `sitegen serve`.)"
      : " (They could not be loaded: " + error.message + ".)";
  });
})();
