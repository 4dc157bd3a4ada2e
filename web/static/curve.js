// A run's learning curve drawn as SVG from its committed points (GET /api/runs/ID, or
// /api/curve?agent=&started= for a run still going, fetched again every 2 s while it grows).
"use strict";

const box = document.getElementById("curve");
const SVGNS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function url() {
  if (box.dataset.run) return "/api/runs/" + box.dataset.run;
  return "/api/curve?" + new URLSearchParams({agent: box.dataset.agent, started: box.dataset.started});
}

// each stretch between two commits: [games at its end, share lost, share drawn]
function stretches(points) {
  const out = [];
  let g0 = 0, l0 = 0, d0 = 0;
  for (const p of points) {
    const n = p.games - g0;
    if (n > 0) out.push([p.games, (p.lost - l0) / n, (p.draws - d0) / n]);
    g0 = p.games; l0 = p.lost; d0 = p.draws;
  }
  return out;
}

// the plot's box, its grid of shares (0-100%, left) and the games (below)
function frame(s, W, H, L, R, T, B, y, maxG) {
  s.append(svg("rect", {x: L, y: T, width: W - L - R, height: H - T - B, class: "plot"}));
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    s.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
    s.append(svg("text", {x: L - 6, y: y(v) + 4, class: "tick", "text-anchor": "end"}, Math.round(v * 100) + "%"));
  }
  s.append(svg("text", {x: (L + W - R) / 2, y: H - 6, class: "tick", "text-anchor": "middle"},
    "games: " + maxG.toLocaleString()));
}

// a 2048 run (a game of score played by the n-tuple learner): at each commit, the share of the last
// games whose highest tile reached 1024, 2048, ... and their mean score (on its own scale, right)
const TILE_COLOURS = {"1024": "#b9770e", "2048": "#1e8449", "4096": "#2e86c1", "8192": "#7d3c98"};

function drawTiles(data, points) {
  const W = 720, H = 300, L = 56, B = 36, T = 30, R = 64;
  const s = svg("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "2048 learning curve"});
  const maxG = points[points.length - 1].games || 1;
  const maxScore = Math.max(1, ...points.map((p) => p.strength.mean_score || 0));
  const x = (g) => L + (W - L - R) * g / maxG;
  const y = (v) => T + (H - T - B) * (1 - v);
  frame(s, W, H, L, R, T, B, y, maxG);
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    s.append(svg("text", {x: W - R + 6, y: y(v) + 4, class: "tick"}, Math.round(v * maxScore).toLocaleString()));
  }
  let legend = L + 8;
  for (const tile of Object.keys(points[points.length - 1].strength.reached || {})) {
    const pts = points.map((p) => `${x(p.games).toFixed(1)},${y((p.strength.reached || {})[tile] || 0).toFixed(1)}`);
    const colour = TILE_COLOURS[tile] || "#555";
    s.append(svg("polyline", {points: pts.join(" "), class: "tile", stroke: colour, id: "tile-" + tile}));
    s.append(svg("text", {x: legend, y: 16, class: "legend", fill: colour}, tile));
    legend += 46;
  }
  const score = points.map((p) => `${x(p.games).toFixed(1)},${y((p.strength.mean_score || 0) / maxScore).toFixed(1)}`);
  s.append(svg("polyline", {points: score.join(" "), class: "score", id: "score-line"}));
  s.append(svg("text", {x: legend + 8, y: 16, class: "legend score"}, "mean score (right)"));
  box.replaceChildren(s);
  box.dataset.points = String((data.points || []).length);
  const caption = document.getElementById("curve-caption");
  if (caption) caption.textContent = "Share of the games between two commits whose highest tile reached 1024, 2048, " +
    "4096 and 8192 (left), and their mean score (dashed, right)." + (box.dataset.run ? "" : " Redrawn every 2 s while the run goes on.");
}

