"""educable as a Python library: the games, the knowledge base and every judgement the commands give.

    import educable
    educable.games()                                    # what `educable games --json` prints
    kb = educable.KnowledgeBase("kb.db")
    kb.solve("tictactoe")["winner"]                     # None: a draw
    env = educable.env("connect(4,7,6)")                # a PettingZoo AEC environment
    kb.evaluate("tictactoe", my_policy, exact=True)     # any Python policy, judged exactly

Every call returns plain Python values: the same data as the command's ``--json``.  Bad input
raises ``educable.Error`` with the one line the command would print.  The library under it is
the one the commands call (bridge/), imported on first use, so ``import educable`` costs little.
docs/python.md is the manual.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils


def __getattr__(name: str) -> Any:
    """``educable.__version__``, read from the installed metadata when first asked (importing
    importlib.metadata at every ``import educable`` would cost more than the rest of it)."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("educable")
        except PackageNotFoundError:       # the sources, not installed
            return "0+unknown"
    raise AttributeError(f"module 'educable' has no attribute {name!r}")


__all__ = ["Error", "Game", "KnowledgeBase", "env", "game", "games", "gym_env", "load_games", "observation",
           "openspiel_game", "openspiel_player", "player"]


def _bridge() -> Any:
    from educable.bridge import outside
    outside.allow_loading()           # the programmer names FILE.py:NAME players as on the command line
    return outside


from educable.bridge.errors import Error  # noqa: E402  (educable.Error: a module of no imports)


