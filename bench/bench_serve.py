"""The window's speed: `educable serve` measured from outside, as a browser would ask it.

Targets (issue "A page in the browser"): ready in < 1 s; the play view of a stored tic-tac-toe
position (its board and every move's values) in < 100 ms; an agent's reply < 100 ms for a table
agent, < 300 ms for a Connect Four n-tuple agent and for `perfect`; 20 concurrent clients playing
for 60 s: no error, p99 < 1 s.  The anchor in the same run is the floor of one request: a GET of
a static file, which touches neither Prolog nor SQLite.

    .venv/bin/python bench/bench_serve.py [--seconds 60] [--clients 20]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from common import line


def against(name: str, value: float, unit: str, target: float) -> None:
    """A figure beside its target (smaller is better)."""
    verdict = "met" if value < target else "NOT met"
    print(f"{name:<52} {value:>10.4g} {unit}   target < {target:g} {unit}: {verdict} ({target / value:.2f}x)", flush=True)

EXE = str(Path(sys.executable).parent / "educable")
C4 = "connect(4,7,6)"


def run(db: Path, *args: str) -> None:
    subprocess.run([EXE, *args, "--db", str(db)], check=True, capture_output=True, timeout=1800)


TOKEN: dict[str, str] = {}       # the server's secret, which every POST carries (web/trust.py)


def start(db: Path) -> tuple[subprocess.Popen, str, float]:
    """The server, its address, and seconds from the command to the first answered request."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([EXE, "serve", "--port", "0", "--db", str(db)], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    url = re.search(r"at (http://[^/\s]+)/", line).group(1)
    TOKEN["X-Educable-Token"] = re.search(r"X-Educable-Token: (\S+)", line).group(1)
    while True:
        try:
            if httpx.get(url + "/api/games", timeout=10).status_code == 200:
                return proc, url, time.perf_counter() - t0
        except httpx.TransportError:
            time.sleep(0.01)


def median_ms(fn, n: int) -> tuple[float, float]:
    """Median and worst of ``n`` calls, in ms (after one warm-up call)."""
    fn()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(1000 * (time.perf_counter() - t))
    return statistics.median(times), max(times)


def expect(r: httpx.Response) -> httpx.Response:
    if r.status_code != 200:
        raise SystemExit(f"{r.request.url}: {r.status_code} {r.text[:200]}")
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="how long the concurrent clients play")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--c4-games", type=int, default=20_000, help="self-play games of the Connect Four n-tuple agent")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    db = folder / "serve.db"
    print(f"setting up: solve tictactoe, a Q-learning agent, a Connect Four n-tuple agent of {args.c4_games:,} games")
    run(db, "solve", "tictactoe")
    run(db, "train", "tictactoe", "--learner", "qlearn", "--agent", "q", "--games", "2000")
    run(db, "train", C4, "--learner", "ntuple", "--agent", "c4", "--games", str(args.c4_games))
    proc, url, ready = start(db)
    try:
        against("serve: ready (command to first answer)", ready, "s", 1.0)
        c = httpx.Client(base_url=url, timeout=60, headers=TOKEN)
        floor, _ = median_ms(lambda: expect(c.get("/static/style.css")), 50)
        line("the floor: a static file's GET, median", floor, "ms")
        view, worst = median_ms(lambda: expect(c.get("/api/view", params={
            "game": "tictactoe", "position": "x../.o./...", "agent": "q"})), 50)
        against("play view, stored tic-tac-toe (board + values), median", view, "ms", 100)
        line("  the same, worst of 50", worst, "ms")
        body = {"game": "tictactoe", "position": "x../.o./...", "opponent": "q"}
        reply, _ = median_ms(lambda: expect(c.post("/api/move", json=body)), 50)
        against("reply of a Q-table agent, median", reply, "ms", 100)
        c4 = "......./......./......./......./......./...x..."
        for who, target in (("c4", 300), ("perfect", 100)):
            body = {"game": C4, "position": c4, "opponent": who, "moves": ["4"]}
            ms, _ = median_ms(lambda: expect(c.post("/api/move", json=body)), 20)
            against(f"reply on Connect Four of {who}, median", ms, "ms", target)
        c4_values(c)
        concurrent(url, args.clients, args.seconds)
        concurrent(url, args.clients, min(args.seconds, 20.0), C4)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def c4_values(c: httpx.Client) -> None:
    """The values of 50 Connect Four positions (from random games, each asked once: the perfect
    player's values, and the agents'): median and p99 against 100 and 300 ms."""
    import random
    rng = random.Random(5)
    positions = []
    for _ in range(50):
        cols = [0] * 7
        rows = [["."] * 7 for _ in range(6)]
        for ply in range(rng.randrange(1, 16)):
            col = rng.choice([k for k in range(7) if cols[k] < 6])
            rows[5 - cols[col]][col] = "xo"[ply % 2]
            cols[col] += 1
        positions.append("/".join("".join(r) for r in rows))
    times, asked = [], {}
    for key in positions:
        t = time.perf_counter()
        r = c.get("/api/query", params={"game": C4, "position": key})
        if r.status_code == 200:               # a random filling can make a position no game reaches: refused
            times.append(1000 * (time.perf_counter() - t))
            asked[key] = times[-1]
    if not times:
        raise SystemExit("no Connect Four position answered")
    times.sort()
    print(f"  ({len(times)} of {len(positions)} random positions are ones a game reaches)")
    against("values of a Connect Four position, median of 50", statistics.median(times), "ms", 100)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    against("  the same, p99", p99, "ms", 300)
    # the anchor: bitbully alone (its 12-ply book loaded once), the same positions scored in this process
    try:
        import bitbully
    except ImportError:
        return
    agent, alone, by_key = bitbully.BitBully(), [], {}
    for key in positions:
        try:
            board = bitbully.Board([[{"x": 1, "o": 2}.get(ch, 0) for ch in row] for row in key.split("/")])
        except Exception:              # noqa: BLE001  (a filling no game reaches: bitbully refuses it too)
            continue
        t = time.perf_counter()
        agent.score_all_moves(board)
        alone.append(1000 * (time.perf_counter() - t))
        by_key[key] = alone[-1]
    slowest = max(asked, key=asked.get)
    print(f"  the slowest request: position {list(asked).index(slowest) + 1} of {len(asked)} asked, "
          f"{asked[slowest]:,.0f} ms (bitbully alone {by_key.get(slowest, float('nan')):,.0f} ms)")
    alone.sort()
    alone_p99 = alone[min(len(alone) - 1, int(0.99 * len(alone)))]
    line("  anchor: bitbully alone on the same positions, median", statistics.median(alone), "ms")
    line("  anchor: bitbully alone, p99 (its search past the 12-ply book)", alone_p99, "ms")
    print(f"  the page's p99 is {p99 / alone_p99:.2f}x bitbully's own: the rest of a request is "
          f"{p99 - alone_p99:,.0f} ms at the worst position")


