// Draws every <div data-chart="ID"> from the JSON figure in <script id="ID" type="application/json">.
"use strict";
function drawCharts() {
  document.querySelectorAll("[data-chart]").forEach(function (el) {
    var source = document.getElementById(el.dataset.chart);
    if (!source || !window.Plotly) return;
    var figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(el, figure.data, figure.layout, { responsive: true, displaylogo: false });
    el.dataset.rendered = "1";
  });
}
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", drawCharts);
} else {
  drawCharts();
}
