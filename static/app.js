// Every behaviour of the pages, here rather than inline: the Content-Security-Policy refuses
// inline scripts and handlers.

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

// Colour swatches take their colour from data-colour (no style attributes under the policy; the
// CSSOM is allowed).
htmx.onLoad(function (root) {
  root.querySelectorAll("[data-colour]").forEach(function (swatch) {
    swatch.style.backgroundColor = swatch.dataset.colour;
  });
});

// A select marked data-submit-on-change submits its form when a choice is made; one inside an
// htmx form lets htmx send it.
document.addEventListener("change", function (event) {
  var target = event.target;
  if (!target.matches || !target.matches("[data-submit-on-change]")) return;
  if (target.form.hasAttribute("hx-get")) htmx.trigger(target.form, "submit");
  else target.form.submit();
});

// --- The Data Screen's side panel -------------------------------------------------------------

function pane() {
  return document.getElementById("detail-pane");
}

function openedInteraction() {
  var detail = document.querySelector("#detail-pane #interaction-detail");
  return detail ? detail.dataset.interaction : null;
}

// The table row of the open interaction is marked and scrolled into view (not the page).
function markSelectedRow() {
  var id = openedInteraction();
  document.querySelectorAll("#interactions tbody tr.selected").forEach(function (row) {
    row.classList.remove("selected");
    row.removeAttribute("aria-current");
  });
  var row = id && document.getElementById("row-" + id);
  if (!row) return;
  row.classList.add("selected");
  row.setAttribute("aria-current", "true");
  row.scrollIntoView({ block: "nearest" });
}

htmx.onLoad(function (root) {
  if (["detail-pane", "screen", "screen-layout"].indexOf(root.id) !== -1 || root === document.body) markSelectedRow();
  // After a property is chosen, bring its first highlighted span into view.
  var mark = root.querySelector && root.querySelector("#detail-pane mark.evidence, .detail-page mark.evidence");
  if (mark && root !== document.body) mark.scrollIntoView({ block: "center" });
});

// Closing keeps the table as it is and takes the interaction out of the URL.
function closePane() {
  var panel = pane();
  if (!panel || panel.hidden || !panel.querySelector("[data-pane-close]")) return;
  panel.hidden = true;
  var url = new URL(window.location.href);
  url.searchParams.delete("i");
  url.searchParams.delete("highlight");
  history.pushState({}, "", url);
  markSelectedRow();
}

document.addEventListener("click", function (event) {
  var target = event.target;
  if (target.closest("[data-pane-close]")) {
    event.preventDefault();
    closePane();
    return;
  }
  if (target.closest("[data-open-help]")) {
    toggleHelp();
    return;
  }
  var jump = target.closest("[data-jump]");
  if (jump) {
    // Evidence list: go to the mark in the text, inside the panel, and give it the focus.
    var mark = document.getElementById(jump.dataset.jump);
    if (mark) {
      event.preventDefault();
      mark.scrollIntoView({ block: "center" });
      mark.focus();
    }
    return;
  }
  // A click anywhere on a row opens its interaction, as its id link does.
  var row = target.closest("#interactions tbody tr");
  if (row && !target.closest("a, button, input, select, label")) {
    var link = row.querySelector(".open-interaction");
    if (link) link.click();
  }
});

// The panel's width: dragged (or arrow keys on the handle), kept in localStorage.
var PANE_WIDTH = "evalsite.paneWidth";

function setPaneWidth(pixels) {
  var width = Math.max(320, Math.min(window.innerWidth * 0.92, pixels));
  document.documentElement.style.setProperty("--pane-width", width + "px");
  try {
    localStorage.setItem(PANE_WIDTH, String(Math.round(width)));
  } catch (error) {
    // Private browsing: the width lasts for this page only.
  }
}

(function restorePaneWidth() {
  var stored = null;
  try {
    stored = localStorage.getItem(PANE_WIDTH);
  } catch (error) {
    stored = null;
  }
  if (stored) document.documentElement.style.setProperty("--pane-width", stored + "px");
})();

document.addEventListener("pointerdown", function (event) {
  if (!event.target.matches("[data-pane-resizer]")) return;
  event.preventDefault();
  var move = function (moved) {
    setPaneWidth(window.innerWidth - moved.clientX);
  };
  var stop = function () {
    document.removeEventListener("pointermove", move);
    document.removeEventListener("pointerup", stop);
  };
  document.addEventListener("pointermove", move);
  document.addEventListener("pointerup", stop);
});

// --- Keys: j/k next and previous, g/b good and bad, n note, Esc close, ? help ---------------------

function toggleHelp() {
  var dialog = document.getElementById("shortcuts");
  if (!dialog) return;
  if (dialog.open) dialog.close();
  else dialog.showModal();
}

function typing(element) {
  return element && (element.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName));
}

// Set while the panel is being replaced: alone, or with the table when j or k crosses a page's end.
var PANE_TARGETS = ["detail-pane", "screen-layout"];
var paneLoading = false;

function replacesPane(event) {
  var target = event.detail.target;
  return Boolean(target && PANE_TARGETS.indexOf(target.id) !== -1);
}

