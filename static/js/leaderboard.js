// The leaderboard's column chooser (templates/leaderboard/_columns.html). Without scripts it is a GET form
// (?cols=...); with them a ticked or cleared box shows or hides its column at once, through the table's
// hide-<key> classes (static/css/site.css), and the choice is kept in the URL, the filter form and every link
// marked data-keep-cols (sorting, paging, chips and tiers), so a shared link shows the same columns.
"use strict";
(function () {
  function withColumns(href, keys) {
    var url = new URL(href, window.location.href);
    url.searchParams.delete("cols");
    keys.forEach(function (key) {
      url.searchParams.append("cols", key);
    });
    return url;
  }

  function init(chooser) {
    var table = document.getElementById(chooser.dataset.table);
    var form = chooser.querySelector("form");
    if (!table || !form) return;
    var boxes = Array.prototype.slice.call(form.querySelectorAll('input[type="checkbox"][name="cols"]'));
    var submit = form.querySelector("[data-column-submit]");
    if (submit) submit.hidden = true; // applied at once

    function apply() {
      var keys = [];
      boxes.forEach(function (box) {
        table.classList.toggle("hide-" + box.value, !box.checked);
        if (box.checked) keys.push(box.value);
      });
      table.classList.add("cols-explicit"); // picked by the reader: a narrow screen hides none of them
      var here = withColumns(window.location.href, keys);
      window.history.replaceState(null, "", here.pathname + here.search + here.hash);
      document.querySelectorAll("a[data-keep-cols]").forEach(function (link) {
        var target = withColumns(link.getAttribute("href"), keys);
        link.setAttribute("href", target.pathname + target.search);
      });
      document.querySelectorAll("form[data-keep-cols]").forEach(function (other) {
        other.querySelectorAll('input[type="hidden"][name="cols"]').forEach(function (input) {
          input.remove();
        });
        keys.forEach(function (key) {
          var input = document.createElement("input");
          input.type = "hidden";
          input.name = "cols";
          input.value = key;
          other.appendChild(input);
        });
      });
    }

    boxes.forEach(function (box) {
      box.addEventListener("change", apply);
    });
  }

  document.querySelectorAll("[data-column-chooser]").forEach(init);
})();
