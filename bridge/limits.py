"""The position limit: how many positions educable enumerates before it says a game is too large
(--max-positions, $EDUCABLE_MAX_POSITIONS).  A module of its own so that the command line reads
it without importing numpy."""
from __future__ import annotations

import os

from educable.bridge.textinput import whole_number

ENV_MAX = "EDUCABLE_MAX_POSITIONS"
DEFAULT_MAX_POSITIONS = 5_000_000     # about 3 GB of Prolog trie and Python arrays at the peak: fits 24 GB with room
LIMIT_RANGE = (1, 200_000_000)


def max_positions(value: int | str | None = None) -> int:
    """The position limit: ``value``, else $EDUCABLE_MAX_POSITIONS, else the default; BadInput when out of range."""
    source = "--max-positions"
    if value is None:
        value = os.environ.get(ENV_MAX)
        source = ENV_MAX
        if not value:                   # unset, or set to nothing: the default
            return DEFAULT_MAX_POSITIONS
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    elif not isinstance(value, str):          # the library's max_positions=: 2.5, True, a list ... (not a count)
        value = repr(value)
    lo, hi = LIMIT_RANGE
    return whole_number(value.strip(), source, lo, hi, "positions")


# The rat race's ranges: the command line's options and a resumed run's stored row are held to the same.
RACE_SEED_STRIDE = 1_000_000           # board i's seed is SEED * RACE_SEED_STRIDE + i
RACE_MAX_SEED = 2**32 // RACE_SEED_STRIDE - 1     # board seeds stay within numpy's 32-bit seeds
RACE_MAX_BOARDS = 100_000
RACE_MAX_TURNS = 10_000_000
