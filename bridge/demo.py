"""The main job (`make demo`): solve every game, show what is known, play a match table.

Later learners add their section to STEPS.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from educable.bridge import commands, ga
from educable.bridge.compile import TooLarge

if TYPE_CHECKING:
    import sqlite_utils  # in annotations only: kb.db imports it when a database is opened

DemoStep = Callable[["sqlite_utils.Database"], Iterator[str]]
STEPS: list[DemoStep] = []


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


SMALL_GAMES = ("tictactoe", "hexapawn")
SOLVED_GAMES = SMALL_GAMES + ("nim(1,3,5)", "hexapawn(4,4)", "connect(3,4,4)")
HUGE_GAME = "connect(4,7,6)"


def solve_all(db: sqlite_utils.Database) -> Iterator[str]:
    yield "== Solving games exactly (state graph compiled from Prolog, retrograde analysis, stored) =="
    for g in SOLVED_GAMES:
        s = commands.solve(db, g)
        verdict = "a draw" if s["winner"] is None else f"{s['winner']} wins"
        classes = f"{s['classes']:>7,} up to symmetry" if s["classes"] else f"{'(no symmetry)':>23}"
        yield (f"{g:<15} {s['positions']:>7,} positions, {s['terminal']:>7,} terminal, {classes};"
               f" perfect play: {verdict}  ({s['seconds']:.2f} s)")


def match_table(db: sqlite_utils.Database) -> Iterator[str]:
    yield ""
    yield "== Match table: 200 games a pairing, half on each side (win/draw/loss of the first named) =="
    for g in SMALL_GAMES:
        for a, b in (("random", "random"), ("minimax", "random"), ("minimax", "minimax")):
            r = commands.evaluate_series(db, g, a, b, 200, seed=1)
            n1 = sum(r["as_first"][k] for k in ("win", "draw", "loss"))
            n2 = sum(r["as_second"][k] for k in ("win", "draw", "loss"))
            f = "/".join(_pct(r["as_first"][k] / n1) for k in ("win", "draw", "loss"))
            s = "/".join(_pct(r["as_second"][k] / n2) for k in ("win", "draw", "loss"))
            yield f"{g:<10} {a:>8} vs {b:<8} as first {f}   as second {s}"
    yield ""
    yield "== Exact judgement against a best-responding opponent =="
    for g in SMALL_GAMES:
        for a in ("random", "minimax"):
            r = commands.evaluate_exact(db, g, a)
            yield (f"{g:<10} {a:<8} guarantees as first: {r['as_first']['guaranteed']:<5}"
                   f" as second: {r['as_second']['guaranteed']:<5}"
                   f" perfect: {r['as_first']['perfect'] and r['as_second']['perfect']}")


def too_large(db: sqlite_utils.Database) -> Iterator[str]:
    yield ""
    yield f"== A game too large to enumerate: Connect Four, {HUGE_GAME} =="
    try:
        commands.solve(db, HUGE_GAME)
    except TooLarge as exc:
        yield f"solve: refused at once: {str(exc).split(', past')[0]}"
    for a in ("mcts:200", "alphabeta:3"):
        r = commands.evaluate_series(db, HUGE_GAME, a, "random", 10, seed=1)
        wins = r["as_first"]["win"] + r["as_second"]["win"]
        lo, hi = r["as_first"]["interval95"]["win"]
        yield f"{a} vs random: won {wins} of 10 (as first {r['as_first']['win']} of 5, 95% {100 * lo:.0f}-{100 * hi:.0f}%)"
    yield f"play it: educable play '{HUGE_GAME}' --opponent mcts:1000"


def learners(db: sqlite_utils.Database) -> Iterator[str]:
    yield ""
    yield "== Learning =="
    r = commands.train(db, "hexapawn", "punish", "demo-her", 60, "adversary", "second", 1, {})
    yield (f"punish (the six-pawns practical, after Gardner's HER) as black vs an adversarial white: lost {r['losses']} of 60, last at game "
           f"{r['last_loss']}; now guarantees a {r['exact']['as_second']['guaranteed']} as black")
    r = commands.train(db, "tictactoe", "qlearn", "demo-q", 100000, "self", "both", 1, {}, until_perfect=True)
    p = commands.evaluate_exact(db, "tictactoe", "demo-q", "random")
    yield (f"Q-learning (the CA425 practical), tic-tac-toe self-play: perfect on both sides after {r['games']:,} games "
           f"({r['seconds']:.1f} s); exactly vs random it wins {100 * p['as_first']['win']:.1f}% as X, "
           f"{100 * p['as_second']['win']:.1f}% as O, never loses")
    yield "play them: educable play hexapawn --opponent demo-her --as white;  educable play tictactoe --opponent demo-q"


def rule_sets(db: sqlite_utils.Database) -> Iterator[str]:
    yield ""
    yield "== Genetic rule sets (Gaia's \"Ejemplos de Vida\") =="
    r = ga.train(db, "tictactoe", "demo-gaia", 200, 1, {"nudge": 0.2})
    best = r["best"]
    yield (f"population demo-gaia (40 agents x 100 rules): {r['total_cycles']} cycles so far, these 200 in "
           f"{r['seconds']:.1f} s; its best agent loses exactly {_pct(best['as_first']['vs_random']['loss'])} "
           f"vs random as X, {_pct(best['as_second']['vs_random']['loss'])} as O")
    example = Path(__file__).resolve().parent.parent / "examples" / "never_lose_as_x.pl"
    if example.is_file():
        r = ga.import_rules(db, str(example), "demo-careful", replace=True)
        e = commands.evaluate_exact(db, "tictactoe", "demo-careful")
        yield (f"hand-written rules ({r['rules']} in examples/never_lose_as_x.pl) as agent demo-careful: "
               f"as X it guarantees a {e['as_first']['guaranteed']}")
    yield "see them: educable agents demo-gaia --rules;  educable rules export demo-gaia best.pl"


def rat_race(db: sqlite_utils.Database) -> Iterator[str]:
    from educable.bridge import race

    yield ""
    yield "== The rat race (the PPCG rat-race challenge) =="
    for player in ("colorscore", "believer"):
        r = race.run(db, player, 4, 0, turns=3000)
        yield (f"{player}: scores {r['scores']} on 4 boards after 3,000 of 10,000 turns "
               f"({r['moves_per_second']:,} specimen-moves/s)")
    yield "full games: educable race run --player believer --boards 10;  picture: educable race show --seed 1 --png t.png"


C4_DEMO_GAMES = 20_000      # about 25 s of Connect Four self-play on one core


def ntuple(db: sqlite_utils.Database) -> Iterator[str]:
    yield ""
    yield "== The n-tuple learner (GBG's TD n-tuple agents): what one position teaches reaches others =="
    r = commands.train(db, "tictactoe", "ntuple", "demo-td", 2000, "self", "both", 1, {})
    exact = r["exact"] or {}
    sides = ", ".join(f"{side.replace('_', ' ')} {'perfect' if exact[side]['perfect'] else exact[side]['guaranteed']}"
                      for side in ("as_first", "as_second") if side in exact)
    yield f"tic-tac-toe, 2,000 self-play games ({r['seconds']:.2f} s of learning): exactly, {sides}"
    r = commands.train(db, HUGE_GAME, "ntuple", "demo-c4", C4_DEMO_GAMES, "self", "both", 1, {})
    e = commands.evaluate_series(db, HUGE_GAME, "demo-c4", "random", 20, seed=1)
    wins = e["as_first"]["win"] + e["as_second"]["win"]
    yield (f"{HUGE_GAME}, {r['games']:,} self-play games ({r['seconds']:.0f} s, {r['games_per_second']:,.0f} games/s): "
           f"won {wins} of 20 against random")
    yield f"longer runs and the perfect player's verdict: README, 'Connect Four'; judge it: educable judge '{HUGE_GAME}' demo-c4"


def window(db: sqlite_utils.Database) -> Iterator[str]:
    yield ""
    yield "== See it all in the browser =="
    yield "educable serve   (then open http://127.0.0.1:8000/ : play demo-td or demo-c4, see every move's value beside "
    yield "                  the truth, and watch a run's curve grow while educable train runs in another terminal)"


STEPS.extend([solve_all, match_table, too_large, learners, ntuple, rule_sets, rat_race, window])


def run(db: sqlite_utils.Database) -> Iterator[str]:
    t0 = time.perf_counter()
    for step in STEPS:
        yield from step(db)
    yield ""
    yield f"demo finished in {time.perf_counter() - t0:.1f} s; the knowledge base is {db.conn.execute('PRAGMA database_list').fetchone()[2]}"
