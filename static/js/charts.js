// Draws every <div data-chart="ID"> from the JSON figure in <script id="ID" type="application/json">.
// plotly.min.js (vendored, ~4.6 MB) is fetched only when the page has a chart, after the page is usable.
"use strict";
(function () {
  var me = document.currentScript;
  function draw() {
    document.querySelectorAll("[data-chart]").forEach(function (el) {
      var source = document.getElementById(el.dataset.chart);
      if (!source) return;
      var figure = JSON.parse(source.textContent);
      window.Plotly.newPlot(el, figure.data, figure.layout, { responsive: true, displaylogo: false });
      el.dataset.rendered = "1";
    });
  }
  function start() {
    if (!document.querySelector("[data-chart]")) return;
    if (window.Plotly) return draw();
    var script = document.createElement("script");
    script.src = me.dataset.plotlySrc;
    script.onload = draw;
    document.head.appendChild(script);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
