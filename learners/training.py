"""What every training run reports, computed from the results of its games."""
from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from educable.learners.graph import CUT, DRAW

WINDOW = 10
ENDLESS_PLIES = 2000    # moves after which a game in training is scored a draw (rules/game.pl's endless_plies/1)


_SIGNALLED: list[int] = []      # the stopping signals that reached this process (noted by the command line)


def note_signal(signum: int) -> None:
    """A real Ctrl-C or SIGTERM arrived (the command line's handler says so before it raises
    KeyboardInterrupt), as opposed to code that raised KeyboardInterrupt itself."""
    _SIGNALLED.append(signum)


def signalled() -> bool:
    """Whether a stopping signal reached this process: a KeyboardInterrupt without one is a bug
    of the code that raised it (a race player's, say), not the user's Ctrl-C."""
    return bool(_SIGNALLED)


def result_name(winner: int, players: list[str]) -> str:
    """A game's result as a run reports it, from a learner's winner code: a player (its index),
    ``draw`` (DRAW) or ``cut`` (CUT: still going after ENDLESS_PLIES moves, learned from as a draw)."""
    return "draw" if winner == DRAW else "cut" if winner == CUT else players[winner]


def summarise(results: list[str], agent_sides: list[list[str]]) -> dict:
    """Losses, last loss and the learning curve of a run.

    ``results[i]`` is game i's result (a player, ``draw``, or ``cut``: still going after
    ENDLESS_PLIES moves, a draw to the learner); ``agent_sides[i]``
    the sides the learning agent played in game i (both sides in self-play,
    where every decisive game is one of its sides losing).  Game numbers
    start at 1; the curve is losses per WINDOW games.  A game of score's
    results are score(N): their mean, and the mean per WINDOW games.
    """
    if results and all(r.startswith("score(") for r in results):     # a game of score: nothing is lost
        scores = [float(r[6:-1]) for r in results]
        return {"games": len(results), "losses": 0, "last_loss": None, "curve": [],
                "mean_score": sum(scores) / len(scores),
                "score_curve": [round(sum(scores[i:i + WINDOW]) / len(scores[i:i + WINDOW]), 4)
                                for i in range(0, len(scores), WINDOW)], "results": {}}
    lost = [r not in ("draw", "cut") and (r not in sides or len(sides) == 2)
            for r, sides in zip(results, agent_sides, strict=True)]
    last = max((i + 1 for i, x in enumerate(lost) if x), default=None)
    curve = [sum(lost[i:i + WINDOW]) for i in range(0, len(lost), WINDOW)]
    counts: dict[str, int] = {}
    for r in results:
        counts[r] = counts.get(r, 0) + 1
    return {"games": len(results), "losses": sum(lost), "last_loss": last, "curve": curve, "results": counts}


@dataclass
class TrainingRun:
    """What a learner's run hands back to the common training command."""

    results: list[str]                       # each game's result: a player or 'draw'
    sides: list[list[str]]                   # each game's sides the agent played
    seconds: float
    options: dict
    save: Callable[[dict], None]             # store the agent, with this run's record
    extra: dict = field(default_factory=dict)  # the learner's own report (checkpoints, ...)


COMMIT_SECONDS = 2.0     # a long run commits what it has learned at least this often


COMMIT_GAMES = 500        # on a graph, a run may commit (and is judged) at most this many games apart


