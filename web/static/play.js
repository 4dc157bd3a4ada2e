// The play page: a board drawn as SVG from the game's cells, moves by clicking it (or the move
// buttons), the opponent's replies from POST /api/move, every move's value beside the learned
// agents' from GET /api/view, and the finished game stored (and taught) by POST /api/finish.
// Everything shown comes from the server; this file only draws and sends what was clicked.
"use strict";

// The server's secret, written into its own page: every POST carries it (web/trust.py).
const TOKEN = document.querySelector("meta[name=educable-token]").content;

const root = document.getElementById("play");
const SVGNS = "http://www.w3.org/2000/svg";
const game = root.dataset.game;
const opponent = root.dataset.opponent;
const human = root.dataset.human;
const readOnly = root.dataset.readOnly === "yes";
const learned = root.dataset.learned ? root.dataset.learned.split("\n") : [];
const shown = Array.from(document.querySelectorAll("#shown option:checked")).map((o) => o.value);

let start = root.dataset.position || null;   // null: the game's own start
let positions = [];                           // the positions of this game, the current one last
let movers = [];                              // who is to move in each
let moves = [];                               // the moves played, in order
let view = null;                              // GET /api/view's answer for the current position
let picked = [];                              // cells clicked towards a move of several cells
let busy = false;
let stored = false;

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function showError(text) {
  document.getElementById("error").textContent = text || "";
}

