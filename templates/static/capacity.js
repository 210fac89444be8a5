// /capacity/ for a reader's number of users (users= in the address): each cell names the
// smallest measured number of requests at or above the users at which the level is met, every
// smaller measured one meeting it too; or where it stops (does not meet, cannot tell); or that
// the setup was not measured that high. Never extrapolated, never interpolated. Each cell's
// data-a holds its measured ladder, where it stopped and how (capacity_page.ladder_data); the
// rule is capacity.answer_for_users (docs/capacity.md, "The reader's users").
(function () {
  "use strict";
  var form = document.getElementById("users-form");
  if (!form || !window.URLSearchParams) return;
  var status = document.getElementById("users-status");
  var input = form.elements.users;
  var plural = function (n) { return n + (n === 1 ? " request" : " requests"); };

  // "1,2,4|4|m" → the answer for ``users``: [state, concurrency].
  var answer = function (data, users) {
    var parts = data.split("|");
    var measured = parts[0] ? parts[0].split(",").map(Number) : [];
    var stoppedAt = parts[1] ? Number(parts[1]) : null;
    var rung = null;
    measured.forEach(function (n) { if (rung === null && n >= users) rung = n; });
    if (stoppedAt !== null && (rung === null || stoppedAt <= rung)) {
      return [parts[2] === "c" ? "cannot_tell" : "fails", stoppedAt];
    }
    return rung === null ? ["not_measured", measured[measured.length - 1]] : ["meets", rung];
  };
  var WORDS = { meets: "meets at ", fails: "does not meet at ", cannot_tell: "cannot tell at " };
  window.sitegenCapacity = { answer: answer };

  // Each cell's first line (users per accelerator and rank, or its verdict) as built, kept to
  // be put back; the answer takes its place, the lines beneath it stay.
  var cells = Array.prototype.slice.call(document.querySelectorAll("td[data-a]"));
  var first = cells.map(function (td) { return td.firstChild; });
  var built = first.map(function (node) { return node ? node.textContent : ""; });
  var show = function (users) {
    cells.forEach(function (td, i) {
      if (!first[i] || first[i].nodeType !== 3) return;
      if (users === null) { first[i].textContent = built[i]; return; }
      var found = answer(td.getAttribute("data-a"), users);
      first[i].textContent = found[0] === "not_measured"
        ? "not measured that high (" + plural(found[1]) + " at most)"
        : WORDS[found[0]] + plural(found[1]);
    });
    status.textContent = users === null ? "" : "Read for " + users + " users at once: each cell " +
      "names the smallest measured number of requests at or above " + users + " that meets the " +
      "level (every smaller one measured meeting it too), or where the level stops being met. " +
      "Nothing is extrapolated or interpolated.";
  };
  var keep = function (users) {
    var params = new URLSearchParams(window.location.search);
    if (users === null) params.delete("users"); else params.set("users", String(users));
    var text = params.toString();
    var address = (text ? "?" + text : window.location.pathname) + window.location.hash;
    history.replaceState(null, "", address);
  };
  var read = function (text) {
    var value = Math.floor(Number(text));
    return text && isFinite(value) && value >= 1 ? value : null;
  };
  form.hidden = false;
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var users = read(input.value);
    keep(users);
    show(users);
  });
  document.getElementById("users-clear").addEventListener("click", function () {
    input.value = "";
    keep(null);
    show(null);
  });
  var start = read(new URLSearchParams(window.location.search).get("users") || "");
  if (start !== null) {
    input.value = String(start);
    show(start);
  }
})();
