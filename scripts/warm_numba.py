"""Compile educable's numba loops into numba's cache once, before the first command needs them.

The rat race's loop and players (learners/race), the n-tuple learner (learners/ntuple.py), the
exact-fitness genetic learner (learners/ga_exact.py), the solver of games of chance
(learners/chance.py), Q-learning's self-play on them (learners/qlearn_kernel.py), CFR+ (learners/hidden.py)
and 2048's kernel (learners/tiles.py) are numba functions kept in numba's cache, in the user's
``~/.cache/educable/numba`` by module (learners/jit.py).  Where that cache does not hold this code's,
every process that races or judges
rule sets exactly or trains n-tuples compiles them again until one of them has written it: 7-10 s
of CPU a race player,
several processes at once in the test suite (its race tests took 71 s more CPU and 30 s more wall
with the cache empty).  scripts/setup.sh runs this when a compiled module changed since its last run,
unless ``--warmed`` says this code's kernels were compiled into the user's cache already (a marker
``--mark`` leaves there once every part has run: another clone of the same code skips the 8 s of
starting the commands that load them; should the marker outlive the kernels, commands compile what
they need, as they would without set-up).

    .venv/bin/python scripts/warm_numba.py [race | tiles | believers | learners | believer]    # parts (set-up: race and tiles, believers, learners side by side)
    .venv/bin/python scripts/warm_numba.py --warmed | --mark
"""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def race(players: tuple[str, ...] = ("colorscore", "random")) -> None:
    """The race's loop with each of ``players``' compiled kernels, and a Python player's turn."""
    import numpy as np

    from educable.bridge.race import race_boards, spec
    from educable.learners.race.players import batch
    from educable.learners.race.sim import Race
    from educable.learners.race.track import generate
    for name in players:                       # the loop, and each compiled player's kernel
        race_boards([1], name, spec(), 3)

    @batch
    def stay(views: np.ndarray, genomes: np.ndarray, noise: np.ndarray) -> np.ndarray:
        return np.zeros((len(views), 2), dtype=np.int64)
    Race([generate(1, spec())], stay, "stay").run(3)       # a Python player's turn, a step at a time


def believers() -> None:
    """The believer in the race, and one of its moves asked from Python (in a process of its own):
    the slowest kernels to compile, apart from the others so that set-up compiles them side by side."""
    from educable.bridge.race import race_boards, spec
    subprocess.run([sys.executable, __file__, "believer"], check=True)     # noqa: S603  (this script itself)
    race_boards([1], "believer", spec(), 3)


def believer_from_python() -> None:
    """One believer move asked from Python, as the race's tests ask it: numba caches it apart from the
    race's own typed call, and saves only what a process compiles (so in a process of its own)."""
    import numpy as np

    from educable.learners.race import believer
    features = np.zeros(believer.FEATURES, dtype=np.int64)
    believer.beliefs(np.zeros(100, dtype=np.uint8), features)
    believer.believer_move(np.zeros((5, 5), dtype=np.int8), features, 0.5, 0.5)


def learners() -> None:
    """The genetic learner's exact fitness, the n-tuple learner on a graph and lazily, and a game of
    chance solved (its value iteration over the cyclic parts of Pig's graph) and learned by Q-learning's
    self-play (learners/qlearn_kernel.py)."""
    from educable.cli import main as educable

    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        # first: the engine loads the games' folders when it starts, with the first command
        run(educable, folder, "--games-dir", str(ROOT / "examples" / "chance"), "solve", "pig(6,6)")
        run(educable, folder, "train", "pig(6,6)", "--learner", "qlearn", "--agent", "q", "--games", "10")
        run(educable, folder, "train", "kuhn", "--learner", "cfr", "--agent", "k", "--iterations", "2")
        run(educable, folder, "train", "kuhn", "--learner", "cfr", "--agent", "m", "--iterations", "2",
            "--sampling", "external")
        run(educable, folder, "train", "kuhn", "--learner", "qlearn", "--agent", "v", "--games", "10")
        for args in (["tictactoe", "--learner", "ga", "--agent", "g", "--cycles", "1", "--fitness", "exact"],
                     ["tictactoe", "--learner", "ntuple", "--agent", "n", "--games", "8"],          # on the graph
                     ["connect(4,7,6)", "--learner", "ntuple", "--agent", "c", "--games", "16", "--tuples", "2",
                      "--length", "2"]):                                                          # lazily
            run(educable, folder, "train", *args)


def tiles() -> None:
    """2048's kernel (learners/tiles.py): the n-tuple learner's games and expectimax over its agent."""
    from educable.cli import main as educable

    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        run(educable, folder, "train", "2048(2,2)", "--learner", "ntuple", "--agent", "t", "--games", "4")
        run(educable, folder, "eval", "2048(2,2)", "expectimax:1+t", "--games", "2")


def run(educable, folder: str, *args: str) -> None:
    """One command, in this process, on a scratch knowledge base in ``folder``."""
    try:
        educable([*args, "--db", str(Path(folder) / "warm.db")], standalone_mode=False)
    except SystemExit as done:                       # the command line ends with its exit status
        if done.code:
            raise


def marker() -> Path:
    """The file that says every part ran for this code: learners/ and this script, under this numba,
    Python and machine (the kernels themselves are stamped by numba and learners/jit.py)."""
    import hashlib
    import platform
    from importlib.metadata import version

    from educable.learners import jit
    key = "|".join([jit.learners_hash(), hashlib.sha256(Path(__file__).read_bytes()).hexdigest(), version("numba"),
                    platform.python_version(), platform.machine()])
    return jit.cache_folder() / "numba" / f"warmed-{hashlib.sha256(key.encode()).hexdigest()[:32]}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--warmed"]:
        sys.exit(0 if marker().is_file() else 1)
    if sys.argv[1:] == ["--mark"]:
        done = marker()
        with contextlib.suppress(OSError):
            done.parent.mkdir(parents=True, exist_ok=True)
            done.touch()
        sys.exit(0)
    for part in sys.argv[1:] or ["race", "tiles", "believers", "learners"]:
        {"race": race, "tiles": tiles, "believers": believers, "learners": learners,
         "believer": believer_from_python}[part]()
