"""``educable check``: a game file, or a loaded game, against the protocol (rules/check.pl).

A file is checked on its own (the engine loads no other game file, so a
copy of a shipped game can be checked next to the original); a game name is
checked among every loaded game.  The report lists problems (the game would
break a command), warnings (worth knowing, never fatal), the time spent
in each protocol predicate and, where a predicate redoes work that does not
depend on the position, what to change (rules/advice.pl).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from educable.bridge import files, games
from educable.bridge.engine import GAME_SUFFIXES, BadInput, engine, engine_with_only, quote, relative_paths
from educable.bridge.wording import plural

DEFAULT_LIMIT = 10_000      # games with at most this many positions are checked position by position
DEFAULT_PLAYOUTS = 300      # random games for the positions of larger games


@dataclass
class Report:
    """What check found in one file: load messages, then one entry per game it defines."""

    file: str
    load_errors: list[str] = field(default_factory=list)
    load_warnings: list[str] = field(default_factory=list)
    games: list[dict[str, Any]] = field(default_factory=list)

    @property
    def sound(self) -> bool:
        """No load error and no problem in any game (warnings allowed)."""
        return not self.load_errors and bool(self.games) and not any(g["problems"] for g in self.games)

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "sound": self.sound, "load_errors": self.load_errors,
                "load_warnings": self.load_warnings, "games": self.games}


def looks_like_file(target: str) -> bool:
    """A path rather than a game name: it ends in .pl, holds a path separator, or names a file."""
    return target.endswith((".pl", ".kif")) or os.sep in target or Path(target).is_file()


def check_file(path: Path, only: str | None = None, limit: int = DEFAULT_LIMIT,
               playouts: int = DEFAULT_PLAYOUTS, seed: int = 1) -> Report:
    """Load ``path`` alone and check each game it defines (or only the game ``only``)."""
    if not path.exists():
        raise BadInput(f"{path}: no such game file")
    files.checked_file(path, "game file")
    if path.suffix not in GAME_SUFFIXES:
        raise BadInput(f"{path}: a game file is a Prolog file ending in .pl or a GDL file ending in .kif")
    eng = engine_with_only(path.resolve())
    report = Report(str(path))
    for messages, into in ((eng.broken, report.load_errors), (eng.warnings, report.load_warnings)):
        for text in messages.values():
            into.extend([text] if isinstance(text, str) else text)
    if report.load_errors:
        return report
    names = games.games()
    if only is not None:
        names = [games.known_game(only)]
    if not names:
        report.load_errors.append(f"{report.file}: defines no game (no clause of game:game/1)")
    report.games = [check_game(g, limit, playouts, seed) for g in names]
    loaded = relative_paths(str(path.resolve()))
    for result in report.games:                   # the file as the user named it, not as resolved
        result["file"] = report.file
        for note in result["problems"] + result["warnings"] + result["advice"]:
            note["where"] = note["where"].replace(loaded, report.file, 1)
    return report


def check_name(game: str, limit: int = DEFAULT_LIMIT, playouts: int = DEFAULT_PLAYOUTS, seed: int = 1) -> Report:
    """Check the loaded game ``game`` (its file's load warnings included)."""
    result = check_game(games.known_game(game), limit, playouts, seed)
    return Report(result["file"], load_warnings=list(engine().warnings.get(result["file"], [])), games=[result])


def check_game(game: str, limit: int, playouts: int, seed: int) -> dict[str, Any]:
    """rules/check.pl's report on one game, paths shown relative to the working folder."""
    result = engine().call(f"check:check_game({quote(game)}, [limit({limit}), playouts({playouts}), "
                           f"seed({seed})], Out)")
    result["file"] = relative_paths(result["file"])
    if result["exhaustive"] and not result["problems"]:
        cycles = cycles_note(game, result["positions"], result["file"])
        if cycles is not None:
            result["warnings"].append(cycles)
        if games.is_hidden(game):
            kind, note = hidden_note(game, result["positions"], result["file"])
            if note is not None:
                result[kind].append(note)
    for note in result["problems"] + result["warnings"] + result["advice"]:
        note["where"] = relative_paths(note["where"])
        if isinstance(note.get("message"), str):
            note["message"] = relative_paths(note["message"])
    return result


def cycles_note(game: str, positions: int, where: str) -> dict[str, Any] | None:
    """Where a game whose every position was checked can come back to a position: a warning naming
    its strongly connected parts (learners.chance finds them), None when no position repeats.
    solve values such positions (as draws where nothing else decides, each cycle solved exactly on a game
    of chance); exact judgement of a game without chance refuses them."""
    from educable.bridge.compile import TooLarge, compile_graph
    from educable.learners.chance import _strong_parts
    try:
        graph = compile_graph(game, games.players(game), False, positions + 1, "finding cycles")
    except (TooLarge, BadInput):
        return None
    order, part_start = _strong_parts(graph.size, graph.start, graph.target)
    sizes = part_start[1:] - part_start[:-1]
    loops = {int(s) for s, t in zip(graph.source.tolist(), graph.target.tolist(), strict=True) if s == t}
    cyclic = [p for p in range(len(sizes)) if sizes[p] > 1 or int(order[part_start[p]]) in loops]
    if not cyclic:
        return None
    largest = max(cyclic, key=lambda p: sizes[p])
    on_cycles = sum(int(sizes[p]) for p in cyclic)
    message = (f"positions can come back: {plural(on_cycles, 'position')} in {plural(len(cyclic), 'cycle')} "
               f"(strongly connected parts, the largest of {plural(int(sizes[largest]), 'position')}); solve "
               "values them (each cycle solved exactly on a game of chance; a line that never ends is a draw), "
               "exact judgement without chance refuses them")
    return {"kind": "cycles", "predicate": "next/5", "where": where,
            "position": graph.keys[int(order[part_start[largest]])], "message": message, "count": 1}


def hidden_note(game: str, positions: int, where: str) -> tuple[str, dict[str, Any] | None]:
    """A game of hidden information whose every position was checked, against its rules: a problem
    where a player's moves depend on what it cannot see or its view forgets (learners/hidden.py says
    which two positions), a warning where a player's view tells every position apart (a view that
    leaks what should be hidden, such as the other's card)."""
    from educable.bridge.compile import TooLarge, compile_graph
    from educable.learners.hidden import NotHiddenGame, info_game
    try:
        graph = compile_graph(game, games.players(game), False, positions + 1, "checking hidden information")
    except (TooLarge, BadInput):
        return "warnings", None
    try:
        found = info_game(graph)
    except NotHiddenGame as exc:
        return "problems", {"kind": "hidden", "predicate": "sees/4", "where": where, "position": None,
                            "message": str(exc).removeprefix(f"{game}: "), "count": 1}
    if where.endswith(".kif"):                 # a GDL role sees what its (sees ...) rules say, by definition
        return "warnings", None
    import numpy as np
    sizes = np.bincount(found.node_set[found.node_set >= 0], minlength=found.sets)
    for p, name in enumerate(graph.players):
        mine = sizes[found.player == p]
        chance_before = bool((graph.mover == 3).any())
        if chance_before and len(mine) and (mine == 1).all():
            return "warnings", {"kind": "hidden", "predicate": "sees/4", "where": where, "position": None,
                                "message": f"{name}'s view tells every position apart: it sees everything chance "
                                           "dealt (does sees/4 leak what the other holds?)", "count": 1}
    return "warnings", None


def note_line(note: dict[str, Any], label: str = "") -> str:
    """One problem or warning as one line: where, what, at which position, how often."""
    at = f" (at {note['position']})" if note["position"] not in (None, "none") else ""
    more = note["count"] - 1
    again = f"; {plural(more, 'more position')} like it" if more > 0 else ""
    return f"{note['where']}: {label}{note['predicate']}: {note['message']}{at}{again}"


def timing_lines(timings: list[dict[str, Any]]) -> list[str]:
    """The protocol predicates by time spent, slowest first, with µs a call and share (none: no line)."""
    if not timings:
        return []
    total = sum(t["seconds"] for t in timings) or 1.0
    lines = [f"  {'predicate':<18}{'calls':>10}{'µs a call':>11}{'share':>7}"]
    for t in sorted(timings, key=lambda t: -t["seconds"]):
        per = 1e6 * t["seconds"] / max(t["calls"], 1)
        lines.append(f"  {t['predicate']:<18}{t['calls']:>10,}{per:>11.1f}{t['seconds'] / total:>7.0%}")
    return lines


def advice_lines(advice: list[dict[str, Any]]) -> list[str]:
    """What to change so that solve does less at every position (rules/advice.pl), costliest first."""
    if not advice:
        return []
    return ["  to make it faster (work done again at every position):"] + [
        f"  {a['where']}: {a['change']}" for a in advice]
