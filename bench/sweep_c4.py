"""Connect Four n-tuple settings × seeds, each judged by the perfect player: the issue's target as a bench.

Every point trains a fresh agent by self-play (`train 'connect(4,7,6)' --learner ntuple`, a knowledge
base of its own) for a budget of games and, with ``--minutes``, for at most that long: the target
allows 2 hours of training on this machine, so ``--minutes 120`` stops a point there by SIGTERM,
which keeps what it learned, as it would for a user.  Then the point is judged: games as first
against `perfect` (bitbully, ties of equal score at random) from the start, optionally against
`mcts:1000` (``--mcts-games`` a side), and move accuracy over the positions of games against
`perfect`, against itself and against random.  Points run ``--jobs`` at a time, each in processes of
its own (one Prolog each); with ``--workers 1`` two jobs use both cores of a two-core machine.

    .venv/bin/python bench/sweep_c4.py --games 500000 --seeds 1 2 [--settings gbg floor wide] [--jobs 2]
    # the target: five seeds of the default, two at a time on one core each, two hours at most each
    .venv/bin/python bench/sweep_c4.py --settings floor --seeds 1 2 3 4 5 --games 2000000 --minutes 120 \\
                                       --mcts-games 50 --keep bench/out/c4
    # judge agents trained already (agent c4 of each knowledge base), as the points are judged;
    # --search 4 also plays alphabeta:4+c4 (the agent valuing a 4-ply search's horizon) against perfect
    .venv/bin/python bench/sweep_c4.py --judge A.db B.db [--mcts-games 50] [--search 4] [--per-opening 10]
    # only many games as first against perfect, alone and wrapped (a seed's figure needs 200, not 20)
    .venv/bin/python bench/sweep_c4.py --judge A.db B.db --as-first 200 --players c4 mcts:800+c4
    # 2,000,000 games, then 500,000 more with the step falling from 3.7 to 0.37 (a steadier last agent)
    .venv/bin/python bench/sweep_c4.py --settings floor --seeds 1 2 3 4 5 --games 2000000 --anneal 500000 \
                                       --minutes 120 --mcts-games 25 --keep bench/out/c4

Settings (every other option is the learner's Connect Four default, after GBG's published agent):
  gbg      TD(0), step 3.7, per-player weights, TCL, exploration 0.1 to 0 over the run (the old default)
  floor    as gbg, exploration 0.1 to 0.05: the default since this sweep (GBG's 0.1 to 0 over 6 million
           games is at 0.05 at 3 million)
  lambda   as gbg, λ 0.5 (Thill et al.: eligibility traces halved the games needed; not run yet)
  wide     as gbg, exploration 0.2 to 0.1
  straight as floor, tuples walked over the 4 cells beside a cell (--neighbours 4, GBG's Connect Four
           adjacency) instead of the 8 around it
  fixed    as floor, GBG's fixed set of 70 8-tuples (learners/tuples/connect4_gbg70.txt) for every seed:
           Connect Four's default since this sweep, so `fixed` is what the documented command trains
  quiet    as fixed, nothing learned on an exploring move (--no-learn-explore: GBG's learnFromRM false)
  openings as fixed, half the games start from a random first move (--random-openings 0.5: GBG's
           chooseStart01), so that the agent as second sees every opening

Measured (500,000 games a point, two points at a time, ~315 games/s each; won of 50 as first vs perfect,
seeds 1 and 2): gbg 0 and 15, floor 24 and 21, wide 0 and 25; move accuracy vs perfect gbg 93.1%/95.4%,
floor 97.3%/96.7%, wide 97.0%/97.9%.  floor became the Connect Four default.  The target, seeds 1-5 on one
core each: floor at 2,000,000 games won 43, 18, 34, 45, 26 of 50 (median 68%; 84% vs mcts:1000); with
--anneal 500000 43, 26, 25, 47, 35 (median 70%; 92%).  Every judged point is in
bench/results/c4_target.jsonl; the tables and what they mean are in docs/learners.md ("Connect Four:
settings × seeds").
"""
from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import common  # noqa: F401  (puts the project on the path)

