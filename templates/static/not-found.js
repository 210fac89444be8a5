// The 404 page, which a host serves at any missing address: its links start at "/" (they
// cannot be relative), which is wrong for a site served under a path such as /repo/. The page
// asks for this file from each folder above its address, nearest first; the copy that loads
// is the site's own, so its address names the site's root. The first copy to run points every
// link there and adds the site's icon; any other copy that loads does nothing. Without
// JavaScript the links stay at "/" and there is no icon.
(function () {
  "use strict";
  var html = document.documentElement;
  var script = document.currentScript;
  var mark = document.querySelector("meta[name=sitegen-icon]");
  if (html.hasAttribute("data-root-found") || !script || !mark) return;
  var configured = html.getAttribute("data-root") || "/";
  var path = new URL(script.src).pathname;
  var root = path.slice(0, path.lastIndexOf("/assets/") + 1);
  document.querySelectorAll("a[href], link[href]").forEach(function (element) {
    var href = element.getAttribute("href");
    if (href.indexOf(configured) !== 0) return;
    element.setAttribute("href", root + href.slice(configured.length));
  });
  var icon = document.createElement("link");
  icon.rel = "icon";
  icon.type = "image/svg+xml";
  icon.href = root + mark.getAttribute("content").slice(configured.length);
  document.head.appendChild(icon);
  html.setAttribute("data-root", root);
  html.setAttribute("data-root-found", "");
})();
