"""Foundation figures (issue 2): solving, random self-play inside Prolog, graph compilation.

Anchors measured earlier on this kind of machine (constants, labelled so):
the tictac tutorial's cached minimax solves tic-tac-toe in 0.17 s cold;
OpenSpiel's pure-Python tic-tac-toe plays about 7,000 random games/s.
bench_graphs.py measures OpenSpiel's solver in the same run.

    .venv/bin/python bench/bench_foundation.py
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import line, timed

from educable.bridge import commands, games, graphs
from educable.bridge.compile import compile_graph
from educable.bridge.engine import engine
from educable.kb.db import open_kb


def resident() -> int:
    """This process's resident memory in bytes (Linux)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096


def call_memory(n: int = 1_000_000) -> None:
    """Memory after ``n`` small Prolog calls against after the first 10,000 (target: within 10%).
    Before the string stacks were released (PL_STRINGS_MARK), each call kept about 1 KB."""
    e = engine()
    for _ in range(10_000):
        e.call("Out = 1")
    early = resident()
    t0 = time.perf_counter()
    for i in range(n - 10_000):
        e.call("atom_length(abc, Out)" if i % 2 else "Out = [1, text]")
    late = resident()
    line(f"resident memory after {n:,} calls", late / 2**20, "MB", early / 2**20, "after 10,000 calls",
         words=("less", "more"))
    print(f"{'':<52} grew {100 * (late - early) / early:.1f}% ({(time.perf_counter() - t0) / (n - 10_000) * 1e6:.0f} "
          "µs a call)")


def main() -> None:
    print("== foundation ==")
    t, _ = timed(engine)
    line("engine start and load every rule file", t, "s")
    e, n = engine(), 20_000
    t, _ = timed(lambda: [e.call("Out = 1") for _ in range(n)], repeat=3)
    pyswip_query = timed(lambda: [list(e._prolog.query('bridge:bridge_run("Out = 1", S, T)', maxresult=1))
                                  for _ in range(n)], repeat=3)[0]
    line("a small Prolog call from Python (Engine.call)", 1e6 * t / n, "µs",
         1e6 * pyswip_query / n, "the same goal through pyswip's query")
    state = games.initial("connect(4,7,6)")
    t, _ = timed(lambda: [games.play(state, "4") for _ in range(n // 4)], repeat=3)
    line("a Connect Four move played from Python (games.play)", 1e6 * t / (n // 4), "µs")
    with tempfile.TemporaryDirectory() as tmp:
        db = open_kb(Path(tmp) / "bench.db")
        for game in ("tictactoe", "hexapawn"):
            graphs._CACHE.clear()
            t0 = time.perf_counter()
            summary = commands.solve(db, game)
            t = time.perf_counter() - t0
            anchor = (0.17, "tictac cached minimax (measured earlier)") if game == "tictactoe" else (None, "")
            line(f"solve {game} cold and store ({summary['positions']} positions)", t, "s", *anchor)
            t, _ = timed(lambda: (graphs._CACHE.clear(), commands.solve(db, game)), repeat=3)
            line(f"solve {game} again, read back from the knowledge base", t, "s")
            t, _ = timed(lambda: compile_graph(game, games.players(game), False, 10**6, "bench"), repeat=3)
            line(f"compile {game} state graph from Prolog", t, "s")
        for game in ("tictactoe", "hexapawn"):
            first, second = games.players(game)
            n = 50_000
            t, counts = timed(lambda: games.play_series(game, {first: "random", second: "random"}, n, 1))
            line(f"random self-play in Prolog, {game}", n / t, "games/s", 7000 if game == "tictactoe" else None,
                 "OpenSpiel pure Python", higher_is_better=True)
            share = {k: round(100 * v / n, 2) for k, v in counts.items()}
            print(f"{'':<52} results %: {share}")

    call_memory()


if __name__ == "__main__":
    main()