def _checked(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(...)`` with educable's own refusals raised as Error (their one line), anything else as it is."""
    from educable.bridge.engine import BadInput, ResourceLimit, RuleFileError
    from educable.kb.db import KBError
    from educable.learners.errors import Unsolvable
    try:
        return fn(*args, **kwargs)
    except (BadInput, KBError, RuleFileError, ResourceLimit, Unsolvable) as exc:   # as a command's one line
        raise Error(" ".join(str(exc).split())) from None


def load_games(path: str | os.PathLike) -> list[str]:
    """Load a game file (Prolog .pl, GDL .kif) or every game file of a folder, as ``--games-dir``
    does; the names of the games known after it.  A file that does not load raises Error naming it."""
    from educable.bridge import field
    from educable.bridge import games as games_mod
    from educable.bridge.engine import engine
    from educable.bridge.files import game_files
    where = Path(path)
    files = [where] if where.is_file() else game_files(where) if where.is_dir() else None
    if files is None:
        raise Error(f"no game file or folder {where}")
    e = engine()
    loaded = {Path(f).resolve() for f in e.call("findall(F, ( source_file(F) ; gdl:gdl_file(_, F) ), Out)")}
    for file in files:
        if file.resolve() in loaded:
            continue                            # loaded already (by --games-dir, or an earlier call)
        before = dict(e.broken)
        e.load_game(file.resolve())
        broken = [why for name, why in e.broken.items() if before.get(name) != why]
        if broken:
            raise Error(f"{file} did not load: {broken[0]}")
    games_mod.check_game.cache_clear()
    games_mod.players.cache_clear()
    field.forget()
    return games_mod.games()


def games(db: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """Every game the game files name (shipped and loaded), with players, start and whether solved in
    ``db``, and each other family member ``db`` holds solved (``educable games --json``)."""
    from educable.bridge import catalog
    from educable.kb.db import open_kb
    return _checked(lambda: catalog.list_games(open_kb(db) if db is not None else None))


class Game:
    """A game to walk: states are the position texts the commands take (the mover included)."""

    def __init__(self, name: str) -> None:
        from educable.bridge import games as games_mod
        self.name: str = _checked(games_mod.check_game, name)
        self.players: list[str] = games_mod.players(name)

    def __repr__(self) -> str:
        return f"Game({self.name!r})"

    def start(self) -> str:
        """The first state's text."""
        from educable.bridge import games as games_mod
        return games_mod.initial(self.name).key

    def _state(self, position: str) -> Any:
        from educable.bridge import games as games_mod
        return _checked(games_mod.parse, self.name, position)

    def to_move(self, position: str) -> str:
        """Who moves in ``position`` (``chance`` at a chance node)."""
        return str(self._state(position).mover)

    def moves(self, position: str) -> list[str]:
        """The legal moves' texts ([] when the game is over)."""
        from educable.bridge import games as games_mod
        return [m for m, _ in games_mod.moves(self._state(position))]

    def play(self, position: str, move: str) -> str:
        """The state after ``move``; Error for an illegal or malformed move."""
        from educable.bridge import games as games_mod
        return str(_checked(games_mod.play, self._state(position), move).key)

    def result(self, position: str) -> str | None:
        """The winner, ``draw``, or None while the game goes on (a game of score: ``score(N)``)."""
        from educable.bridge import games as games_mod
        found = games_mod.result(self._state(position))
        return None if found is None else str(found)

    def board(self, position: str) -> str:
        """The board drawn as text (what `educable show` prints)."""
        from educable.bridge import games as games_mod
        return "\n".join(games_mod.board(self._state(position)))

    def cells(self, position: str, viewer: str | None = None) -> list[int] | None:
        """The cells as ``viewer`` (the mover unless said) sees them (cells/4: 0 empty, 1 own, 2
        the opponent's); None for a game without cells."""
        from educable.bridge import field
        state = self._state(position)
        return field.cells(self.name, state.key, viewer or state.mover)

    def actions(self) -> list[str]:
        """Every move a player can make, numbered as the environments and OpenSpiel number them."""
        from educable.bridge import field
        return list(_checked(field.actions, self.name))


def game(name: str) -> Game:
    """The game ``name`` (shipped, a family member such as ``connect(3,5,4)``, or loaded)."""
    return Game(name)


def player(name: str, policy: Any) -> str:
    """Make ``policy`` a player called ``name`` for this process: a function of an environment's
    observation answering an action number, an object with ``act(observation)``, or one with
    Stable-Baselines3's ``predict(observation, action_masks=...)``.  Returns the name, which every
    judgement, evaluation and tournament below takes."""
    return str(_checked(_bridge().register, name, policy))


def _name(agent: Any) -> str:
    """An agent given as a name, or as a policy object (registered under its own name)."""
    if isinstance(agent, str):
        return agent
    label = getattr(agent, "__name__", None) or type(agent).__name__
    return player(f"python:{label}", agent)


def _typed(learner: str, options: dict[str, Any]) -> None:
    """Error unless each option has its declared type (the command line's parser sees to that there;
    here alpha='x' reached the learner's range check as "'<' not supported").  A whole number is a
    number; True is no whole number.  Unknown names are left to the learner's own one line."""
    from educable.bridge import registry
    if learner not in registry.TRAINABLE:
        return
    declared = {o.name: o for o in registry.learner_module(learner).OPTIONS}
    for name, value in options.items():
        option = declared.get(name)
        if option is None or value is None:
            continue
        kind = option.type
        if kind is bool:
            fits = isinstance(value, bool)
        else:
            fits = isinstance(value, (int, float) if kind is float else kind) and not isinstance(value, bool)
        if not fits:
            raise Error(f"option {name} of the {learner} learner takes a {kind.__name__}, not {value!r}")
        if kind in (int, float) and ((option.low is not None and value < option.low)
                                     or (option.high is not None and value > option.high)
                                     or value != value):            # NaN is in no range
            low = "" if option.low is None else f"{option.low:g}"
            high = "" if option.high is None else f"{option.high:g}"
            raise Error(f"option {name} of the {learner} learner takes a value from {low or '-inf'} to "
                        f"{high or 'inf'}, not {value!r}")


class KnowledgeBase:
    """One knowledge base file (created when missing), as ``--db`` names it."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        from educable.kb.db import open_kb, resolve_path
        _bridge()
        self.path = resolve_path(path)
        self.db: sqlite_utils.Database = _checked(open_kb, self.path)

    def __repr__(self) -> str:
        return f"KnowledgeBase({str(self.path)!r})"

    def solve(self, game: str, max_positions: int | None = None) -> dict[str, Any]:
        """Solve ``game`` and store its values (``educable solve --json``)."""
        from educable.bridge import commands
        return dict(_checked(commands.solve, self.db, game, max_positions))

    def query(self, game: str, position: str, depth: int = 5, agents: list[str] | None = None) -> dict[str, Any]:
        """Every move of ``position`` with its value, and agents' values (``educable query --json``)."""
        from educable.bridge import querying
        return dict(_checked(querying.query, self.db, game, position, depth, agents or []))

    def train(self, game: str, agent: str, learner: str = "punish", games: int = 500, vs: str = "self",
              side: str = "both", seed: int = 0, **options: Any) -> dict[str, Any]:
        """Train ``agent`` with ``learner`` (``educable train --json``); ``options`` by the names of
        the learner's options (``educable train --learner L --help``), e.g. ``alpha=0.2``."""
        from educable.bridge import commands
        _typed(learner, options)
        if not isinstance(vs, str):
            raise Error(f"vs names the training partner (self, random, minimax, an agent...), not a "
                        f"{type(vs).__name__}: a Python policy is judged (evaluate, tournament), not trained against")
        return dict(_checked(commands.train_agent, self.db, game, learner, agent, seed, options, games, vs, side))

    def evaluate(self, game: str, agent: Any, vs: Any = None, exact: bool = False, games: int = 1000,
                 seed: int = 0, max_positions: int | None = None) -> dict[str, Any]:
        """``educable eval --json``: against ``vs`` (win/draw/loss, sampled or exact), or with
        ``exact`` alone what ``agent`` guarantees against a best-responding opponent.  ``agent``
        and ``vs`` are names or Python policies (see ``player``)."""
        from educable.bridge import commands
        me, them = _name(agent), None if vs is None else _name(vs)
        if exact:
            return dict(_checked(commands.evaluate_exact, self.db, game, me, them, max_positions))
        return dict(_checked(commands.evaluate_series, self.db, game, me, them, games, seed))

    def judge(self, game: str, agent: Any, games: int = 20, seed: int = 0, openings: int = 2,
              per_opening: int = 0) -> dict[str, Any]:
        """``educable judge --json``: ``agent`` (a name or a policy) against the perfect Connect Four
        player: move accuracy, results from the start and from every opening."""
        from educable.bridge import commands
        return dict(_checked(commands.judge, self.db, game, _name(agent), games, seed, openings, None, per_opening))

    def tournament(self, game: str, players: list[Any], games: int = 100, seed: int = 0) -> dict[str, Any]:
        """A round robin with ratings (``educable tournament --json``); players by name or as policies."""
        from educable.bridge import tournament
        return dict(_checked(tournament.run, self.db, game, [_name(p) for p in players], games, seed))

    def agents(self, game: str | None = None) -> list[dict[str, Any]]:
        """The stored agents (``educable agents --json``)."""
        from educable.bridge import commands
        return list(commands.list_agents(self.db, game))

    def runs(self, agent: str | None = None) -> list[dict[str, Any]]:
        """The training runs, newest first (``educable runs --json``)."""
        from educable.bridge import commands
        return list(commands.list_runs(self.db, agent))


def env(game: str, render_mode: str | None = None, max_positions: int | None = None) -> Any:
    """``game`` as a PettingZoo AEC environment (the extra ``field``): docs/python.md."""
    from educable.bridge.pettingzoo_env import aec_env
    return _checked(aec_env, game, render_mode, max_positions)


def gym_env(game: str, opponent: str = "random", side: str | None = None, db: str | os.PathLike | None = None,
            render_mode: str | None = None, max_positions: int | None = None) -> Any:
    """``game`` as a Gymnasium environment of one agent against ``opponent`` (the extra ``field``)."""
    from educable.bridge.pettingzoo_env import gym_env as make
    return _checked(make, game, opponent, side, db, render_mode, max_positions)


def openspiel_game(game: str, max_positions: int | None = None) -> Any:
    """``game`` registered with OpenSpiel and loaded (the extra ``openspiel``): its algorithms run on it."""
    from educable.bridge.openspiel_game import openspiel_game as make
    return _checked(make, game, max_positions)


def openspiel_player(game: str, bot: Any) -> Any:
    """A policy of an OpenSpiel bot or policy (MCTSBot, a TabularPolicy...) built on
    ``openspiel_game(game)``: pass it to ``player``, ``KnowledgeBase.evaluate`` or ``tournament``."""
    from educable.bridge.openspiel_game import player as make
    return _checked(make, game, bot)


def observation(game: str, position: str) -> dict[str, Any]:
    """What an environment shows the player to move in ``position``."""
    from educable.bridge import games as games_mod
    from educable.bridge import outside
    state = _checked(games_mod.parse, game, position)
    return dict(outside.observation(game, state.key, state.mover, [m for m, _ in games_mod.moves(state)]))
