"""A step of educable's PettingZoo environment beside PettingZoo's own classic games, in the same run.

Random play through the AEC loop (``last``, a legal action drawn from the mask, ``step``) on
educable's connect(4,7,6) and tictactoe against PettingZoo's ``connect_four_v3`` and
``tictactoe_v3`` (pygame installed, which they import: the extra ``bench``).  Targets: a step of
connect(4,7,6) and a random game of tic-tac-toe within 3x of PettingZoo's; ``educable.env('2048')``
ready in under 2 s (measured in a fresh process: its numbering comes from actions/2 and
chance_actions/2, never from the state graph) and a step of it within 300 us (PettingZoo has no
2048: no anchor).

    .venv/bin/python bench/bench_env.py [--seconds 3]
"""
from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
from common import line

TARGET = 3.0


def random_play(env, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Seconds a step and seconds a game of random play, over about ``seconds``."""
    rng = np.random.default_rng(seed)
    steps = played = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=int(rng.integers(2**31)))
        played += 1
        for agent in env.agent_iter():
            obs, _reward, done, truncated, _info = env.last()
            env.step(None if done or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    took = time.perf_counter() - t0
    return took / steps, took / played


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds of random play on each environment")
    args = ap.parse_args()
    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    import educable
    results = {}
    record: dict[str, dict] = {}
    for ours, theirs, name in (("connect(4,7,6)", connect_four_v3, "connect_four_v3"),
                               ("tictactoe", tictactoe_v3, "tictactoe_v3")):
        mine = educable.env(ours)
        random_play(mine, 0.5)                          # warm: the game numbered, its planes sized
        step, game = random_play(mine, args.seconds)
        anchor_step, anchor_game = random_play(theirs.env(), args.seconds)
        line(f"educable.env('{ours}'): a step", step * 1e6, "us", anchor_step * 1e6, f"PettingZoo {name}",
             words=("faster", "slower"))
        line(f"educable.env('{ours}'): a random game", game * 1e3, "ms", anchor_game * 1e3, f"PettingZoo {name}")
        results[ours] = (step / anchor_step, game / anchor_game)
        record[ours] = {"step_us": round(step * 1e6, 1), "game_ms": round(game * 1e3, 3), "anchor": f"pettingzoo {name}",
                        "anchor_step_us": round(anchor_step * 1e6, 1), "anchor_game_ms": round(anchor_game * 1e3, 3)}
    import subprocess
    import sys
    ready = float(subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import educable; "
                                  "educable.env('2048'); print(time.perf_counter() - t)"],
                                 capture_output=True, text=True, check=True).stdout)
    tiles = educable.env("2048")
    random_play(tiles, 0.5)
    rounds = [random_play(tiles, max(args.seconds / 3, 0.5), seed=r) for r in range(5)]     # this machine's
    step, game = sorted(rounds)[len(rounds) // 2]          # pace varies by a third from run to run: the median
    from educable.bridge.engine import engine
    e = engine()
    calls = 2000
    t0 = time.perf_counter()
    for _ in range(calls):
        e.call("Out = 1")
    floor = (time.perf_counter() - t0) / calls
    print(f"educable.env('2048'): ready in {ready:.2f} s (target under 2 s), a step {step * 1e6:.0f} us, median of "
          f"{len(rounds)} rounds ({', '.join(f'{s * 1e6:.0f}' for s, _ in rounds)}; target 300 us: "
          f"{'met' if step <= 300e-6 else 'MISSED'}), a random game {game * 1e3:.0f} ms; an empty call into Prolog "
          f"{floor * 1e6:.0f} us")
    record["2048"] = {"ready_s": round(ready, 2), "step_us": round(step * 1e6, 1), "game_ms": round(game * 1e3, 1),
                      "rounds_step_us": [round(s * 1e6, 1) for s, _ in rounds], "empty_call_us": round(floor * 1e6, 1)}
    c4, ttt = results["connect(4,7,6)"][0], results["tictactoe"][1]
    print(f"{'':<52} target within {TARGET:g}x: connect(4,7,6) step {c4:.2f}x, tic-tac-toe game {ttt:.2f}x: "
          f"{'met' if c4 <= TARGET and ttt <= TARGET else 'MISSED'}")
    out = Path(__file__).resolve().parent / "results" / "env_step.json"
    out.write_text(json.dumps({"command": "bench/bench_env.py", "seconds": args.seconds, "machine": platform.machine(),
                               "results": record}, indent=1) + "\n")
    print(f"{'':<52} written to bench/results/{out.name}")


if __name__ == "__main__":
    main()
