// A stored game stepped through: one section a position, shown by the buttons or the arrow keys;
// the URL's #ply=N names the position shown, so it can be shared.
"use strict";

const root = document.getElementById("replay");
const last = Number(root.dataset.plies);
let at = 0;

function show(k) {
  at = Math.max(0, Math.min(last, k));
  for (const s of root.querySelectorAll("section.ply")) s.hidden = Number(s.dataset.ply) !== at;
  document.getElementById("at").textContent = "move " + at + " of " + last;
  history.replaceState(null, "", "#ply=" + at);
  document.getElementById("link").href = location.href;
  root.dataset.at = String(at);
}

document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("back").addEventListener("click", () => show(at - 1));
document.getElementById("forward").addEventListener("click", () => show(at + 1));
document.getElementById("last").addEventListener("click", () => show(last));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowLeft") show(at - 1);
  if (e.key === "ArrowRight") show(at + 1);
});
const m = /ply=(\d+)/.exec(location.hash);
show(m ? Number(m[1]) : 0);
