// A train sweep's settings as learning curves: for each setting, the median over its seeds of the
// share of games lost at each mark, its 95% interval shaded (GET /sweeps puts the figures in
// data-curves, from bridge.sweep.curves).  This file only draws.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const COLOURS = ["#c0392b", "#2e86c1", "#1e8449", "#b35c00", "#7d3c98", "#117a65", "#7b7d7d", "#d4ac0d"];

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function drawSweep(box) {
  const settings = JSON.parse(box.dataset.curves);
  const W = 720, H = 300, L = 56, B = 36, R = 16, T = 14 + 16 * Math.ceil(settings.length / 3);
  const s = svg("svg", {width: W, height: H + T - 30, viewBox: `0 0 ${W} ${H + T - 30}`, role: "img",
    "aria-label": "sweep " + box.dataset.sweep + " learning curves"});
  const maxG = Math.max(1, ...settings.map((c) => c.games[c.games.length - 1] || 0));
  const x = (g) => L + (W - L - R) * g / maxG;
  const y = (v) => T + (H - 30 - B) * (1 - v);
  s.append(svg("rect", {x: L, y: T, width: W - L - R, height: H - 30 - B, class: "plot"}));
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    s.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
    s.append(svg("text", {x: L - 6, y: y(v) + 4, class: "tick", "text-anchor": "end"}, Math.round(v * 100) + "%"));
  }
  s.append(svg("text", {x: (L + W - R) / 2, y: H + T - 36, class: "tick", "text-anchor": "middle"},
    "games: " + maxG.toLocaleString()));
  settings.forEach((c, k) => {
    const colour = COLOURS[k % COLOURS.length];
    const upper = c.games.map((g, i) => `${x(g).toFixed(1)},${y(c.high[i]).toFixed(1)}`);
    const lower = c.games.map((g, i) => `${x(g).toFixed(1)},${y(c.low[i]).toFixed(1)}`).reverse();
    s.append(svg("polygon", {points: upper.concat(lower).join(" "), fill: colour, "fill-opacity": 0.15, class: "band"}));
    s.append(svg("polyline", {points: c.games.map((g, i) => `${x(g).toFixed(1)},${y(c.median[i]).toFixed(1)}`).join(" "),
      stroke: colour, class: "median", "data-setting": c.setting}));
    s.append(svg("text", {x: L + 8 + 220 * (k % 3), y: 14 + 16 * Math.floor(k / 3), fill: colour, class: "legend"},
      c.setting + " (" + c.seeds + " seeds)"));
  });
  box.replaceChildren(s);
}

document.querySelectorAll(".sweepcurve").forEach(drawSweep);