GAME = "connect(4,7,6)"
AGENT = "c4"
SETTINGS: dict[str, dict] = {
    "gbg": {"epsilon": 0.1, "epsilon_end": 0.0},
    "floor": {"epsilon": 0.1, "epsilon_end": 0.05},
    "lambda": {"lam": 0.5},
    "wide": {"epsilon": 0.2, "epsilon_end": 0.1},
    "straight": {"epsilon": 0.1, "epsilon_end": 0.05, "neighbours": "4"},
    "fixed": {"epsilon": 0.1, "epsilon_end": 0.05, "tuples_file": "learners/tuples/connect4_gbg70.txt"},
    "quiet": {"epsilon": 0.1, "epsilon_end": 0.05, "tuples_file": "learners/tuples/connect4_gbg70.txt",
              "learn_explore": False},
    "openings": {"epsilon": 0.1, "epsilon_end": 0.05, "tuples_file": "learners/tuples/connect4_gbg70.txt",
                 "random_openings": 0.5},
}
JUDGE_SEED = 0          # the same opponents' dice for every point
ANNEAL = {"alpha": 3.7, "alpha_end": 0.37}     # --anneal: the step falls to a tenth over the extra games
ANNEAL_SEED = 100       # --anneal's games are run with seed ANNEAL_SEED + the point's seed
STOP_GRACE = 300        # seconds a point stopped at --minutes may take to commit and exit


def stored_options(setting: str) -> dict:
    """A setting's options as `train` takes them and the agent stores them: a tuples file read into its
    cells, as train --tuples-file reads it."""
    from educable.bridge.ntuple import read_tuples
    options = dict(SETTINGS[setting])
    if "tuples_file" in options:
        options["tuple_cells"] = read_tuples(str(Path(__file__).parent.parent / options.pop("tuples_file")))
    return options


def train_point(setting: str, seed: int, n_games: int, db_path: str, workers: int, anneal: int = 0) -> dict:
    """Train one agent (``setting``, ``seed``) for ``n_games`` into ``db_path``, then (``anneal``) that
    many games more at the setting's last exploration with the step falling from 3.7 to 0.37, as a
    user's second `train` of the same agent; stopped (SIGTERM at --minutes), it keeps what its
    commits kept.  How many games it kept and whether it was stopped."""
    from educable.bridge import commands
    from educable.cli import stop_on_sigterm
    from educable.kb.db import open_kb
    from educable.learners.training import Stopped
    stop_on_sigterm()                     # as `educable train` takes it
    db = open_kb(Path(db_path))
    options = stored_options(setting)
    try:
        r = commands.train(db, GAME, "ntuple", AGENT, n_games, "self", "both", seed, options, workers=workers)
        if anneal:
            last = options.get("epsilon_end", options.get("epsilon", 0.05))
            r = commands.train(db, GAME, "ntuple", AGENT, anneal, "self", "both", ANNEAL_SEED + seed,
                               {"epsilon": last, "epsilon_end": last, **ANNEAL}, workers=workers)
    except Stopped as stop:
        return {"games": stop.kept, "stopped": True}
    return {"games": r["games"], "stopped": False}


