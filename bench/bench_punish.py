"""The punishment learner (issue 3): losses before perfect play, self-play, speed, a learning curve.

Anchor: Gardner's HER is said to have lost 11 games before becoming
unbeatable as black; an independent simulation of HER (19 mirror-folded
boxes, last-move punishment) against an adversarial white needed a median of
11 losses, last loss at game 22.

The adversary (--vs adversary) remembers its search between games; target:
under 10 ms a game on games of about 50,000 positions (connect(3,4,4) has
41,750; 4x4 hexapawn 20,286).  Its anchor, measured in the same run on the
smaller games: the search without memory it replaced (copied below).

    .venv/bin/python bench/bench_punish.py [--seeds 25] [--plot bench/out/punish_curve.png] [--adversary-only]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import line, timed

from educable.bridge import commands, graphs, punish
from educable.bridge.engine import engine, quote
from educable.kb.db import open_kb

# The adversary before it remembered anything: a full search at every move (for the anchor).
NO_MEMORY = r"""
play:candidates(old_adversary(Victim), Game, Pos, Mover, Moves) :- !,
    findall(W-M, ( game:legal(Game, Pos, Mover, M), play:step(Game, Pos, Mover, M, P1, Next),
                   old_chance(Game, P1, Next, Mover, Victim, W) ), Scored),
    max_member(Best-_, Scored),
    findall(M, ( member(W-M, Scored), W >= Best - 1.0e-12 ), Moves).