// a cfr run (a game of hidden information): the exploitability measured exactly at each commit, on a
// logarithmic scale, against the iterations
function drawExploitability(data, points) {
  const W = 720, H = 300, L = 64, B = 36, T = 30, R = 16;
  const s = svg("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "exploitability curve"});
  const maxG = points[points.length - 1].games || 1;
  const logs = points.map((p) => Math.log10(Math.max(p.strength.exploitability, 1e-12)));
  const top = Math.ceil(Math.max(...logs)), bottom = Math.min(top - 1, Math.floor(Math.min(...logs)));
  const x = (g) => L + (W - L - R) * g / maxG;
  const y = (v) => T + (H - T - B) * (top - v) / (top - bottom);
  s.append(svg("rect", {x: L, y: T, width: W - L - R, height: H - T - B, class: "plot"}));
  for (let v = bottom; v <= top; v++) {
    s.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
    s.append(svg("text", {x: L - 6, y: y(v) + 4, class: "tick", "text-anchor": "end"}, "1e" + v));
  }
  s.append(svg("text", {x: (L + W - R) / 2, y: H - 6, class: "tick", "text-anchor": "middle"},
    "iterations: " + maxG.toLocaleString()));
  const pts = points.map((p, i) => `${x(p.games).toFixed(1)},${y(logs[i]).toFixed(1)}`);
  s.append(svg("polyline", {points: pts.join(" "), class: "strength", id: "exploitability-line"}));
  s.append(svg("text", {x: L + 8, y: 16, class: "legend strength"}, "exploitability (exact, log scale)"));
  box.replaceChildren(s);
  box.dataset.points = String((data.points || []).length);
  const caption = document.getElementById("curve-caption");
  if (caption) caption.textContent = "What a best-responding opponent takes from the average strategy, measured " +
    "exactly at each commit (0 at an equilibrium)." + (box.dataset.run ? "" : " Redrawn every 2 s while the run goes on.");
}

function draw(data) {
  const tiles = (data.points || []).filter((p) => p.strength && p.strength.reached);
  if (tiles.length) return drawTiles(data, tiles);
  const exploit = (data.points || []).filter((p) => p.strength && typeof p.strength.exploitability === "number");
  if (exploit.length) return drawExploitability(data, exploit);
  const W = 720, H = 300, L = 56, B = 36, T = 30, R = 16;
  const s = svg("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "learning curve"});
  const rows = stretches(data.points || []);
  const maxG = rows.length ? rows[rows.length - 1][0] : 1;
  const x = (g) => L + (W - L - R) * g / maxG;
  const y = (v) => T + (H - T - B) * (1 - v);
  frame(s, W, H, L, R, T, B, y, maxG);
  const line = (k, cls) => {
    if (!rows.length) return;
    const pts = [[0, rows[0][k]], ...rows.map((r) => [r[0], r[k]])].map(([g, v]) => `${x(g).toFixed(1)},${y(v).toFixed(1)}`);
    s.append(svg("polyline", {points: pts.join(" "), class: cls}));
  };
  line(1, "lost");
  line(2, "drawn");
  s.append(svg("text", {x: L + 8, y: 16, class: "legend lost"}, "lost"));
  s.append(svg("text", {x: L + 48, y: 16, class: "legend drawn"}, "drawn"));
  const reached = strength(data.points || []);
  if (reached.length) {
    const pts = reached.map(([g, v]) => `${x(g).toFixed(1)},${y(v).toFixed(1)}`);
    s.append(svg("polyline", {points: pts.join(" "), class: "strength", id: "strength-line"}));
    for (const [g, v] of reached) s.append(svg("circle", {cx: x(g).toFixed(1), cy: y(v).toFixed(1), r: 2.5, class: "strength"}));
    const kind = (data.points.find((p) => p.strength) || {}).strength.kind;
    s.append(svg("text", {x: L + 100, y: 16, class: "legend strength"},
      kind === "accuracy" ? "strength: best moves on the fixed positions" : "strength: sides played perfectly (exact)"));
  }
  box.replaceChildren(s);
  box.dataset.points = String((data.points || []).length);
  const cps = (data.results && data.results.checkpoints) || [];
  const cp = document.getElementById("checkpoints");
  if (cps.length) {
    const last = cps[cps.length - 1];
    const when = "Last exact checkpoint" + (last.games ? " (after " + last.games.toLocaleString() + " games)" : "");
    cp.textContent = last.expected_score !== undefined      // a game of score: the expected score beside the best
      ? when + ": expects a score of " + last.expected_score.toFixed(3) + (last.perfect ? ", as best play does" :
        " (best play " + last.best_expected_score.toFixed(3) + ")")
      : when + ": as first " + (last.as_first.perfect ? "perfect" : last.as_first.guaranteed) +
        ", as second " + (last.as_second.perfect ? "perfect" : last.as_second.guaranteed);
  }
}

// what the agent had reached at each commit: [games, share] (move accuracy, or the share of sides
// on which the exact judgement says perfect)
function strength(points) {
  const out = [];
  for (const p of points) {
    const st = p.strength;
    if (!st) continue;
    const v = st.kind === "accuracy" ? st.accuracy : st.share;
    if (typeof v === "number") out.push([p.games, v]);
  }
  return out;
}

async function refresh() {
  try {
    const r = await fetch(url());
    const data = await r.json();
    if (r.ok) draw(data);
    if (!box.dataset.run) setTimeout(refresh, 2000);
  } catch (e) {
    setTimeout(refresh, 4000);
  }
}

refresh();