document.addEventListener("htmx:beforeRequest", function (event) {
  if (replacesPane(event)) paneLoading = true;
});
// The panel is ready for keys once htmx has processed it (its forms post through htmx). A note
// saved with Enter leaves the focus in the new panel's note field (htmx keeps the focus on an
// element of the same id): it goes back to the panel, so that the next j or g is a key again.
htmx.onLoad(function (root) {
  var panel = root.id === "detail-pane" ? root : root.querySelector && root.querySelector("#detail-pane");
  if (!panel) return;
  // htmx announces the page's own load a moment after it starts: a panel requested since (a key
  // pressed at once) is still loading.
  if (root === document.body && paneLoading) return;
  var active = document.activeElement;
  if (active && panel.contains(active) && typing(active)) {
    active.blur();
    panel.setAttribute("tabindex", "-1"); // focusable by script, not a tab stop
    panel.focus({ preventScroll: true });
  }
  panel.dataset.ready = "1";
  paneLoading = false;
  runQueuedKeys();
});
// A panel that failed to load: the keys waiting for it are dropped (they were meant for it). Other
// requests (the pass rates) neither hold nor drop keys.
document.addEventListener("htmx:afterRequest", function (event) {
  if (!event.detail.successful && replacesPane(event)) {
    paneLoading = false;
    queuedKeys = [];
  }
});

// Keys pressed while the next interaction loads wait their turn, in order: five quick j's move
// five rows, each interaction shown on the way (none is skipped unseen). Past a page's last row the
// next page replaces the table and the panel in place (no new document, which would drop the keys
// pressed while it loads). Keys wait too until htmx has processed the page: before, a row's link
// would load a whole page.
var KEYS = ["j", "k", "ArrowDown", "ArrowUp", "g", "b", "n", "Escape", "?"];
var QUEUE_LIMIT = 50;
var queuedKeys = [];
var pageReady = false;

function queueKey(key) {
  if (queuedKeys.length < QUEUE_LIMIT) queuedKeys.push(key);
}

htmx.onLoad(function (root) {
  if (root !== document.body) return;
  pageReady = true;
  runQueuedKeys();
});

function runQueuedKeys() {
  while (queuedKeys.length && pageReady && !paneLoading) {
    if (typing(document.activeElement)) {
      queuedKeys = []; // `n` opened the note: what follows was meant for it, not for the screen
      return;
    }
    act(queuedKeys.shift());
  }
}

function move(step) {
  var rows = Array.prototype.slice.call(document.querySelectorAll("#interactions tbody tr[data-interaction]"));
  if (!rows.length) return;
  var current = rows.findIndex(function (row) {
    return row.dataset.interaction === openedInteraction();
  });
  var next = current === -1 ? (step > 0 ? 0 : rows.length - 1) : current + step;
  if (next >= 0 && next < rows.length) {
    rows[next].querySelector(".open-interaction").click();
    return;
  }
  // Past the end of the page: the panel's link names the next (or previous) page and its row.
  var link = document.querySelector(step > 0 ? "[data-pane-next]" : "[data-pane-previous]");
  if (link && link.href) {
    // The answer names its address (HX-Push-Url): it enters the history before the swap, so before
    // any key waiting opens the next row.
    htmx.ajax("GET", link.href, { target: "#screen-layout", swap: "outerHTML" });
  }
}

// What a key does; false when it does nothing here.
function act(key) {
  var panel = pane();
  var open = panel && !panel.hidden;
  var form = open ? panel.querySelector("#annotate-form") : null;
  switch (key) {
    case "j":
    case "k":
    case "ArrowDown":
    case "ArrowUp":
      if (!document.getElementById("interactions") || (key.startsWith("Arrow") && !open)) return false;
      move(key === "j" || key === "ArrowDown" ? 1 : -1);
      return true;
    case "g":
    case "b":
      if (!form) return false;
      form.querySelector('[data-annotate="' + (key === "g" ? "good" : "bad") + '"]').click();
      return true;
    case "n":
      if (!form) return false;
      form.querySelector("input[name=reason]").focus();
      return true;
    case "Escape":
      closePane();
      return true;
    case "?":
      toggleHelp();
      return true;
  }
  return false;
}

document.addEventListener("keydown", function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  var active = document.activeElement;
  if (typing(active)) {
    if (event.key === "Escape") active.blur();
    return;
  }
  var dialog = document.getElementById("shortcuts");
  if (dialog && dialog.open) return; // the dialog handles Esc itself
  if (KEYS.indexOf(event.key) === -1) return;
  if (!pageReady || paneLoading) {
    queueKey(event.key);
    event.preventDefault();
    return;
  }
  if (act(event.key)) event.preventDefault();
});

// The resize handle answers the arrow keys too.
document.addEventListener("keydown", function (event) {
  if (!event.target.matches || !event.target.matches("[data-pane-resizer]")) return;
  if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
  var width = pane().getBoundingClientRect().width;
  setPaneWidth(width + (event.key === "ArrowLeft" ? 40 : -40));
  event.stopPropagation();
});

// Back and forward re-open what the URL says.
window.addEventListener("popstate", function () {
  if (document.getElementById("interactions")) window.location.reload();
});
