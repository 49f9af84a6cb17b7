// pi_cli's session viewer. The page embeds every entry as [id, parent, html] (html drawn and
// escaped by pi_cli when it exported the page); this draws one branch at a time, newest entries
// first with a button for earlier ones, switches branches from the tree, and collapses cards.
// Without it the page still shows the current branch. Nothing here loads from the network.
(function () {
  "use strict";
  var PAGE = 150; // entries drawn at once; a button draws the next earlier ones
  var data = JSON.parse(document.getElementById("session-data").textContent);
  var parent = {}, html = {}, children = {};
  data.entries.forEach(function (row) {
    parent[row[0]] = row[1];
    html[row[0]] = row[2];
    var key = row[1] || "";
    (children[key] = children[key] || []).push(row[0]);
  });
  var list = document.getElementById("entries");
  var rows = document.querySelectorAll("nav#tree a[data-target]");
  var path = [], drawnFrom = 0;

  // The newest end of the branch through ``id``: its last child, and so on down.
  function newestLeaf(id) {
    var steps = 0;
    while (children[id] && children[id].length && steps++ < data.entries.length) {
      id = children[id][children[id].length - 1];
    }
    return id;
  }

  // Root → leaf, the entries that show something.
  function branch(leaf) {
    var out = [], id = leaf, steps = 0;
    while (id && html.hasOwnProperty(id) && steps++ < data.entries.length) {
      if (html[id]) out.push(id);
      id = parent[id];
    }
    return out.reverse();
  }

  function earlierButton() {
    var button = document.createElement("button");
    button.className = "earlier";
    button.textContent = "show " + Math.min(PAGE, drawnFrom) + " earlier entries (" + drawnFrom + " not shown)";
    button.addEventListener("click", function () {
      var from = Math.max(0, drawnFrom - PAGE);
      var chunk = path.slice(from, drawnFrom).map(function (id) { return html[id]; }).join("\n");
      button.remove();
      list.insertAdjacentHTML("afterbegin", chunk);
      drawnFrom = from;
      if (drawnFrom > 0) list.insertBefore(earlierButton(), list.firstChild);
    });
    return button;
  }

  function show(leaf) {
    path = branch(leaf);
    drawnFrom = Math.max(0, path.length - PAGE);
    list.innerHTML = path.slice(drawnFrom).map(function (id) { return html[id]; }).join("\n");
    if (drawnFrom > 0) list.insertBefore(earlierButton(), list.firstChild);
    var onPath = {}, id = leaf, steps = 0, last = null;
    while (id && steps++ < data.entries.length) { onPath[id] = true; id = parent[id]; }
    rows.forEach(function (row) {
      var on = !!onPath[row.dataset.target];
      row.classList.toggle("on", on);
      row.classList.remove("leaf");
      if (on) last = row;
    });
    if (last) last.classList.add("leaf"); // the newest message of the branch shown
    document.body.dataset.leaf = leaf;
  }

  rows.forEach(function (row) {
    row.addEventListener("click", function (event) {
      event.preventDefault();
      show(newestLeaf(row.dataset.target));
      history.replaceState(null, "", "#" + encodeURIComponent(row.dataset.target));
    });
  });

  function setAll(selector, open) {
    document.querySelectorAll(selector).forEach(function (item) { item.open = open; });
  }
  var actions = {
    "expand-all": function () { setAll("main details", true); },
    "collapse-tools": function () { setAll("main details.tool", false); },
    "toggle-thinking": function () {
      var items = document.querySelectorAll("main details.thinking");
      var open = !(items.length && items[0].open);
      items.forEach(function (item) { item.open = open; });
    }
  };
  document.querySelectorAll(".toolbar button[data-action]").forEach(function (button) {
    button.addEventListener("click", function () { actions[button.dataset.action](); });
  });
  document.querySelectorAll("[data-needs-script]").forEach(function (item) { item.hidden = false; });

  var start = decodeURIComponent(location.hash.slice(1));
  show(start && html.hasOwnProperty(start) ? newestLeaf(start) : data.leaf);
})();
