// The reader's own capacity question on /capacity/: one model, one context, a service level (a
// shipped one or the reader's thresholds), optionally a number of users and a price for each
// accelerator; the answer is the model's setups ranked, as capacity_views.ranked_answers ranks
// them, in the markup of _macros.html answer_table. Without JavaScript the form stays hidden and
// the page's links answer the shipped levels. The figures come from
// data/points/<context>/<model>.json, fetched only when asked; the rules are point.js's, loaded
// first (window.sitegenRules: sitegen/site/figures/capacity.py's, docs/capacity.md).
(function () {
  "use strict";
  var section = document.getElementById("question");
  var form = document.getElementById("capacity-form");
  if (!section || !form || !window.fetch || !window.URLSearchParams || !window.sitegenRules) return;
  var rules = window.sitegenRules, numbers = window.sitegenNumbers;
  var status = document.getElementById("capacity-status");
  var answer = document.getElementById("capacity-answer");
  var KEYS = ["model", "context", "level", "min_tps", "max_ttft", "max_tbt", "users"];
  var prices = document.getElementById("capacity-prices");
  var field = function (name) { return form.elements[name]; };
  var positive = function (text) {
    var value = Number(text);
    return text !== "" && text !== null && isFinite(value) && value > 0 ? value : null;
  };
  var users = function (v) { return v % 1 ? numbers.grouped(numbers.fixed(v, 1), 1) : String(v); };
  var money = window.sitegenPoint.money;
  var plural = function (n) { return n + (n === 1 ? " request" : " requests"); };
  var el = function (tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  };
  var model = function () { return field("model").selectedOptions[0] || null; };
  var setupsOf = function (option) {
    return option ? JSON.parse(option.getAttribute("data-setup-names")) : {};
  };

  // A price field for each accelerator the chosen model's setups run on (price.<name, lower-cased>
  // in the address, as on the index): never one price for every accelerator.
  var fillPrices = function (wanted) {
    var names = {};
    var setups = setupsOf(model());
    Object.keys(setups).forEach(function (id) {
      names[setups[id][3].toLowerCase()] = setups[id][3];
    });
    prices.querySelectorAll("label").forEach(function (label) { label.remove(); });
    Object.keys(names).sort().forEach(function (key) {
      var label = el("label", names[key] + " ");
      var input = el("input");
      input.type = "number";
      input.min = "0";
      input.step = "any";
      input.inputMode = "decimal";
      input.name = "price." + key;
      input.setAttribute("data-accelerator", key);
      input.value = wanted[key] || "";
      label.appendChild(input);
      prices.appendChild(label);
    });
    prices.hidden = !Object.keys(names).length;
  };
  var priceInputs = function () {
    return Array.prototype.slice.call(prices.querySelectorAll("input[data-accelerator]"));
  };
  // The chosen model's contexts (the tolerance's clusters, capacity_views.question_models).
  var fillContexts = function (wanted) {
    var option = model();
    var select = field("context");
    select.replaceChildren();
    (option ? option.getAttribute("data-contexts").split(" ") : []).forEach(function (tokens) {
      var item = el("option", numbers.contextLabel(Number(tokens)));
      item.value = tokens;
      select.appendChild(item);
    });
    if (wanted) {
      var listed = Array.prototype.map.call(select.options, function (o) {
        return Number(o.value);
      });
      var near = rules.matchContext(listed, Number(wanted));
      if (near !== null) select.value = String(near);
    }
  };
  var showThresholds = function () {
    var custom = field("level").value === "custom";
    ["min_tps", "max_ttft", "max_tbt"].forEach(function (name) {
      field(name).parentNode.hidden = !custom;
    });
  };
  var levelOf = function (choice) {
    if (choice.level !== "custom") {
      var option = Array.prototype.filter.call(field("level").options, function (o) {
        return o.value === choice.level;
      })[0];
      if (!option) return null;
      return { name: choice.level, min: positive(option.getAttribute("data-min")),
               ttft: positive(option.getAttribute("data-ttft")),
               tbt: positive(option.getAttribute("data-tbt")),
               percentile: option.getAttribute("data-percentile"),
               cold: option.getAttribute("data-ttft-kind") === "cold" };
    }
    var level = { name: "your level", min: positive(choice.min_tps),
                  ttft: positive(choice.max_ttft), tbt: positive(choice.max_tbt),
                  percentile: null, cold: false };
    return level.min === null && level.ttft === null && level.tbt === null ? null : level;
  };

  // Which statistic of each cell a verdict judged (sections/capacity.py's statistic_judged).
  var statisticOf = function (entry, level) {
    if (level.percentile) return level.percentile + " latencies";
    return entry.statistic === "mean" || entry.statistic === "median"
      ? entry.statistic + " latencies" : "latencies as reported";
  };
  // Where each run stands (pages/capacity.standing): the rules' verdict, and what it judged.
  var standing = function (entry, level) {
    var cells = entry.cells.slice().sort(function (a, b) { return a.concurrency - b.concurrency; });
    var found = rules.capacity(cells, level, entry.timing);
    var gaps = found.source === "time_between_tokens" ? "speed from time between tokens · " : "";
    found.labels = statisticOf(entry, level) + " · " + gaps + rules.ttftWords[found.ttft];
    if (found.state === "none_meets") {
      found.reason = "even at " + plural(found.measured[0]) + ": " + found.reason;
    }
    return found;
  };
  // "Does it hold N users?" in words (point.js's answerForUsers).
  var forUsers = function (found, count) {
    var answer = rules.answerForUsers(found, count);
    if (answer.state === "meets") return "meets at " + plural(answer.concurrency);
    if (answer.state === "not_measured") return "not measured that high";
    return (answer.state === "fails" ? "does not meet at " : "cannot tell at ") +
      plural(answer.concurrency);
  };

  var row = function (item, priced, wanted) {
    var tr = el("tr", null, item.state);
    var setup = item.setup;
    tr.appendChild(el("td", item.rank)).setAttribute("data-label", "Rank");
    var th = el("th");
    th.scope = "row";
    th.setAttribute("data-label", "Setup");
    var link = el("a", setup[0] + (setup[1] ? " " + setup[1] : ""));
    link.href = (document.documentElement.getAttribute("data-root") || "") + "runs/" +
      encodeURIComponent(item.entry.run) + "/index.html";
    th.appendChild(link);
    th.appendChild(document.createTextNode(" "));
    th.appendChild(el("span", setup[2], "at"));
    if (item.entry.context_tokens !== wanted) {
      th.appendChild(document.createTextNode(" "));
      th.appendChild(el("span", "run's context " + numbers.contextLabel(item.entry.context_tokens),
                        "at"));
    }
    th.appendChild(document.createTextNode(" "));
    th.appendChild(el("span", item.found.labels, "at"));
    tr.appendChild(th);
    var cell = function (label, text, bold) {
      var td = el("td", bold ? null : text, "num");
      if (bold) td.appendChild(el("b", text));
      td.setAttribute("data-label", label);
      tr.appendChild(td);
    };
    if (item.state !== "meets") {
      var verdict = item.state === "none_meets" ? "Does not meet the level" : "Cannot tell";
      var td = el("td", verdict + ": " + item.found.reason, "state");
      td.colSpan = 4 + (priced ? 1 : 0) + (item.atUsers !== undefined ? 1 : 0);
      td.setAttribute("data-label", "Capacity");
      tr.appendChild(td);
      return tr;
    }
    cell("Users per accelerator (derived)", users(item.users), true);
    cell("Requests held", String(item.best.concurrency));
    cell("Total tok/s", numbers.rate(item.best.total_tokens_per_s));
    cell("tok/s per accelerator (derived)",
         numbers.rate(item.best.total_tokens_per_s / item.entry.accelerators));
    if (item.atUsers !== undefined) cell("For your users (derived)", item.atUsers);
    if (priced) cell("USD per million output tokens (derived)", item.cost);
    return tr;
  };

  var draw = function (runs, setups, choice, level) {
    var wanted = Number(choice.context), count = positive(choice.users);
    var items = Object.keys(runs).map(function (id) {
      var entry = runs[id], found = standing(entry, level);
      var item = { entry: entry, setup: setups[id] || [id, "", "", ""], state: found.state,
                   found: found, best: found.best, rank: "" };
      if (count !== null) item.atUsers = forUsers(found, count);
      if (found.best) {
        item.users = found.best.concurrency / entry.accelerators;
        // The reader's price for the run's accelerator, else the configured one (point.js's rule).
        var entered = positive(choice.prices[String(entry.accelerator).toLowerCase()] || "");
        var usd = entered !== null ? entered : entry.price_usd_per_hour;
        var cost = usd !== null
          ? rules.cost(usd, entry.accelerators, found.best.total_tokens_per_s) : null;
        item.cost = cost === null ? (usd === null ? "no price for " + entry.accelerator : "—")
          : money(cost) + " per M tokens at $" + usd + "/h";
      }
      return item;
    });
    var order = { meets: 0, none_meets: 1, cannot_tell: 2 };
    items.sort(function (a, b) {
      return order[a.state] - order[b.state] ||
        (count !== null ? (a.atUsers.indexOf("meets at") === 0 ? 0 : 1) -
          (b.atUsers.indexOf("meets at") === 0 ? 0 : 1) : 0) ||
        (b.users || 0) - (a.users || 0) ||
        (b.best ? b.best.total_tokens_per_s / b.entry.accelerators : 0) -
        (a.best ? a.best.total_tokens_per_s / a.entry.accelerators : 0) ||
        (a.entry.run < b.entry.run ? -1 : a.entry.run > b.entry.run ? 1 : 0);
    });
    var meeting = items.filter(function (i) { return i.state === "meets"; }).length;
    items.forEach(function (item, i) {
      if (item.state === "meets" && meeting > 1) item.rank = String(i + 1);
    });
    var priced = Object.keys(choice.prices).length > 0 ||
      items.some(function (i) { return i.entry.price_usd_per_hour !== null; });
    var table = el("table", null, "data answer");
    var head = table.createTHead().insertRow();
    ["Rank", "Setup", "Users per accelerator (derived)", "Requests held", "Total tok/s",
     "tok/s per accelerator (derived)"]
      .concat(count !== null
        ? ["For " + numbers.grouped(count, 0) + " users at once (derived)"] : [])
      .concat(priced ? ["USD per million output tokens (derived)"] : [])
      .forEach(function (text, i) {
        var th = el("th", text, i > 1 ? "num" : "");
        th.scope = "col";
        head.appendChild(th);
      });
    var body = table.createTBody();
    items.forEach(function (item) { body.appendChild(row(item, priced, wanted)); });
    var wrap = el("div", null, "answer-wrap");
    wrap.appendChild(table);
    answer.replaceChildren(wrap);
    status.textContent = meeting + " of " + items.length +
      (items.length === 1 ? " setup meets " : " setups meet ") +
      level.name + " at " + numbers.contextLabel(wanted) + (meeting > 1 ? ", the best first" : "") +
      (count !== null ? "; for " + numbers.grouped(count, 0) + " users, the smallest measured " +
        "number of requests at or above them that meets the level (every smaller one measured " +
        "meeting it too), or where it stops" : "") +
      ". Derived from each cell's reported statistic, not measured goodput.";
  };

  var choiceOf = function () {
    var choice = {};
    KEYS.forEach(function (key) { choice[key] = field(key).value; });
    if (choice.level !== "custom") {
      choice.min_tps = ""; choice.max_ttft = ""; choice.max_tbt = "";
    }
    choice.prices = {};
    priceInputs().forEach(function (input) {
      if (input.value) choice.prices[input.getAttribute("data-accelerator")] = input.value;
    });
    return choice;
  };
  var keep = function (choice) {
    var params = new URLSearchParams();
    KEYS.forEach(function (key) { if (choice[key]) params.set(key, choice[key]); });
    Object.keys(choice.prices).sort().forEach(function (key) {
      params.set("price." + key, choice.prices[key]);
    });
    history.replaceState(null, "", "?" + params.toString() + "#question");
  };
  var reading = 0;
  var ask = function (choice) {
    var level = levelOf(choice);
    var option = model();
    if (!option || !choice.context || !level) {
      status.textContent =
        "Choose a model, a context and a service level (or your own thresholds).";
      answer.replaceChildren();
      return;
    }
    keep(choice);
    var mine = (reading += 1);
    var setups = setupsOf(option);
    var url = (document.documentElement.getAttribute("data-root") || "") + "data/points/" +
      choice.context + "/" + option.value + ".json";
    status.textContent = "Loading…";
    fetch(url).then(function (response) {
      if (!response.ok) throw new Error(response.status + " " + response.url);
      return response.json();
    }).then(function (file) {
      if (mine === reading) draw(rules.merged([file]), setups, choice, level);
    }).catch(function (error) {
      status.textContent = window.location.protocol === "file:"
        ? "Answering your own question needs the site served over HTTP (for example " +
          "`sitegen serve`); the links below work from disk."
        : "Could not load the figures: " + error.message;
    });
  };

  section.hidden = false;
  field("model").addEventListener("change", function () {
    fillContexts(field("context").value);
    fillPrices(choiceOf().prices);
  });
  field("level").addEventListener("change", showThresholds);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    ask(choiceOf());
  });
  var params = new URLSearchParams(window.location.search);
  if (params.get("model")) field("model").value = params.get("model");
  fillContexts(params.get("context"));
  if (params.get("level")) field("level").value = params.get("level");
  ["min_tps", "max_ttft", "max_tbt", "users"].forEach(function (key) {
    field(key).value = params.get(key) || "";
  });
  var asked = {};
  params.forEach(function (value, key) {
    if (key.indexOf("price.") === 0) asked[key.slice(6)] = value;
  });
  fillPrices(asked);
  showThresholds();
  if (params.get("model") && params.get("context") && params.get("level")) ask(choiceOf());
})();
