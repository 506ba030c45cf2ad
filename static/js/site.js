// Behaviour every page shares, kept out of the HTML (the Content-Security-Policy allows no inline script):
// a form with data-confirm="question" is submitted only once the visitor confirms.
"use strict";
document.addEventListener("submit", function (event) {
  var question = event.target.dataset ? event.target.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});
