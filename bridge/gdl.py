"""``educable gdl import``: a GDL game (rules/gdl.pl) checked and put into a games folder.

The file is loaded under its new name first, then played at random a few
times (which is where a move no role can make shows), and only then copied, so a
file that would not play is never put where every command loads it.
"""
from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from educable.bridge import files, games
from educable.bridge.engine import RULES_DIR, BadInput, engine, relative_paths

NAME = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
TRIAL_GAMES = 20
TRIAL_SECONDS = 5.0      # the trial stops after this long with the games played so far (at least one)


def import_kif(source: Path, name: str | None, folder: Path | None, replace: bool, seed: int = 1) -> dict[str, Any]:
    """Check the GDL file ``source`` as the game ``name`` (default: its file name) and copy it to
    ``folder`` (default rules/games/) as NAME.kif; BadInput says why when it cannot be played."""
    if not source.exists():
        raise BadInput(f"{source}: no such GDL file")
    files.checked_file(source, "GDL file")
    name = source.stem.lower() if name is None else name
    if not NAME.match(name):
        raise BadInput(f"game name {name!r}: use up to 64 lower-case letters, digits and _ (starting with a "
                       "letter), e.g. --name tictactoe_gdl")
    folder = folder or RULES_DIR / "games"
    if not folder.is_dir():
        raise BadInput(f"folder {folder} does not exist")
    target = folder / f"{name}.kif"
    if target.exists() and not replace:
        raise BadInput(f"{target} exists (--replace replaces it)")
    if name in games.games() and not (replace and target.exists()):
        raise BadInput(f"a game named {name} is already loaded (choose another --name)")
    with tempfile.TemporaryDirectory() as tmp:
        trial = Path(tmp) / f"{name}.kif"
        shutil.copyfile(source, trial)
        try:
            players, results, played, start, cut = _trial(trial, name, source, seed)
        except BadInput as exc:                # the user's file, not the trial copy, is named
            raise BadInput(str(exc).replace(str(trial), str(source)).replace(relative_paths(str(trial)), str(source))) \
                from None
    try:
        shutil.copyfile(source, target)
    except OSError as exc:
        raise BadInput(f"cannot write {target}: {exc.strerror}") from None
    return {"game": name, "file": str(target), "players": players, "start": start.key,
            "trial_games": played, "trial_results": results, "trial_cut": cut}


def _trial(trial: Path, name: str, source: Path, seed: int) -> tuple[list[str], dict[str, int], int, Any, int]:
    """Load the trial copy and play it at random: TRIAL_GAMES games, or as many as TRIAL_SECONDS allow
    (a slow game that never ends takes its 2,000 plies a game); players, results, games played, start,
    and how many of the games were cut (still going after 2,000 plies, scored draws)."""
    eng = engine()
    eng.load_game(trial)
    broken = next((m for f, m in eng.broken.items() if f.endswith(f"{name}.kif")), None)
    if broken:
        raise BadInput(broken)
    players = games.players(name)
    results: dict[str, int] = {}
    cut = 0
    t0 = time.monotonic()
    played = 0
    while played < TRIAL_GAMES and (played == 0 or time.monotonic() - t0 < TRIAL_SECONDS):
        try:
            one = games.play_series(name, {p: "random" for p in players}, 1, seed + played)
        except LookupError:
            raise BadInput(f"{source}: a random game stopped where the side to move had no legal move; a "
                           "GDL game gives the side on turn a move in every state that is not terminal") from None
        for result, n in one.items():           # a game cut after endless_plies/1 moves is scored a draw
            results["draw" if result == "cut" else result] = results.get("draw" if result == "cut" else result, 0) + n
            cut += n if result == "cut" else 0
        played += 1
    return players, results, played, games.initial(name), cut
