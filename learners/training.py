"""What every training run reports, computed from the results of its games."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

WINDOW = 10


def summarise(results: list[str], agent_sides: list[list[str]]) -> dict:
    """Losses, last loss and the learning curve of a run.

    ``results[i]`` is game i's result (a player or ``draw``); ``agent_sides[i]``
    the sides the learning agent played in game i (both sides in self-play,
    where every decisive game is one of its sides losing).  Game numbers
    start at 1; the curve is losses per WINDOW games.
    """
    lost = [r != "draw" and (r not in sides or len(sides) == 2) for r, sides in zip(results, agent_sides)]
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
