// Draw every chart whose figure the server emitted with json_script, on page load and after
// each htmx swap.
htmx.onLoad(function (root) {
  root.querySelectorAll("[data-figure]").forEach(function (target) {
    var source = document.getElementById(target.dataset.figure);
    if (!source || target.dataset.drawn) return;
    var figure = JSON.parse(source.textContent);
    target.dataset.drawn = "1";
    Plotly.newPlot(target, figure.data, figure.layout, { displaylogo: false, responsive: true });
  });
});

// After a property is clicked, bring its first highlighted span into view.
htmx.onLoad(function (root) {
  var mark = root.querySelector && root.querySelector("mark.evidence");
  if (mark) mark.scrollIntoView({ block: "center" });
});

// A select marked data-submit-on-change submits its form when a choice is made (no inline
// handlers: the Content-Security-Policy refuses them).
document.addEventListener("change", function (event) {
  if (event.target.matches && event.target.matches("[data-submit-on-change]")) event.target.form.submit();
});
