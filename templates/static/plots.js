// The small charts of the pages, drawn in the browser with the markup and rules of
// sitegen/site/draw/plots.py (templates/_macros.html draws the static ones): the reader's comparison
// view (compare.js) and the decode charts a model or accelerator page draws on load (group.js)
// share this one copy. It defines window.sitegenPlots and draws nothing by itself.
(function () {
  "use strict";

  var PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#8c8c8c"];
  var SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-right", "triangle-left"];

  // Each run's point symbol, as sitegen/site/draw/plots.py MARKERS draws it (a marker around 0, 0).
  var MARKERS = {
    "circle": "M3.4 0a3.4 3.4 0 1 1-6.8 0a3.4 3.4 0 1 1 6.8 0z",
    "square": "M-3.15-3.15h6.3v6.3h-6.3z",
    "triangle-up": "M0-3.6l3.8 6.75h-7.6z",
    "diamond": "M0-4.05l4.05 4.05-4.05 4.05-4.05-4.05z",
    "cross": "M-1.35-4.05h2.7v2.7h2.7v2.7h-2.7v2.7h-2.7v-2.7h-2.7v-2.7h2.7z",
    "triangle-down": "M0 3.6l3.8-6.75h-7.6z",
    "triangle-right": "M3.6 0l-6.75 3.8v-7.6z",
    "triangle-left": "M-3.6 0l6.75 3.8v-7.6z"
  };
  var SVG = "http://www.w3.org/2000/svg";

  // Numbers as sitegen/site/figures/numbers.py writes them: site.js, loaded first.
  var numbers = window.sitegenNumbers;
  var grouped = numbers.grouped, rate = numbers.rate, rateShort = numbers.rateShort, contextLabel = numbers.contextLabel;
  var el = function (tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  };
  var svgEl = function (tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    return node;
  };

  // --- the small charts (sitegen/site/draw/plots.py) ------------------------------------------------
  var W = 360, H = 210, LEFT = 52, RIGHT = 14, TOP = 10, BOTTOM = 38;
  var niceStep = function (top, steps) {
    var raw = top / 4;
    var power = Math.pow(10, Math.floor(Math.log10(raw)));
    steps = steps || [1, 2, 2.5, 5, 10];
    for (var i = 0; i < steps.length; i++) { if (steps[i] * power >= raw * (1 - 1e-9)) return steps[i] * power; }
    return 10 * power;
  };
  // A y axis is always four steps of these (plots.py _STEPS): one grid serves every plot.
  var Y_STEPS = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
  var GRID = [0, 1, 2, 3, 4].map(function (i) { return "M" + LEFT + " " + (TOP + (H - TOP - BOTTOM) * i / 4) + "H" + (W - RIGHT); }).join("");
  var fmt = function (value) { return value >= 1 || value === 0 ? rateShort(value) : value.toPrecision(2); };
  // A coordinate to a tenth of a pixel, whole ones without ".0" (plots.py _px).
  var px = function (value) { return String(Math.round(value * 10) / 10); };
  // The page's plot definitions, as templates/_macros.html plot_sprite draws them: a marker per
  // run's place and each distinct frame (grid, axis titles, x ticks, the y axis's 0) once, in
  // one hidden svg.
  var sprite = function () {
    var defs = document.querySelector("svg.sprite defs");
    if (!defs) {
      var holder = svgEl("svg", { "class": "sprite", "aria-hidden": "true" });
      defs = svgEl("defs");
      holder.appendChild(defs);
      document.body.appendChild(holder);
    }
    SHAPES.forEach(function (shape, i) {
      if (document.getElementById("pm" + i)) return;
      var marker = svgEl("marker", { id: "pm" + i, markerUnits: "userSpaceOnUse" });
      marker.appendChild(svgEl("path", { d: MARKERS[shape] }));
      defs.insertBefore(marker, defs.querySelector(".frame"));
    });
    return defs;
  };
  // A frame (the grid, both axis titles, the x ticks and the y axis's 0), defined once in the sprite.
  var defined = {};
  var svgText = function (parent, attrs, words) { var t = svgEl("text", attrs); t.textContent = words; parent.appendChild(t); };
  var frameId = function (xTitle, yTitle, xTicks) {
    var key = JSON.stringify([xTitle, yTitle, xTicks]);
    if (defined[key] && document.getElementById(defined[key])) return defined[key];
    var defs = sprite();
    var id = "pf" + (defs.querySelectorAll(".frame").length + 1);
    while (document.getElementById(id)) id += "j";
    var g = svgEl("g", { id: id, "class": "frame" });
    // In this order: style.css places and styles a frame's children by their place.
    g.appendChild(svgEl("path", { d: GRID }));
    svgText(g, { id: id + "x" }, xTitle);
    svgText(g, { id: id + "y" }, yTitle);
    svgText(g, {}, "0");
    var ticks = svgEl("g", { "class": "xl" });
    xTicks.forEach(function (tick) { svgText(ticks, { x: tick[0] }, tick[1]); });
    g.appendChild(ticks);
    // The page's static plots may have defined the same already (the same markup but for ids).
    var same = function (node) { return node.outerHTML.replace(/id="[^"]*"/g, ""); };
    var mine = same(g);
    var found = Array.prototype.filter.call(defs.querySelectorAll(".frame"),
                                            function (node) { return same(node) === mine; })[0];
    if (found) id = found.id;
    else defs.appendChild(g);
    defined[key] = id;
    return id;
  };
  // Path data in tenths of a pixel, as plots.py _path writes it: the line (a moveto, then
  // relative lineto's), then a relative moveto to each point off it.
  var tenths = function (value) {
    var whole = Math.floor(Math.abs(value) / 10), tenth = Math.abs(value) % 10;
    return (value < 0 ? "-" : "") + whole + (tenth ? "." + tenth : "");
  };
  var pair = function (x, y) { var second = tenths(y); return tenths(x) + (second.charAt(0) === "-" ? "" : " ") + second; };
  var pathData = function (line, alone) {
    var text = "", at = null;
    line.forEach(function (p, i) {
      if (!at) text += "M" + pair(p[0], p[1]);
      else {
        var step = pair(p[0] - at[0], p[1] - at[1]);
        text += (i === 1 ? "l" : step.charAt(0) === "-" ? "" : " ") + step;
      }
      at = p;
    });
    alone.forEach(function (p) {
      text += at ? "m" + pair(p[0] - at[0], p[1] - at[1]) : "M" + pair(p[0], p[1]);
      at = p;
    });
    return text;
  };
  var plotCount = 0;
  // A legend of plotted runs (templates/_macros.html plot_legend): keys the stylesheet draws.
  var plotLegend = function (drawn) {
    var legend = el("ul", undefined, "chart-legend");
    drawn.forEach(function (s) {
      var item = el("li");
      item.setAttribute("data-run", s.runId || "");
      item.appendChild(el("i", undefined, "k" + s.index % PALETTE.length));
      item.appendChild(document.createTextNode(s.label));
      legend.appendChild(item);
    });
    return legend;
  };
  // series: [{label, index, runId, points: [[x, y, words]], joined: [[x, y]] or null, title}]
  // xDomain: x values the axis spans even where this plot has no point (plots.py x_domain).
  var plot = function (caption, series, xLog, xTitle, yTitle, note, xDomain) {
    var drawn = series.filter(function (s) { return s.points.length; });
    if (!drawn.length) return null;
    var xs = (xDomain || []).filter(function (x, i, all) { return all.indexOf(x) === i; }), yTop = 0;
    drawn.forEach(function (s) { s.points.forEach(function (p) { if (xs.indexOf(p[0]) < 0) xs.push(p[0]); yTop = Math.max(yTop, p[1]); }); });
    xs.sort(function (a, b) { return a - b; });
    yTop = yTop || 1;
    var step = niceStep(yTop, Y_STEPS), yMax = 4 * step;
    var innerW = W - LEFT - RIGHT, innerH = H - TOP - BOTTOM;
    var xAt, xTicks = [];
    if (xLog) {
      var low = Math.log2(xs[0]), high = Math.log2(xs[xs.length - 1]);
      xAt = function (v) { return LEFT + (high === low ? innerW / 2 : (Math.log2(v) - low) / (high - low) * innerW); };
      var every = xs.length <= 7 ? 1 : Math.ceil(xs.length / 7);
      xs.forEach(function (x, i) { if (i % every === 0) xTicks.push([px(xAt(x)), grouped(x, 0)]); });
    } else {
      var last = xs[xs.length - 1] || 1, xStep = niceStep(last), xMax = Math.ceil(last / xStep) * xStep;
      xAt = function (v) { return LEFT + v / xMax * innerW; };
      for (var i = 0; i <= Math.round(xMax / xStep); i++) xTicks.push([px(xAt(i * xStep)), fmt(i * xStep)]);
    }
    var yAt = function (v) { return TOP + innerH - v / yMax * innerH; };
    // The four y labels above 0 (the frame has 0), from the lowest up: style.css puts each at
    // its grid line, which is the same in every plot (a y axis is always four steps).
    var yTicks = [];
    for (var t = 1; t <= 4; t++) yTicks.push(fmt(t * step));
    var frame = frameId(xTitle, yTitle, xTicks);
    var id = "pj" + (++plotCount);
    var figure = el("figure", undefined, "plot");
    var figcaption = el("figcaption", caption);
    figcaption.id = id;
    figure.appendChild(figcaption);
    var names = [id, frame + "x", frame + "y"].concat(drawn.map(function (s, i) { return id + "abcdefgh".charAt(i); }));
    var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-labelledby": names.join(" ") });
    svg.appendChild(svgEl("use", { href: "#" + frame }));
    var labels = svgEl("g", { "class": "yl" });
    yTicks.forEach(function (label) { svgText(labels, {}, label); });
    svg.appendChild(labels);
    drawn.forEach(function (s, n) {
      // One path: the line through the joined points, then a moveto for each point off it (plots.py _path).
      var joined = (s.joined || s.points).map(function (p) { return [p[0], p[1]]; }).sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
      var left = {};
      joined.forEach(function (p) { left[p[0] + " " + p[1]] = (left[p[0] + " " + p[1]] || 0) + 1; });
      var alone = s.points.filter(function (p) {
        var key = p[0] + " " + p[1];
        if (left[key]) { left[key] -= 1; return false; }
        return true;
      });
      // Each point at the viewBox's whole unit, rounded half up (plots.py); path data counts in tenths.
      var at = function (p) { return [Math.floor(xAt(p[0]) + 0.5) * 10, Math.floor(yAt(p[1]) + 0.5) * 10]; };
      // The points off the line from left to right, none at a pixel that already has this
      // run's marker (plots.py).
      var onLine = joined.map(at), seen = {};
      onLine.forEach(function (p) { seen[p[0] + " " + p[1]] = true; });
      var off = alone.map(at).filter(function (p) {
        var key = p[0] + " " + p[1];
        if (seen[key]) return false;
        seen[key] = true;
        return true;
      }).sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
      var d = pathData(onLine, off);
      var path = svgEl("path", { "class": "s" + s.index % PALETTE.length, d: d });
      var title = svgEl("title", { id: id + "abcdefgh".charAt(n) });
      title.textContent = s.title || s.label + ": " + s.points.map(function (p) { return p[2]; }).join(", ");
      path.appendChild(title);
      svg.appendChild(path);
    });
    figure.appendChild(svg);
    figure.appendChild(plotLegend(drawn));
    if (note) figure.appendChild(el("p", note, "legend plot-note"));
    return figure;
  };
  // Small multiples (templates/_macros.html plot_grid): one legend above them when every plot
  // draws the same runs, else one each. Returns the nodes to append, in order.
  var plotGrid = function (figures) {
    var grid = el("div", undefined, "plot-grid");
    var legends = figures.map(function (f) { return f.querySelector(".chart-legend"); });
    var shared = legends.every(function (l) { return l.outerHTML === legends[0].outerHTML; });
    figures.forEach(function (f) { grid.appendChild(f); });
    if (!shared || !figures.length) return [grid];
    legends.forEach(function (l) { l.parentNode.removeChild(l); });
    return [legends[0], grid];
  };


  // The points ([x, y, …]) no other point beats on both axes, as [x, y], each once
  // (chart_specs.py _frontier): what a frontier chart joins.
  var frontier = function (points) {
    var best = -1, kept = [];
    points.slice().sort(function (a, b) { return b[0] - a[0] || b[1] - a[1]; }).forEach(function (p) {
      if (p[1] > best) { kept.push([p[0], p[1]]); best = p[1]; }
    });
    return kept;
  };

  // A model's cells at a context, /data/points/<context>/<model>.json (pages/presets.py), fetched
  // once a page however many charts ask: what group.js and pareto.js draw from.
  var pointFiles = {};
  var points = function (context, model) {
    var root = document.documentElement.getAttribute("data-root") || "";
    var url = root + "data/points/" + context + "/" + encodeURIComponent(model) + ".json";
    if (!pointFiles[url]) {
      pointFiles[url] = fetch(url).then(function (r) {
        if (!r.ok) throw new Error(r.status + " " + r.url);
        return r.json();
      });
    }
    return pointFiles[url];
  };

  window.sitegenPlots = { plot: plot, plotGrid: plotGrid, grouped: grouped, rate: rate, rateShort: rateShort,
                         contextLabel: contextLabel, el: el, svgEl: svgEl, points: points,
                         frontier: frontier };
})();
