// A hand of a game of hidden information: the server deals and keeps the hand (POST /api/hand), the
// person sees only their own view and the agent's moves, and plays by buttons (POST /api/hand/move);
// at the end the whole position, the payoff and the review.  This file only draws what the server sends.
"use strict";

const TOKEN = document.querySelector("meta[name=educable-token]").content;
const root = document.getElementById("hand");
let hand = null;

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function post(url, body) {
  const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json", "X-Educable-Token": TOKEN},
                              body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function show(data) {
  hand = data.hand;
  const log = document.getElementById("handlog");
  for (const m of data.played) log.appendChild(el("li", `${root.dataset.opponent} plays ${m}`));
  const moves = document.getElementById("handmoves");
  moves.replaceChildren();
  if (!data.over) {
    document.getElementById("handview").textContent = data.view;
    for (const m of data.legal) {
      const b = el("button", m);
      b.type = "button";
      b.className = "handmove";
      b.addEventListener("click", () => move(m));
      moves.appendChild(b);
    }
    return;
  }
  document.getElementById("handview").textContent = "(the hand is over)";
  document.getElementById("handend").hidden = false;
  document.getElementById("handboard").textContent = data.board.join("\n");
  const won = data.payoff > 0 ? "you win" : data.payoff < 0 ? "you lose" : "a draw:";
  document.getElementById("handresult").textContent = `${won} ${Math.abs(data.payoff)}`;
  const review = document.getElementById("handreview");
  review.replaceChildren();
  if (data.review.decisions === null) {
    review.appendChild(el("li", `no review: ${data.review.why}`));
    return;
  }
  for (const d of data.review.decisions) {
    const worth = d.value === null ? "a set the equilibrium never reaches"
      : `worth ${d.value.toFixed(4)} against the equilibrium` + (d.best !== null && d.value < d.best - 1e-9 ? ` (its best move: ${d.best.toFixed(4)})` : "");
    review.appendChild(el("li", `at '${d.view}' you played ${d.move}: ${worth}`));
  }
  review.appendChild(el("li", `your side's value with best play ${data.review.value.toFixed(6)}; ` +
                              `${root.dataset.opponent}'s exploitability ${data.review.exploitability.toFixed(6)}`));
}

async function deal() {
  document.getElementById("handlog").replaceChildren();
  document.getElementById("handend").hidden = true;
  document.getElementById("error").textContent = "";
  try {
    show(await post("/api/hand", {game: root.dataset.game, opponent: root.dataset.opponent, as: root.dataset.human,
                                  seed: Math.floor(Math.random() * 2 ** 31)}));
  } catch (e) {
    document.getElementById("error").textContent = e.message;
  }
}

async function move(m) {
  document.getElementById("error").textContent = "";
  document.getElementById("handmoves").replaceChildren();       // one move a turn: the buttons go until the answer
  document.getElementById("handlog").appendChild(el("li", `you play ${m}`));
  try {
    show(await post("/api/hand/move", {hand, move: m}));
  } catch (e) {
    document.getElementById("error").textContent = e.message;
  }
}

document.getElementById("handagain").addEventListener("click", deal);
deal();
