"""The position limit: how many positions educable enumerates before it says a game is too large
(--max-positions, $EDUCABLE_MAX_POSITIONS).  A module of its own so that the command line reads
it without importing numpy."""
from __future__ import annotations

import os

from bridge.engine import BadInput

ENV_MAX = "EDUCABLE_MAX_POSITIONS"
DEFAULT_MAX_POSITIONS = 5_000_000     # about 3 GB of Prolog trie and Python arrays at the peak: fits 24 GB with room
LIMIT_RANGE = (1, 200_000_000)


def max_positions(value: int | str | None = None) -> int:
    """The position limit: ``value``, else $EDUCABLE_MAX_POSITIONS, else the default; BadInput when out of range."""
    source = "--max-positions"
    if value is None:
        value = os.environ.get(ENV_MAX)
        source = ENV_MAX
    if value is None or value == "":
        return DEFAULT_MAX_POSITIONS
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise BadInput(f"{source} must be a whole number, not {value!r}") from None
    lo, hi = LIMIT_RANGE
    if not lo <= n <= hi:
        raise BadInput(f"{source} must be between {lo:,} and {hi:,} (got {n:,})")
    return n