old_chance(Game, Pos, ToMove, Me, Victim, P) :-
    (   game:over(Game, Pos, ToMove, R) -> ( R == Me -> P = 1.0 ; P = 0.0 )
    ;   ToMove == Me
    ->  aggregate_all(max(W), ( game:legal(Game, Pos, ToMove, M), play:step(Game, Pos, ToMove, M, P1, Next),
                                old_chance(Game, P1, Next, Me, Victim, W) ), P)
    ;   play:candidates(Victim, Game, Pos, ToMove, Ms),
        findall(W, ( member(M, Ms), play:step(Game, Pos, ToMove, M, P1, Next),
                     old_chance(Game, P1, Next, Me, Victim, W) ), Ws),
        sum_list(Ws, Sum), length(Ws, N), P is Sum / N
    )."""


def adversary_speed() -> None:
    """ms a game of training against the adversary, with memory and (anchor) without."""
    print("-- the adversary: training as black against it, ms a game (learning included)")
    old = Path(tempfile.mkdtemp()) / "no_memory.pl"
    old.write_text(NO_MEMORY)
    engine().call(f"consult({quote(str(old))}), Out = true")
    for game, n, old_games in (("hexapawn", 300, 30), ("hexapawn(4,4)", 1000, 2), ("connect(3,4,4)", 1000, 0),
                               ("boxes(2,2)", 1000, 0)):
        db = fresh_db()
        size = graphs.state_graph(db, game).size
        r = commands.train(db, game, "punish", "adv", n, "adversary", "second", 1, {})
        new_ms = 1000 * r["seconds"] / n
        if not old_games:           # the search without memory takes minutes a game here
            line(f"  {game} ({size:,} positions), {n} games, remembering", new_ms, "ms/game")
            continue
        punish._create("old", game, punish.validate({}), [])
        t, _ = timed(lambda: engine().call(
            f"punish:punish_training(old, true), play:play_results({quote(game)}, "
            f"[[white-old_adversary(agent(old)), black-agent(old)]], {old_games}, Out)"))
        old_ms = 1000 * t / old_games
        line(f"  {game} ({size:,} positions), {n} games, remembering", new_ms, "ms/game", old_ms,
             f"the search without memory ({old_games} games)")
VARIANTS = {
    "plain (seed: last move, HER's empty box)": {},
    "last move, no cascade (the practical's text literally)": {"cascade": False},
    "all moves punished": {"punish": "all"},
    "last move + reward winner": {"reward": 1.0},
    "all moves + reward winner": {"punish": "all", "reward": 1.0},
    "plain, no symmetry folding": {"fold": False},
    "plain, 3 beads a position": {"beads": 3.0},
    "MENACE's draw: beads in proportion, else plain": {"choice": "beads"},
    "MENACE's scheme: beads, 3 each, +3 win, -1 all": {"choice": "beads", "beads": 3.0, "reward": 3.0,
                                                        "draw_reward": 1.0, "punish": "all"},
}


def fresh_db():
    return open_kb(Path(tempfile.mkdtemp()) / "bench.db")


def vs_adversary(options: dict, seeds: int, games: int = 300) -> tuple[list, list, int]:
    losses, lasts, perfect = [], [], 0
    for seed in range(seeds):
        r = commands.train(fresh_db(), "hexapawn", "punish", "her", games, "adversary", "second", seed, options)
        ok = r["exact"]["as_second"]["perfect"]
        perfect += ok
        losses.append(r["losses"] if ok else float("inf"))
        lasts.append((r["last_loss"] or 0) if ok else float("inf"))
    return losses, lasts, perfect


def self_play_until_perfect(options: dict, seeds: int, batch: int = 10, limit: int = 1000, game: str = "hexapawn",
                            judge: str = "subgame_perfect") -> tuple[list, list]:
    """Games of self-play (in batches) until eval --exact's ``judge`` holds on both sides, per seed
    (inf: not within ``limit``); and each seed's positions with a losing choice at its end."""
    out, mistakes = [], []
    for seed in range(seeds):
        db = fresh_db()
        done = float("inf")
        for i in range(limit // batch):
            r = commands.train(db, game, "punish", "pupil", batch, "self", "both", seed * 1000 + i, options)
            if r["exact"]["as_first"][judge] and r["exact"]["as_second"][judge]:
                done = (i + 1) * batch
                break
        out.append(done)
        mistakes.append(r["exact"]["as_first"]["mistakes"] + r["exact"]["as_second"]["mistakes"])
    return out, mistakes


def med(xs: list) -> str:
    m = statistics.median(xs)
    return "never" if m == float("inf") else f"{m:g}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--plot", default="bench/out/punish_curve.png")
    ap.add_argument("--adversary-only", action="store_true", help="only the adversary's speed")
    args = ap.parse_args()
    adversary_speed()
    if args.adversary_only:
        return
    print(f"== punishment learner, hexapawn, {args.seeds} seeds ==")
    print("as black against an adversarial white (300 games a seed); HER: median 11 losses, last at game 22")
    for label, opts in VARIANTS.items():
        losses, lasts, perfect = vs_adversary(opts, args.seeds)
        print(f"  {label:<48} median losses {med(losses):>5}  median last loss at game {med(lasts):>5}"
              f"  perfect as black: {perfect}/{args.seeds}", flush=True)
    print("self-play until eval --exact says subgame-perfect on both sides (batches of 10, at most 1000 games)")
    for label in ("plain (seed: last move, HER's empty box)", "all moves punished", "last move + reward winner",
                  "all moves + reward winner"):
        games, _ = self_play_until_perfect(VARIANTS[label], args.seeds)
        reached = sum(g != float("inf") for g in games)
        print(f"  {label:<48} median games {med(games):>6}   reached by {reached}/{args.seeds} seeds", flush=True)
    print("tic-tac-toe, self-play until eval --exact says perfect on both sides (batches of 500, at most 5,000 games);"
          " MENACE: 'after 150 plays ... could cope with anything' (against Michie, not judged exactly)")
    for label in ("MENACE's scheme: beads, 3 each, +3 win, -1 all", "last move + reward winner"):
        games, mistakes = self_play_until_perfect(VARIANTS[label], args.seeds, 500, 5000, "tictactoe", "perfect")
        reached = sum(g != float("inf") for g in games)
        print(f"  {label:<48} median games {med(games):>6}   reached by {reached}/{args.seeds} seeds;"
              f"  positions with a losing choice at the end, median of both sides' sum {med(mistakes)}", flush=True)
    db = fresh_db()
    r = commands.train(db, "hexapawn", "punish", "speed", 20000, "self", "both", 1, {"reward": 1.0})
    line("self-play training speed, hexapawn (learning included)", r["games_per_second"], "games/s")
    r = commands.train(db, "tictactoe", "punish", "speed3", 20000, "self", "both", 1, {"reward": 1.0})
    line("self-play training speed, tic-tac-toe (learning included)", r["games_per_second"], "games/s")
    print(f"  tic-tac-toe after 20,000 self-play games: as X {r['exact']['as_first']['guaranteed']}, "
          f"as O {r['exact']['as_second']['guaranteed']}")
    if args.plot:
        from educable.learners.plot import curve_png
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        curves = {}
        for label, opts in (("plain", {}), ("all moves", {"punish": "all"}), ("reward", {"reward": 1.0})):
            r = commands.train(fresh_db(), "hexapawn", "punish", "c", 100, "adversary", "second", 3, opts)
            curves[label] = r["curve"]
        curve_png(args.plot, curves, 10, "hexapawn: black learning against an adversarial white (seed 3)",
                  ylabel="losses per 10 games")
        print(f"learning curve: {args.plot}")


if __name__ == "__main__":
    main()