def judge_point(db_path: str, judge_games: int, mcts_games: int, search: int) -> dict:
    """The figures of agent c4 in ``db_path``: won and drawn of ``judge_games`` as first vs perfect,
    won as first vs mcts:1000, move accuracy over ``judge_games // 2`` games a series; with
    ``search``, also won and drawn as first vs perfect by alphabeta:SEARCH+c4 (the agent valuing the
    horizon of a search that many plies deep)."""
    from bench_ntuple import c4_strength

    from educable.bridge import judge, perfect
    from educable.kb.db import open_kb
    r = c4_strength(db_path, AGENT, judge_games, mcts_games, JUDGE_SEED, accuracy_games=max(1, judge_games // 2),
                    openings=0)
    row = {"games": r["games_trained"], "train_hours": r["training_hours"], "games_per_second": r["games_per_second"],
           "judge_games": judge_games, "won_as_first": r["vs_perfect_as_first"]["wins"],
           "drawn_as_first": r["vs_perfect_as_first"]["draws"], "accuracy_self": r["accuracy"]["self"],
           "accuracy_vs_perfect": r["accuracy"]["perfect"], "accuracy_vs_random": r["accuracy"]["random"]}
    if mcts_games:
        row["mcts_games"] = mcts_games
        row["mcts_won_as_first"] = r["vs_mcts1000"]["as_first"]["win"]
    if search:
        guided = judge.play_series(open_kb(Path(db_path)), GAME, (f"alphabeta:{search}+{AGENT}", perfect.NAME),
                                     judge_games, JUDGE_SEED)
        row.update(search=search, search_won_as_first=guided.get("x", 0), search_drawn_as_first=guided.get("draw", 0))
    return row


def _last_json(cmd: list[str], timeout: float | None = None) -> dict:
    """Run ``cmd``; the JSON of its last line.  Past ``timeout`` seconds it gets SIGTERM, as a user's
    Ctrl-C, and is waited for (STOP_GRACE more) while it commits what it learned."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=STOP_GRACE)
    lines = out.strip().splitlines()
    if proc.returncode or not lines:
        raise RuntimeError(f"{' '.join(cmd[1:4])} failed (exit {proc.returncode}): {err.strip()[-500:]}")
    return json.loads(lines[-1])


def run_point(setting: str, seed: int, args: argparse.Namespace) -> dict:
    """One point: training in a process of its own, then judging in another; its figures, also
    appended to ``--out``."""
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    db_path = str(folder / f"{setting}-seed{seed}.db")
    t = time.perf_counter()
    trained = _last_json([sys.executable, __file__, "--train", setting, str(seed), db_path, "--games", str(args.games),
                          "--workers", str(args.workers), "--anneal", str(args.anneal)],
                         args.minutes * 60 if args.minutes else None)
    wall = time.perf_counter() - t
    row = {"setting": setting + ("+anneal" if args.anneal else ""), "seed": seed, "workers": args.workers, "stopped": trained["stopped"],
           "train_wall_minutes": round(wall / 60, 1), **judged(db_path, args)}
    report(row, args.out)
    return row


def judged(db_path: str, args: argparse.Namespace) -> dict:
    """``judge_point`` in a process of its own (its own Prolog)."""
    return _last_json([sys.executable, __file__, "--judge-point", db_path, "--judge-games", str(args.judge_games),
                       "--mcts-games", str(args.mcts_games), "--search", str(args.search)])


def report(row: dict, out: str) -> None:
    """Print a point's line and append its figures to ``out``."""
    with open(out, "a") as f:
        f.write(json.dumps(row) + "\n")
    mcts = (f"; vs mcts:1000 as first {row['mcts_won_as_first']}/{row['mcts_games']}" if "mcts_games" in row else "")
    if "search" in row:
        mcts += (f"; alphabeta:{row['search']}+{AGENT} as first vs perfect {row['search_won_as_first']}/"
                 f"{row['judge_games']} won ({row['search_drawn_as_first']} drawn)")
    timing = (f"in {row['train_hours']:.2f} h ({row['games_per_second']} games/s"
              f"{', stopped at the time cap' if row.get('stopped') else ''})" if row["games_per_second"]
              else "(a run still going: no time recorded yet)")
    print(f"  {row['setting']:<8} seed {row['seed']}: {row['games']:,} games {timing}: "
          f"{row['won_as_first']}/{row['judge_games']} won as first vs perfect ({row['drawn_as_first']} drawn){mcts}; "
          f"accuracy self {100 * row['accuracy_self']:.1f}%, vs perfect {100 * row['accuracy_vs_perfect']:.1f}%, "
          f"vs random {100 * row['accuracy_vs_random']:.1f}%", flush=True)


def summary(rows: list[dict]) -> None:
    """Median and range per setting over its seeds, against the targets and GBG's figures."""
    from bench_ntuple import GBG_C4_ANCHOR
    print("setting   seeds  won as first vs perfect: median (range)  vs mcts:1000 as first  accuracy self / vs perfect (median)")
    for setting in dict.fromkeys(r["setting"] for r in rows):
        mine = [r for r in rows if r["setting"] == setting]
        won = [r["won_as_first"] / r["judge_games"] for r in mine]
        mcts = [r["mcts_won_as_first"] / r["mcts_games"] for r in mine if "mcts_games" in r]
        mcts_text = f"{100 * statistics.median(mcts):.0f}% ({100 * min(mcts):.0f}-{100 * max(mcts):.0f}%)" if mcts else "-"
        print(f"  {setting:<8} {len(mine):>4}  {100 * statistics.median(won):>5.0f}% ({100 * min(won):.0f}-"
              f"{100 * max(won):.0f}%)                  {mcts_text:<22} "
              f"{100 * statistics.median(r['accuracy_self'] for r in mine):.1f}% / "
              f"{100 * statistics.median(r['accuracy_vs_perfect'] for r in mine):.1f}%")
    print("  target   every one of 5 seeds within 2 hours on 2 cores: 90% won as first vs perfect and 98% vs perfect-random, "
          "80% of games at the opening's value as second (--per-opening), median move accuracy 95%")
    for label, figure in GBG_C4_ANCHOR:
        print(f"  anchor   {label}: {figure}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=500_000, help="self-play games a point (the schedules span them)")
    ap.add_argument("--anneal", type=int, default=0, metavar="GAMES", help="then this many games more at the "
                    "setting's last exploration, the step falling from 3.7 to 0.37 (a second train of the agent)")
    ap.add_argument("--minutes", type=float, default=None, help="stop a point's training after this long (SIGTERM; "
                    "what it learned is kept): 120 for the target's two hours")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--settings", nargs="+", default=["gbg", "floor", "wide"], choices=sorted(SETTINGS))
    ap.add_argument("--jobs", type=int, default=2, help="points at a time")
    ap.add_argument("--workers", type=int, default=1, help="Dask workers a point (--workers of train)")
    ap.add_argument("--judge-games", type=int, default=50)
    ap.add_argument("--mcts-games", type=int, default=0, help="also this many games a side against mcts:1000")
    ap.add_argument("--search", type=int, default=0, metavar="DEPTH", help="also judge alphabeta:DEPTH+c4 as first "
                    "against perfect (the agent valuing a search's horizon)")
    ap.add_argument("--keep", metavar="DIR", help="keep each point's knowledge base as DIR/SETTING-seedN.db")
    ap.add_argument("--judge", nargs="+", metavar="DB", help="judge agent c4 of these knowledge bases instead")
    ap.add_argument("--out", default="bench/out/c4_sweep.jsonl", help="append each point's figures here (JSON lines)")
    ap.add_argument("--wrap", type=int, nargs="*", default=[], metavar="ITERATIONS",
                    help="with --per-opening: also judge the agent wrapped in the AlphaZero-style search, "
                         "mcts:ITERATIONS+c4, and in alphabeta:DEPTH+c4 for each --wrap-depth, from every opening")
    ap.add_argument("--wrap-depth", type=int, nargs="*", default=[], metavar="DEPTH")
    ap.add_argument("--wrapped-only", action="store_true", help="with --judge: judge only the wrapped players "
                    "(another process judges the agent alone)")
    ap.add_argument("--per-opening", type=int, default=0, metavar="N", help="with --judge: also judge from every "
                    "opening, N games an opening against each perfect player (judge --per-opening), into --openings-out")
    ap.add_argument("--openings-out", default="bench/results/c4_openings.jsonl")
    ap.add_argument("--judge-seed", type=int, default=0, help="with --per-opening: the judge's --seed (run two "
                    "judges of other seeds side by side to use both cores)")
    ap.add_argument("--label", metavar="SETTING", help="with --judge: name the points' setting thus (default: "
                    "the setting the agent's stored options fit)")
    ap.add_argument("--as-first", type=int, default=0, metavar="N", help="with --judge: only N games as first "
                    "against perfect for each --players (judge.play_series, judge seed --first-seed), into "
                    "--first-out: the many games a per-seed figure needs (20 games vary by 15 points), "
                    "with the positions where the games not won were lost")
    ap.add_argument("--players", nargs="+", default=[AGENT], metavar="PLAYER",
                    help="with --as-first: the agent alone (c4) and/or wrapped (mcts:800+c4)")
    ap.add_argument("--first-seed", type=int, default=200)
    ap.add_argument("--first-out", default="bench/results/c4_as_first.jsonl")
    ap.add_argument("--starts-out", metavar="FILE", help="with --as-first or --per-opening: also add the positions "
                    "where the agent alone gave games away to FILE, for train's --starts-file")
    ap.add_argument("--train", nargs=3, metavar=("SETTING", "SEED", "DB"), help=argparse.SUPPRESS)
    ap.add_argument("--judge-point", metavar="DB", help=argparse.SUPPRESS)
    ap.add_argument("--as-first-point", metavar="DB", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.train:
        print(json.dumps(train_point(args.train[0], int(args.train[1]), args.games, args.train[2], args.workers,
                                     args.anneal)))
        return
    if args.as_first_point:
        from educable.bridge import judge, perfect
        from educable.kb.db import open_kb
        lost: dict = {}
        counts = judge.play_series(open_kb(Path(args.as_first_point)), GAME, (args.players[0], perfect.NAME),
                                   args.as_first, args.first_seed, lost)
        print(json.dumps({**counts, "mistakes": judge.commonest(lost)}))
        return
    if args.judge_point:
        print(json.dumps(judge_point(args.judge_point, args.judge_games, args.mcts_games, args.search)))
        return
    if args.as_first:
        if not args.judge:
            raise SystemExit("--as-first judges the knowledge bases given with --judge")
        with ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(lambda path: as_first(path, args), args.judge))
        return
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    judging = f"{args.judge_games} games as first vs perfect" + (
        f" and {args.mcts_games} a side vs mcts:1000" if args.mcts_games else "")
    with ThreadPoolExecutor(args.jobs) as pool:
        if args.judge:
            print(f"{GAME}: judging agent {AGENT} of {len(args.judge)} knowledge bases by {judging}")
            rows = list(pool.map(lambda path: judge_given(path, args), args.judge))
        else:
            cap = f", at most {args.minutes:g} min each" if args.minutes else ""
            then = f" then {args.anneal:,} with the step falling to 0.37" if args.anneal else ""
            print(f"{GAME}: n-tuple self-play, {args.games:,} games a point{then}{cap} on {args.workers} worker(s), settings "
                  f"{args.settings} x seeds {args.seeds}, {args.jobs} at a time; judged by {judging}")
            todo = [(s, seed) for seed in args.seeds for s in args.settings]
            rows = list(pool.map(lambda p: run_point(p[0], p[1], args), todo))
    summary([r for r in rows if "won_as_first" in r])      # --wrapped-only judged no point alone


def as_first(db_path: str, args: argparse.Namespace) -> None:
    """--as-first: each of --players plays --as-first games as first against perfect (which delays
    its losses, ties at random with the judge seed), in a process of its own; a row each, appended,
    with where each game not won was given away (judge.count_mistake)."""
    for player in args.players:
        t = time.monotonic()
        command = [sys.executable, __file__, "--as-first-point", db_path, "--players", player,
                   "--as-first", str(args.as_first), "--first-seed", str(args.first_seed)]
        counts = _last_json(command)
        row = {"db": db_path, "games_trained": trained(db_path), "player": player, "games": args.as_first,
               "judge_seed": args.first_seed,
               "won": counts.get("x", 0), "drawn": counts.get("draw", 0), "lost": counts.get("o", 0),
               "minutes": round((time.monotonic() - t) / 60, 1), "mistakes": counts.get("mistakes", []),
               "command": f"bench/sweep_c4.py --judge {db_path} --as-first {args.as_first} --players {player} "
                          f"--first-seed {args.first_seed}"}
        print(f"  {db_path}: {player} won {row['won']} of {row['games']} as first vs perfect "
              f"({row['drawn']} drawn, {row['lost']} lost; {row['minutes']} min)", flush=True)
        Path(args.first_out).parent.mkdir(parents=True, exist_ok=True)
        with open(args.first_out, "a") as f:
            f.write(json.dumps(row) + "\n")
        if args.starts_out and player == AGENT:
            from educable.bridge.judge import write_starts
            write_starts(args.starts_out, row["mistakes"], f"{db_path}'s {player} ({row['games_trained']:,} games) "
                         f"as first against perfect ({args.as_first} games, judge seed {args.first_seed})", append=True)


def trained(db_path: str) -> int | None:
    """The games agent c4 of a knowledge base has trained."""
    from educable.kb import store
    from educable.kb.db import open_kb
    agent = store.get_agent(open_kb(Path(db_path)), AGENT)
    return agent["games_trained"] if agent else None


def judge_given(db_path: str, args: argparse.Namespace) -> dict:
    """A knowledge base trained elsewhere, judged as a point; its setting and seed read from the
    agent's stored options and its last run."""
    from educable.kb import store
    from educable.kb.db import open_kb
    db = open_kb(Path(db_path))
    agent = store.get_agent(db, AGENT)
    if agent is None:
        raise SystemExit(f"{db_path}: no agent {AGENT}")
    params = agent["params"]
    fits = [name for name in SETTINGS
            if all(params.get(k) == v for k, v in stored_options(name).items())]
    setting = max(fits, key=lambda name: len(SETTINGS[name]), default="other")     # the most specific that fits
    if params.get("alpha_end") is not None and params.get("alpha") is not None and params["alpha_end"] < params["alpha"]:
        setting = "annealed"              # its last run's step fell (--anneal, or a user's --alpha-end)
    setting = args.label or setting
    last = db.execute("SELECT results FROM runs WHERE agent = ? ORDER BY id DESC LIMIT 1", [AGENT]).fetchone()
    results = json.loads(last[0]) if last else {}
    row = {"setting": setting, "seed": params.get("seed"), "workers": (results.get("lazy") or {}).get("workers"),
           "stopped": bool(results.get("stopped")), "db": db_path}
    if not args.wrapped_only:
        row.update(judged(db_path, args))
        report(row, args.out)
    if args.per_opening:
        for player in [*([] if args.wrapped_only else [AGENT]), *(f"mcts:{n}+{AGENT}" for n in args.wrap),
                       *(f"alphabeta:{d}+{AGENT}" for d in args.wrap_depth)]:
            per_opening(db_path, setting, params.get("seed"), agent["games_trained"], args.per_opening,
                        args.openings_out, player, args.judge_seed, args.starts_out if player == AGENT else None)
    return row


def per_opening(db_path: str, setting: str, seed: int, games: int, n: int, out: str, player: str = AGENT,
                judge_seed: int = 0, starts_out: str | None = None) -> None:
    """`educable judge` of ``player`` (the agent, or the agent wrapped in a search) from every opening
    (``n`` games an opening against each perfect player, with the fixed-position accuracy; the judge's
    ties at random from ``judge_seed``), appended to ``out`` with the point's setting and seed, the
    minutes the judging took and the first moves that gave games away (added to ``starts_out``)."""
    command = ["judge", GAME, player, "--games", str(n), "--openings", "0", "--per-opening", str(n),
               "--seed", str(judge_seed)]
    exe = str(Path(sys.executable).parent / "educable")
    started = time.perf_counter()
    r = subprocess.run([exe, *command, "--json", "--db", db_path], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    j = json.loads(r.stdout)
    row = {"setting": setting, "seed": seed, "games_trained": games, "player": player, "judge_seed": judge_seed,
           "judge_minutes": round(wall / 60, 1),
           "command": "educable " + " ".join(f"'{c}'" if "(" in c else c for c in command),
           "accuracy_in_games": {k: v["accuracy"] for k, v in j["accuracy"].items()}, "fixed_positions": j["fixed"],
           "summary": j["by_opening"]["summary"], "openings": j["by_opening"]["openings"],
           "mistakes": j["by_opening"]["mistakes"]}
    with open(out, "a") as f:
        f.write(json.dumps(row) + "\n")
    if starts_out:
        from educable.bridge.judge import write_starts
        write_starts(starts_out, row["mistakes"], f"{db_path}'s {player} ({games:,} games) from every opening "
                     f"({n} games each, judge seed {judge_seed})", append=True)
    print(f"  {setting} seed {seed}, {player}, from every opening: " + "; ".join(
        f"vs {who} won as first {100 * v['won_as_first']:.0f}%, as second at value {100 * v['second_at_value']:.0f}%"
        for who, v in row["summary"].items()) + f"; fixed positions {100 * j['fixed']['accuracy']:.0f}%", flush=True)


if __name__ == "__main__":
    main()
