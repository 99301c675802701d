// Equations wider than the column (a phone, a long constraint) are scaled down to fit, to no
// less than 60 % of their size. MathJax cannot break a formula across lines; a display
// equation still too wide scrolls inside its own box (fit.css), never the page. Runs once
// MathJax has typeset the page, and after a resize.
(function () {
  function fit() {
    var article = document.querySelector(".bd-article");
    if (!article) return;
    var column = article.clientWidth;
    article.querySelectorAll("mjx-container").forEach(function (eq) {
      eq.style.fontSize = "";
      var display = eq.getAttribute("display") === "true";
      var available = display ? eq.clientWidth : column;
      var needed = display ? eq.scrollWidth : eq.getBoundingClientRect().width;
      if (needed > available && needed > 0) {
        eq.style.fontSize = Math.max(0.6, (available / needed) * 0.98) * 100 + "%";
      }
    });
  }
  function whenTypeset() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    }
  }
  window.addEventListener("load", whenTypeset);
  var timer;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(fit, 150);
  });
})();
