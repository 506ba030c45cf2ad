"use strict";
window.addEventListener("DOMContentLoaded", function () {
  var el = document.getElementById("swagger-ui");
  if (!el || !window.SwaggerUIBundle) return;
  window.SwaggerUIBundle({ url: el.dataset.schemaUrl, dom_id: "#swagger-ui", deepLinking: true });
});