def concurrent(url: str, clients: int, seconds: float, game: str = "tictactoe") -> None:
    """``clients`` threads each playing games against random (a view, then a move) for ``seconds``
    (tic-tac-toe, or Connect Four against `perfect`): requests, errors, p50 and p99."""
    times: list[float] = []
    errors: list[str] = []
    stop = time.perf_counter() + seconds

    def client(k: int) -> None:
        start = ".../.../..." if game == "tictactoe" else "/".join(["......."] * 6)
        opponent = "random" if game == "tictactoe" else "perfect"
        with httpx.Client(base_url=url, timeout=30, headers=TOKEN) as c:
            position, n = start, 0
            while time.perf_counter() < stop:
                t = time.perf_counter()
                r = c.get("/api/view", params={"game": game, "position": position})
                times.append(time.perf_counter() - t)
                if r.status_code != 200:
                    errors.append(r.text[:120])
                    return
                board = r.json()["board"]
                if board["result"] is not None:
                    position = start
                    continue
                t = time.perf_counter()
                r = c.post("/api/move", json={"game": game, "position": position, "opponent": opponent, "seed": n})
                times.append(time.perf_counter() - t)
                if r.status_code != 200:
                    errors.append(r.text[:120])
                    return
                position, n = r.json()["next"], n + 1
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times.sort()
    p50 = 1000 * times[len(times) // 2]
    p99 = 1000 * times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"{clients} clients on {game} for {seconds:g} s: {len(times):,} requests ({len(times) / seconds:,.0f}/s), "
          f"{len(errors)} errors{': ' + errors[0] if errors else ''}")
    line("  p50 of a request", p50, "ms")
    against("  p99 of a request", p99, "ms", 1000)


if __name__ == "__main__":
    main()
