// Display equations wider than the column (a phone, a long constraint) are scaled down to fit,
// to no less than 60 % of their size; beyond that they scroll inside their own box
// (fit.css), never the page. Runs once MathJax has typeset the page, and on resizes.
(function () {
  function fit() {
    document.querySelectorAll('.bd-article mjx-container[display="true"]').forEach(function (eq) {
      eq.style.fontSize = "";
      var ratio = eq.clientWidth / eq.scrollWidth;
      if (ratio < 1) {
        eq.style.fontSize = Math.max(0.6, ratio * 0.98) * 100 + "%";
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
