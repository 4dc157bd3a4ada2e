// The lab page: the training form built from the learners' own option declarations (the same
// ones the command line is built from), jobs started and stopped by POST /api/jobs and
// /api/jobs/stop, and their state polled from GET /api/jobs.
"use strict";

// The server's secret, written into its own page: every POST carries it (web/trust.py).
const TOKEN = document.querySelector("meta[name=educable-token]").content;

const learners = JSON.parse(document.getElementById("learners").textContent);

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function showError(text) { document.getElementById("error").textContent = text || ""; }

function drawOptions() {
  const chosen = learners.find((l) => l.learner === document.getElementById("learner").value);
  const box = document.getElementById("options");
  box.replaceChildren();
  document.getElementById("count-label").textContent = chosen.plays_games ? "games" : "cycles";
  for (const o of chosen.options) {
    if (o.name === "cycles" || o.place) continue;     // files and addresses are the server's own settings
    const label = el("label", {class: "option", title: o.help + (o.range ? " (" + o.range + ")" : "")});
    label.append(el("span", {}, o.flag + " "));
    let input;
    if (o.type === "bool") {
      input = el("select", {name: o.name, "data-type": "bool"});
      for (const [v, t] of [["", "default (" + (o.default_words || "–") + ")"], ["true", "on"], ["false", "off"]]) input.append(el("option", {value: v}, t));
    } else if (o.choices) {
      input = el("select", {name: o.name});
      input.append(el("option", {value: ""}, "default (" + (o.default_words || "–") + ")"));
      for (const c of o.choices) input.append(el("option", {value: c}, c));
    } else {
      input = el("input", {name: o.name, placeholder: o.default_words || "", size: 8});
    }
    label.append(input);
    box.append(label);
  }
}

async function post(url, body) {
  const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json", "X-Educable-Token": TOKEN}, body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

async function refresh() {
  try {
    const jobs = await (await fetch("/api/jobs")).json();
    const body = document.querySelector("#jobs tbody");
    body.replaceChildren();
    for (const j of jobs) {
      const tr = el("tr", {"data-job": j.id, "data-running": j.running ? "yes" : "no"});
      tr.append(el("td", {class: "num"}, String(j.id)), el("td", {class: "small"}, j.command),
                el("td", {class: "state"}, j.running ? "running" : "ended (exit " + j.exit_code + ")"),
                el("td", {class: "small"}, j.last_line));
      const cell = el("td");
      if (j.running) {
        const b = el("button", {class: "stop", "data-job": j.id}, "Stop");
        b.addEventListener("click", async () => {
          b.disabled = true;
          try { await post("/api/jobs/stop", {id: j.id}); showError(""); } catch (e) { showError(e.message); }
          refresh();
        });
        cell.append(b);
        if (j.kind === "train") cell.append(" ", el("a", {href: "/runs"}, "its live curve"));
      } else if (j.kind === "tournament") {
        cell.append(el("a", {href: "/lab"}, "see its table"));
      }
      tr.append(cell);
      body.append(tr);
    }
    document.getElementById("jobs").dataset.count = String(jobs.length);
  } catch (e) { /* the next poll tries again */ }
  setTimeout(refresh, 2000);
}

document.getElementById("learner").addEventListener("change", drawOptions);
document.getElementById("train-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const options = {};
  for (const input of document.querySelectorAll("#options [name]")) {
    if (input.value === "") continue;
    options[input.name] = input.dataset.type === "bool" ? input.value === "true" : input.value;
  }
  try {
    await post("/api/jobs", {kind: "train", game: f.get("game"), learner: f.get("learner"), agent: f.get("agent"),
                             games: Number(f.get("games")), seed: Number(f.get("seed")), options});
    showError("");
  } catch (e) { showError(e.message); }
  refresh();
});
document.getElementById("tournament-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  try {
    await post("/api/jobs", {kind: "tournament", game: f.get("game"), players: f.get("players").split(/\s+/).filter(Boolean),
                             games: Number(f.get("games")), seed: Number(f.get("seed"))});
    showError("");
  } catch (e) { showError(e.message); }
  refresh();
});
drawOptions();
refresh();