def checkpoint_every(n_games: int, until_perfect: bool = False) -> int:
    """Games between the exact judgements of a run on a game the graph holds (its strength curve):
    about 40 a run, at least 25 games apart, a multiple of COMMIT_GAMES past it (the run's chances
    to commit come every COMMIT_GAMES games at most, and a judgement falls on one); at most
    COMMIT_GAMES apart with --until-perfect, which stops at the first perfect one.  (Every 500
    games at most made a 100,000-game n-tuple run on tic-tac-toe spend more time judging than
    playing.)"""
    every = max(25, n_games // 40)
    if until_perfect or every <= COMMIT_GAMES:
        return min(every, COMMIT_GAMES)
    return every - every % COMMIT_GAMES


CURVE_SHARE = 0.05      # of a run's time, at most, its strength curve's judgements take


class Curve:
    """When a run on a game the graph holds is judged for its strength curve: on the games
    ``checkpoint_every`` spaces, but a point is skipped while the judgements so far and the one due
    would take more than CURVE_SHARE of the run's time until then (a tiny game's point takes
    milliseconds, and its 25 games less).  The next judgement's time is guessed (``first_guess``,
    from the graph's size) until one has been timed, then taken as the quickest one's.  The run's last
    game is always judged (the run's own end judgement), and --until-perfect judges on every point
    (it stops at the first perfect one).  Which points are skipped depends on the machine's speed;
    what the run learns does not."""

    def __init__(self, n_games: int, until_perfect: bool, first_guess: float,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.every = checkpoint_every(n_games, until_perfect)
        self.n_games, self.until_perfect = n_games, until_perfect
        self.guess = first_guess
        self.spent = 0.0                 # seconds judging so far
        self._clock = clock
        self._start = clock()

    @property
    def tick(self) -> int:
        """Games between a run's chances to commit (at most COMMIT_GAMES); a judgement falls on one."""
        return min(self.every, COMMIT_GAMES)

    def due(self, done: int) -> bool:
        """Whether to judge after ``done`` games: on the spacing, within the share, or at the end."""
        if done >= self.n_games:
            return True
        if done % self.every:
            return False
        return self.until_perfect or self.affordable()

    def affordable(self) -> bool:
        """Whether a judgement now keeps the curve within CURVE_SHARE of the run's time (a commit's
        point asks this too, so that a large graph's commits are not each judged)."""
        return self.spent + self.guess <= CURVE_SHARE * (self._clock() - self._start)

    @contextmanager
    def judging(self) -> Iterator[None]:
        """Time a judgement: it counts against the share and guesses the next one."""
        t = self._clock()
        try:
            yield
        finally:
            took = self._clock() - t
            # the next one takes about as long as the quickest so far: one slowed by a busy machine
            # would otherwise hold the next points back
            self.guess = took if not self.spent else min(self.guess, took)
            self.spent += took


class Stopped(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM: ``kept`` games (or cycles) had been committed; ``how``
    says how to go on."""

    def __init__(self, kept: int, unit: str = "games", how: str = "the same command continues from there") -> None:
        super().__init__(f"kept {kept} {unit}")
        self.kept, self.unit, self.how = kept, unit, how


class Commits:
    """When a long run commits its progress: ``due()`` every ``every`` seconds of run; ``mark(count)``
    after a commit of ``count`` games (or cycles) in all; ``added(count)`` is how many of them are new.

    A commit rewrites everything learned, so a large table takes a while: the next one is then due
    no sooner than SPACING times the last one's duration (from the ``due()`` that said yes to its
    ``mark``), so committing never takes more than about a twentieth of a run (Connect Four's
    self-play spent a tenth of its time committing at 9 times)."""

    SPACING = 19.0

    def __init__(self, every: float = COMMIT_SECONDS) -> None:
        from datetime import datetime, timezone
        self.started = datetime.now(timezone.utc).isoformat(timespec="seconds")   # names the run's curve points
        self._clock = time.monotonic
        self.every = every
        self.last = self._clock()
        self.kept = 0
        self.cost = 0.0          # how long the last commit took
        self._began = self.last
        self._start = self.last
        self.kept_seconds = 0.0  # the run's time up to its last commit

    def due(self) -> bool:
        now = self._clock()
        if now - self.last >= max(self.every, self.SPACING * self.cost):
            self._began = now
            return True
        return False

    def added(self, count: int) -> int:
        return count - self.kept

    def commit(self, count: int, save: Callable[[int], None]) -> None:
        """Commit ``count`` games (or cycles) in all: ``save(new)``, with ``new`` of them not
        committed before, then ``mark``, as one step.  A stop (Ctrl-C, SIGTERM) that arrives
        meanwhile takes effect once both are done, so a stopped run reports as kept exactly what
        the knowledge base holds (a stop between the two reported nothing kept)."""
        with stops_held():
            save(self.added(count))
            self.mark(count)

    def mark(self, count: int) -> None:
        self.kept = count
        self.last = self._clock()
        self.cost = self.last - self._began
        self.kept_seconds = self.last - self._start


@contextmanager
def stops_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block is done, then act on the first that came as it would
    have (in the main thread; elsewhere signals do not arrive)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    stops = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in stops}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if held:
            handler = previous[signal.Signals(held[0])]
            if callable(handler):
                handler(held[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(held[0])