async function getJSON(url) {
  const r = await fetch(url);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

async function postJSON(url, body) {
  const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json", "X-Educable-Token": TOKEN}, body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function viewURL(position) {
  const q = new URLSearchParams({game});
  if (position !== null) q.set("position", position);
  for (const a of shown) q.append("agent", a);
  return "/api/view?" + q.toString();
}

// ------------------------------------------------------------------ values

// A game of chance's or of score's value for the mover, as query gives it beside its words (the
// chance of winning in percent, the expected result, or the points); null for a game without chance.
function chanceNumber(m) {
  return m.value === undefined || m.value === null ? null : Number(m.value);
}

function rank(exact, mover) {
  if (exact === mover) return 2;
  if (exact === "draw") return 1;
  if (exact === "unknown" || exact === undefined || exact === null) return null;
  return 0;
}

function exactWords(m, query) {
  if (chanceNumber(m) !== null) return m.exact;      // a chance or a score, in words already
  const p = query.perfect && query.perfect[m.move];
  if (p && p.moves) return (m.exact === "draw" ? "draw" : m.exact + " wins") + " in " + p.moves + " moves";   // the winner's
  if (m.exact === "draw" || m.exact === "unknown") return m.exact;
  return m.exact + " wins" + (m.plies ? " in " + m.plies : "");
}

function drawValues() {
  const head = document.querySelector("#values thead");
  const body = document.querySelector("#values tbody");
  head.replaceChildren();
  body.replaceChildren();
  const query = view.query;
  const source = document.getElementById("source");
  if (!query) {
    source.textContent = "";
    document.getElementById("scales").replaceChildren();
    return;
  }
  source.textContent = "(" + query.exact_source + ")";
  const hr = el("tr");
  hr.append(el("th", {}, "move"), el("th", {}, "perfect play"));
  for (const a of query.agents) hr.append(el("th", {class: "name", title: a.learner + ": " + (a.scale || "")}, a.agent));
  head.append(hr);
  const scales = document.getElementById("scales");            // what each agent's numbers mean
  scales.replaceChildren(...query.agents.filter((a) => a.scale).map((a) =>
    el("span", {class: "scale", "data-agent": a.agent}, a.agent + " (" + a.learner + "): " + a.scale + ". ")));
  const mover = query.to_move;
  const numbers = query.moves.map((m) => chanceNumber(m));
  const top = Math.max(...numbers.filter((v) => v !== null));       // a game of chance: the best moves rank 2
  const ranks = query.moves.map((m, i) => numbers[i] !== null ? (mover === "chance" ? null : Math.abs(numbers[i] - top) < 1e-9 ? 2 : 0)
    : rank(m.exact, mover));
  const best = Math.max(...ranks.filter((r) => r !== null));
  const preferred = query.agents.map((a) => {
    let top = null;
    for (const m of query.moves) {
      const v = a.values[m.move];
      if (v !== undefined && v !== null && (top === null || v > a.values[top])) top = m.move;
    }
    return top;
  });
  query.moves.forEach((m, i) => {
    const tr = el("tr", {"data-move": m.move});
    const r = ranks[i];
    tr.append(el("td", {}, m.move));
    tr.append(el("td", {class: r === 2 ? "win" : r === 1 ? "draw" : r === 0 ? "loss" : ""}, exactWords(m, query)));
    query.agents.forEach((a, k) => {
      const v = a.values[m.move];
      const td = el("td", {class: "num"}, v === undefined || v === null ? "–" : Number(v).toFixed(3));
      if (preferred[k] === m.move) {
        td.classList.add("preferred");
        if (r !== null && isFinite(best) && r < best) {
          td.classList.add("worse");
          td.title = a.agent + " prefers this move, which is worse than the best";
        }
      }
      tr.append(td);
    });
    tr.addEventListener("click", () => humanMove(m.move));
    body.append(tr);
  });
  if (query.agents_more) {
    const tr = el("tr");
    tr.append(el("td", {colspan: 2 + query.agents.length, class: "small"},
      query.agents_more + " more agents of " + game + ": choose them under 'values of'"));
    body.append(tr);
  }
}

// ------------------------------------------------------------------ the board

// The grid as SVG: cells (0 empty, 1 and 2 the players' pieces as the first player sees them, other
// numbers written out), onCell(i) on a click, look(i) = {picked, fresh} for the cells to mark.
function boardSVG(grid, cells, players, onCell, look) {
  const {columns, rows, top} = grid;
  const size = Math.max(34, Math.min(72, Math.floor(440 / Math.max(columns, rows))));
  const s = svg("svg", {width: columns * size + 2, height: rows * size + 2, viewBox: `0 0 ${columns * size + 2} ${rows * size + 2}`,
    role: "img", "aria-label": game + " board"});
  cells.forEach((v, i) => {
    const r = Math.floor(i / columns), c = i % columns;
    const y = (top ? r : rows - 1 - r) * size + 1, x = c * size + 1;
    const {picked: isPicked, fresh} = look(i);
    const g = svg("g", {class: "cell", "data-cell": i});
    g.append(svg("rect", {x, y, width: size, height: size, class: isPicked ? "picked" : ""}));
    if (v === 1 || v === 2) {
      g.append(svg("circle", {cx: x + size / 2, cy: y + size / 2, r: size * 0.36, class: "p" + v + (fresh ? " new" : "")}));
      g.append(svg("text", {x: x + size / 2, y: y + size / 2 + size * 0.12, class: "mark" + v, "font-size": size * 0.34},
        players[v - 1].slice(0, 1).toUpperCase()));
    } else if (v !== 0) {
      g.append(svg("text", {x: x + size / 2, y: y + size / 2 + size * 0.12, class: "count", "font-size": size * 0.4}, String(v)));
    }
    g.addEventListener("click", () => onCell(i));
    s.append(g);
  });
  return s;
}

// Dots and boxes: the dots, each line drawn or not (a line not drawn is a move: click it), each
// box coloured by its owner.  Lines are numbered as the game file numbers them (cells/4's order).
function dotsSVG(drawing, players, fresh) {
  const {rows: R, columns: C, lines, boxes} = drawing;
  const gap = Math.max(60, Math.min(110, Math.floor(420 / Math.max(R, C)))), pad = 16;
  const s = svg("svg", {width: C * gap + 2 * pad, height: R * gap + 2 * pad, viewBox: `0 0 ${C * gap + 2 * pad} ${R * gap + 2 * pad}`,
    role: "img", "aria-label": game + " board", class: "dots"});
  const at = (r, c) => [pad + c * gap, pad + r * gap];
  boxes.forEach((v, k) => {
    const [x, y] = at(Math.floor(k / C), k % C);
    const g = svg("g", {class: "box", "data-box": k});
    g.append(svg("rect", {x: x + 4, y: y + 4, width: gap - 8, height: gap - 8, class: v ? "owned p" + v : "free"}));
    if (v) g.append(svg("text", {x: x + gap / 2, y: y + gap / 2 + gap * 0.12, class: "mark" + v, "font-size": gap * 0.34}, players[v - 1]));
    s.append(g);
  });
  const horizontal = (R + 1) * C;
  lines.forEach((v, k) => {
    let a, b;
    if (k < horizontal) {
      a = at(Math.floor(k / C), k % C);
      b = at(Math.floor(k / C), k % C + 1);
    } else {
      const j = k - horizontal;
      a = at(Math.floor(j / (C + 1)), j % (C + 1));
      b = at(Math.floor(j / (C + 1)) + 1, j % (C + 1));
    }
    const move = v ? null : view.board.moves.find((m) => m.changed.includes(k));
    const g = svg("g", {class: "line" + (v ? " drawn" : "") + (fresh.includes(k) ? " new" : ""), "data-line": k + 1});
    const w = 8;                                    // the band around the line that takes a click
    g.append(svg("rect", {x: Math.min(a[0], b[0]) - w, y: Math.min(a[1], b[1]) - w, width: Math.abs(b[0] - a[0]) + 2 * w,
      height: Math.abs(b[1] - a[1]) + 2 * w, class: "hit"}));
    g.append(svg("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "stroke"}));
    if (move) {
      g.append(svg("title", {}, "line " + move.move));
      g.addEventListener("click", () => humanMove(move.move));
    }
    s.append(g);
  });
  for (let r = 0; r <= R; r++) for (let c = 0; c <= C; c++) {
    const [x, y] = at(r, c);
    s.append(svg("circle", {cx: x, cy: y, r: 5, class: "dot"}));
  }
  return s;
}

function drawBoard() {
  const box = document.getElementById("board");
  box.replaceChildren();
  const b = view.board;
  if (b.drawing && b.drawing.kind === "dots_and_boxes") {
    box.append(dotsSVG(b.drawing, b.players, moves.length ? lastChanged : []));
    return;
  }
  if (b.dice) box.append(dieSVG(b.dice));
  if (b.drawing && b.drawing.kind === "tiles") {
    box.append(tilesSVG(b.drawing));
    if (b.result === null) box.append(el("p", {class: "small"}, b.board[b.board.length - 1] +
      (b.to_move === human ? " (the arrow keys, or a button)" : "")));
  }
  if (!b.grid) {                                  // no cells to draw: the text board and a button a move
    if (!b.drawing) box.append(el("pre", {class: "textboard"}, b.board.join("\n")));
    const buttons = el("div", {class: "movebuttons"});
    for (const m of b.to_move === "chance" ? [] : b.moves) {      // chance draws: no one clicks its outcomes
      const bt = el("button", {type: "button", "data-move": m.move}, m.move);
      bt.addEventListener("click", () => humanMove(m.move));
      buttons.append(bt);
    }
    box.append(buttons);
    return;
  }
  const last = moves.length ? lastChanged : [];
  const s = boardSVG(b.grid, b.grid.cells, b.players, clickCell, (i) => ({picked: picked.includes(i), fresh: last.includes(i)}));
  box.append(s);
  const buttons = el("div", {class: "movebuttons small"});
  buttons.append(document.createTextNode("or play: "));
  for (const m of b.moves) {
    const bt = el("button", {type: "button", "data-move": m.move}, m.move);
    bt.addEventListener("click", () => humanMove(m.move));
    buttons.append(bt);
  }
  box.append(buttons);
}

// 2048's tiles: each cell a power of two (0 empty), coloured by its size.
function tilesSVG(drawing) {
  const {rows: R, columns: C, cells} = drawing;
  const size = Math.max(56, Math.min(96, Math.floor(400 / Math.max(R, C)))), gap = 8;
  const w = C * (size + gap) + gap, h = R * (size + gap) + gap;
  const s = svg("svg", {width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": game + " tiles", class: "tiles"});
  s.append(svg("rect", {x: 0, y: 0, width: w, height: h, rx: 8, class: "tray"}));
  cells.forEach((v, k) => {
    const x = gap + (k % C) * (size + gap), y = gap + Math.floor(k / C) * (size + gap);
    const g = svg("g", {class: "tile t" + Math.min(v, 12), "data-cell": k + 1, "data-value": v ? 2 ** v : 0});
    g.append(svg("rect", {x, y, width: size, height: size, rx: 6}));
    if (v) {
      const label = String(2 ** v);
      g.append(svg("text", {x: x + size / 2, y: y + size / 2 + size * 0.13, "font-size": size * (label.length > 3 ? 0.28 : 0.4)}, label));
    }
    s.append(g);
  });
  return s;
}

// The face of the die chance read last (the last chance move, a number), as pips.
function dieSVG(faces) {
  let face = null;
  for (let k = moves.length - 1; k >= 0; k--) {
    if (movers[k] === "chance") { face = Number(moves[k]); break; }
  }
  const box = el("div", {class: "die"});
  if (face === null || !Number.isInteger(face)) {
    box.append(el("span", {class: "small"}, "the die (" + faces + " faces) has not been read yet"));
    return box;
  }
  const n = 64, s = svg("svg", {width: n, height: n, viewBox: `0 0 ${n} ${n}`, role: "img", "aria-label": "the die shows " + face,
    "data-face": face});
  s.append(svg("rect", {x: 2, y: 2, width: n - 4, height: n - 4, rx: 10, class: "face"}));
  const spots = {1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [1, 3], [3, 1], [3, 3]],
    5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]], 6: [[1, 1], [1, 3], [2, 1], [2, 3], [3, 1], [3, 3]]}[face];
  if (spots) for (const [r, c] of spots) s.append(svg("circle", {cx: c * n / 4, cy: r * n / 4, r: 5, class: "pip"}));
  else s.append(svg("text", {x: n / 2, y: n / 2 + 8, "font-size": 24}, String(face)));
  box.append(s, el("span", {class: "small"}, " the die shows " + face));
  return box;
}

let lastChanged = [];

function clickCell(i) {
  if (!myTurn()) return;
  const b = view.board;
  const columns = b.grid.columns;
  let cands = b.moves.filter((m) => m.changed.includes(i) && picked.every((p) => m.changed.includes(p)));
  if (!cands.length && !picked.length)            // gravity: a click anywhere in a column drops there
    cands = b.moves.filter((m) => m.changed.length === 1 && m.changed[0] % columns === i % columns);
  // a move is played once every cell it changes has been clicked (a pawn, then where it goes);
  // a move of one cell at once
  const done = cands.filter((m) => m.changed.length === picked.length + 1 || m.changed.length === 1);
  if (done.length === 1) {
    picked = [];
    humanMove(done[0].move);
  } else if (cands.length) {
    picked.push(i);
    drawBoard();
  } else {
    picked = [];
    drawBoard();
  }
}

// ------------------------------------------------------------------ the game

function myTurn() {
  return view && !busy && view.board.result === null && view.board.to_move === human;
}

function status() {
  const b = view.board;
  const st = document.getElementById("status");
  const score = /^score\((.*)\)$/.exec(String(b.result));
  if (score) {
    st.textContent = "game over: you scored " + (gameScore() + Number(score[1]));
  } else if (b.result !== null) {
    st.textContent = "game over: " + (b.result === "draw" ? "draw" : b.result + " wins" + (b.result === human ? " — you win!" : ""));
  } else if (b.to_move === human) {
    st.textContent = "your move (" + human + ")" + (b.players.length === 1 ? ", score " + gameScore() : "");
  } else if (b.to_move === "chance") {
    st.textContent = "chance draws…";
  } else {
    st.textContent = opponent + " is thinking…";
  }
  const list = document.getElementById("movelist");
  list.replaceChildren(...moves.map((m) => el("li", {}, m)));
}

// A game of score's points so far: each move's points, as the values table read them before it.
let points = [];
function gameScore() {
  return points.reduce((a, b) => a + b, 0);
}

async function show(position) {
  view = await getJSON(viewURL(position));
  positions.push(view.board.position);
  movers.push(view.board.result === null ? view.board.to_move : null);
  drawBoard();
  drawValues();
  status();
}

async function advance(move) {
  const b = view.board;
  const m = b.moves.find((x) => x.move === move);
  lastChanged = m ? m.changed : [];
  moves.push(move);
  points.push(m && m.points ? m.points : 0);
  view = await getJSON(viewURL(m ? m.next : null));
  positions.push(view.board.position);
  movers.push(view.board.result === null ? view.board.to_move : null);
  drawBoard();
  drawValues();
  status();
}

async function computerTurn() {
  while (view.board.result === null && view.board.to_move !== human) {
    busy = true;
    status();
    const reply = await postJSON("/api/move", {game, position: view.board.position, opponent, moves, seed: moves.length});
    await advance(reply.move);
  }
  busy = false;
  status();
  if (view.board.result !== null) await finish();
}

async function humanMove(move) {
  if (!myTurn()) return;
  showError("");
  busy = true;
  try {
    await advance(move);
    await computerTurn();
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    status();
  }
}

async function finish() {
  if (stored || start !== null || readOnly) return;  // a game set up by hand is not a game to store
  stored = true;
  const r = await postJSON("/api/finish", {game, opponent, human, moves});
  const teach = document.getElementById("teach");
  teach.textContent = "stored as match " + r.match + (r.learned ? "; " + opponent + " learned from it (" +
    r.games_trained + " games now)" : "");
  teach.dataset.gamesTrained = r.games_trained === null ? "" : String(r.games_trained);
}

async function newGame(position) {
  positions = [];
  movers = [];
  moves = [];
  points = [];
  picked = [];
  lastChanged = [];
  stored = false;
  start = position;
  showError("");
  try {
    await show(position);
    await computerTurn();
  } catch (e) {
    showError(e.message);
  }
}

async function undo() {
  if (busy || !moves.length) return;
  // back to the last position before this one where it was the person's move
  let k = moves.length - 1;
  while (k > 0 && movers[k] !== human) k -= 1;
  if (movers[k] !== human) return;
  const position = positions[k];
  moves = moves.slice(0, k);
  points = points.slice(0, k);
  positions = positions.slice(0, k);
  movers = movers.slice(0, k);
  stored = false;
  lastChanged = [];
  picked = [];
  await show(position);
}

function teachingNote() {
  const teach = document.getElementById("teach");
  if (readOnly) teach.textContent = "read-only: games are not stored and no agent learns from them";
  else if (learned.includes(opponent)) teach.textContent = "This game will teach " + opponent +
    ": once it is over, " + opponent + " learns from it, as after educable play.";
  else teach.textContent = "The game is stored in the knowledge base once it is over.";
}

// ------------------------------------------------------------------ set-up by clicks

let editCells = null;                         // the cells being clicked together (null: not editing)
let editPosition = null;                      // their position's text, once the game's rules accept it
let editAsked = 0;                            // checks asked: only the last one's answer is shown

async function checkEdit() {
  const mine = ++editAsked;
  const st = document.getElementById("editstatus");
  const mover = document.getElementById("editmover").value;
  const q = new URLSearchParams({game, cells: editCells.join(","), mover});
  editPosition = null;
  document.getElementById("editplay").disabled = true;
  try {
    const b = await getJSON("/api/setup?" + q.toString());
    if (mine !== editAsked) return;
    editPosition = b.position;
    st.className = "";
    st.textContent = "legal: " + (b.result === null ? b.to_move + " to move" : "the game is over (" +
      (b.result === "draw" ? "draw" : b.result + " has won") + ")") + " — " + b.position;
    document.getElementById("editplay").disabled = b.result !== null;
  } catch (e) {
    if (mine !== editAsked) return;
    st.className = "error";
    st.textContent = e.message;
  }
}

function drawEditor() {
  const box = document.getElementById("board");
  box.replaceChildren(boardSVG(view.board.grid, editCells, view.board.players, (i) => {
    editCells[i] = (editCells[i] + 1) % 3;
    drawEditor();
    checkEdit();
  }, () => ({picked: false, fresh: false})));
}

function startEditing() {
  if (busy || !view || !view.board.grid) return;
  editCells = view.board.grid.cells.map((v) => (v === 1 || v === 2 ? v : 0));
  document.getElementById("editmover").value = view.board.to_move || document.getElementById("editmover").value;
  document.getElementById("editor").hidden = false;
  drawEditor();
  checkEdit();
}

function stopEditing() {
  editCells = null;
  document.getElementById("editor").hidden = true;
  drawBoard();
}

if (root.dataset.setup === "yes") {
  document.getElementById("edit").addEventListener("click", startEditing);
  document.getElementById("editmover").addEventListener("change", () => editCells && checkEdit());
  document.getElementById("editclear").addEventListener("click", () => {
    editCells = editCells.map(() => 0);
    drawEditor();
    checkEdit();
  });
  document.getElementById("editcancel").addEventListener("click", stopEditing);
  document.getElementById("editplay").addEventListener("click", () => {
    const position = editPosition;
    if (position === null) return;
    stopEditing();
    const url = new URL(window.location.href);          // a position set up has a URL to share
    url.searchParams.set("position", position);
    window.history.replaceState(null, "", url.toString());
    document.getElementById("postext").value = position;
    newGame(position);
  });
}

// 2048's tiles move by the arrow keys (the game's moves up, down, left and right).
document.addEventListener("keydown", (ev) => {
  const keys = {ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right"};
  if (!(ev.key in keys) || !view || !view.board.drawing || view.board.drawing.kind !== "tiles") return;
  if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
  ev.preventDefault();
  if (view.board.moves.some((m) => m.move === keys[ev.key])) humanMove(keys[ev.key]);
});

document.getElementById("undo").addEventListener("click", () => undo().catch((e) => showError(e.message)));
document.getElementById("restart").addEventListener("click", () => newGame(root.dataset.position || null));
document.getElementById("setpos").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = document.getElementById("postext").value;
  newGame(text);
});

if (game) {
  teachingNote();
  newGame(start);
}
