"""educable — the command line: parse, open the knowledge base, call one library function, print.

Every command has --help with an example; --json where a script would read
the output.  Errors a user can cause print one line and exit 2.
"""
from __future__ import annotations

import functools
import json
import math
import os
import random
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from educable.bridge import limits, registry
from educable.bridge.engine import GAMES_ENV, BadInput, PrologError, ResourceLimit, RuleFileError
from educable.bridge.errors import UnknownGame
from educable.bridge.limits import RACE_MAX_BOARDS, RACE_MAX_SEED, RACE_MAX_TURNS
from educable.bridge.textinput import check_argv, check_text, is_whole_number
from educable.bridge.wording import guarantee_words, results_words, score_text
from educable.kb.db import KBError, describe, open_kb, resolve_path
from educable.learners.errors import Unsolvable
from educable.learners.training import ENDLESS_PLIES, Stopped

USER_ERRORS = (BadInput, KBError, RuleFileError, ResourceLimit, Unsolvable)
class Whole(click.IntRange):
    """A whole number as every command reads one (bridge.textinput): ASCII digits, an optional '-',
    nothing else; Python's int() would also take '٤', '4_000' and ' 4 '.  Bounds as click.IntRange."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not is_whole_number(value.removeprefix("-")):
            self.fail(f"{value[:40]!r} is not a whole number (ASCII digits)", param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        """No bounds, nothing to say (click's own would print 'x<=None' in --help)."""
        return "" if self.min is None and self.max is None else super()._describe_range()


ROW_ID = Whole(1, 2**63 - 1)     # a stored run's or sweep's number: an SQLite integer


class Real(click.ParamType):
    """A number as a learner's option reads one: ASCII only, no space and no '_'; Python's float()
    would also take '١', ' 1 ' and '1_0'.  Its range is the learner's to check (with its message)."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            if not value.isascii() or not value.isprintable() or " " in value or "_" in value:
                self.fail(f"{value[:40]!r} is not a number (ASCII digits)", param, ctx)
            try:
                return float(value)
            except ValueError:
                self.fail(f"{value[:40]!r} is not a valid float.", param, ctx)
        return value


DEBUG_ENV = "EDUCABLE_DEBUG"


def fail(message: str, code: int = 2, kind: str = "error") -> None:
    """One line on stderr (control characters shown escaped), then exit with ``code``."""
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))
    click.echo(f"educable: {kind}: {line}", err=True)
    sys.exit(code)


def debugging() -> bool:
    """--debug was given (or EDUCABLE_DEBUG is set): show tracebacks of unexpected errors."""
    return bool(os.environ.get(DEBUG_ENV))


def handle_errors(fn: Callable) -> Callable:
    """Turn every expected failure into one line on stderr and a non-zero exit; anything
    unexpected is one `internal error` line and exit 1 (the traceback with --debug)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        previous = stop_on_sigterm()
        new_kb = "db_path" in kwargs and not existing(resolve_path(kwargs["db_path"]))
        try:
            for name, value in kwargs.items():
                check_text(name, value)
            return fn(*args, **kwargs)
        except USER_ERRORS as exc:
            if new_kb:
                drop_if_empty(resolve_path(kwargs["db_path"]))
            fail(hinted(exc, kwargs.get("db_path")))
        except Stopped as stop:
            kept = (f"{stop.kept} {stop.unit} committed before the stop are kept ({stop.how})" if stop.kept
                    else "nothing had been committed yet (a run commits every few seconds)")
            click.echo(f"\ninterrupted; {kept}", err=True)
            sys.exit(130)
        except PrologError as exc:
            fail(f"Prolog: {exc}", 1)
        except sqlite3.DatabaseError as exc:
            fail(describe(exc, resolve_path(kwargs.get("db_path"))))
        except OSError as exc:
            if exc.filename is None:              # not a file the user named: a bug, said as one
                raise
            fail(f"{str(exc.filename)[:80]}{'...' if len(str(exc.filename)) > 80 else ''}: {exc.strerror}")
        except KeyboardInterrupt:
            click.echo("\ninterrupted; what was committed is kept", err=True)
            sys.exit(130)
        except BrokenPipeError:                   # `educable agents | head`: the reader has all it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:
            if debugging():
                raise
            fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)", 1, "internal error")
        finally:
            if previous is not False:
                signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
    return wrapper


def existing(path: Path) -> bool:
    """Whether ``path`` exists (a name too long or a loop of links: it does not, as far as we know)."""
    try:
        return path.exists()
    except OSError:
        return False


def drop_if_empty(path: Path) -> None:
    """A knowledge base this command made, then refused its arguments: removed again while it holds
    nothing but its schema, so that a refused command leaves no new file behind."""
    from educable.kb.db import holds_nothing
    try:
        if path.is_file() and holds_nothing(path):
            for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
                leftover.unlink(missing_ok=True)
    except (OSError, sqlite3.Error):
        pass


def hinted(exc: Exception, db_path: str | None) -> str:
    """A refusal, with the hint a newcomer needs where there is one: a game no file defines but the
    knowledge base has agents of (its file is in a folder not given)."""
    if isinstance(exc, UnknownGame):
        from educable.kb.db import agents_of_game, resolve_path
        names = agents_of_game(db_path, exc.game)
        if names:
            return (f"unknown game '{exc.game}': {resolve_path(db_path)} holds {len(names)} agent(s) of it "
                    f"({', '.join(names[:3])}{', ...' if len(names) > 3 else ''}), but no loaded file defines it; "
                    "give its folder: educable --games-dir FOLDER ... (or set EDUCABLE_GAMES)")
    return str(exc)


GLOBAL_FLAGS = ("--debug",)            # main's own options, accepted after the command too
GLOBAL_VALUED = ("--games-dir",)


def global_options_first(args: list[str], commands: Mapping[str, Any]) -> list[str]:
    """``args`` with main's options (--debug, --games-dir) moved before the command wherever they
    were typed, and --db typed before the command moved after it (each command takes it)."""
    at = next((i for i, a in enumerate(args) if a in commands), None)
    if at is None:
        return args
    before, after = args[:at], args[at:]
    front, rest, db = [], [], []
    i = 0
    while i < len(after):
        a = after[i]
        if a == "--":
            rest += after[i:]
            break
        if a in GLOBAL_FLAGS:
            front.append(a)
        elif a in GLOBAL_VALUED and i + 1 < len(after):
            front += [a, after[i + 1]]
            i += 1
        elif any(a.startswith(g + "=") for g in GLOBAL_VALUED):
            front.append(a)
        else:
            rest.append(a)
        i += 1
    kept = []
    i = 0
    while i < len(before):
        if before[i] == "--db" and i + 1 < len(before):
            db += before[i:i + 2]
            i += 2
            continue
        if before[i].startswith("--db="):
            db.append(before[i])
        else:
            kept.append(before[i])
        i += 1
    return [*kept, *front, *rest, *db]


def stop_on_sigterm() -> Any:
    """SIGTERM stops a command as Ctrl-C does (a training run keeps what it committed), and both are
    noted as real signals (training.note_signal: a KeyboardInterrupt a race player raises itself is
    its fault, not the user's); returns the SIGTERM handler it replaces, or False off the main thread."""
    from educable.learners.training import note_signal
    last: list[int] = []

    def interrupt(signum: int, frame: Any) -> None:
        note_signal(signum)
        last[:] = [signum]
        raise KeyboardInterrupt

    def dropped(unraisable: Any) -> None:
        """A stop raised while C called back into Python (numba writing its cache, a ctypes callback)
        is printed and dropped there, and the command would go on: the signal comes again, once
        the callback has returned.  After a stop, an object the stop cut off half made fails in its
        finalizer (llvmlite's, when numba was loading a loop: "Exception ignored in ObjectRef.__del__"
        and a traceback under the command's one line); that is the stop's doing, and not printed."""
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and last:
            again = threading.Timer(0.2, os.kill, args=(os.getpid(), last[0]))
            again.daemon = True
            again.start()
            return
        if last and unraisable.object is not None and getattr(unraisable.object, "__name__", "") == "__del__":
            return
        previous_hook(unraisable)
    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, interrupt)
    except ValueError:
        return False
    previous_hook = sys.unraisablehook
    sys.unraisablehook = dropped
    return previous


def db_option(fn: Callable) -> Callable:
    return click.option("--db", "db_path", envvar="EDUCABLE_DB", default="educable.db", show_default=True,
                        metavar="PATH", help="Knowledge base file (or set EDUCABLE_DB).")(fn)


def json_option(fn: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(fn)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2))


def pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:6.2f}%" if whole else "     -"


class Heartbeat:
    """Where stderr is no terminal (a log, a pipe) and the output is not --json: a plain line on
    stderr every HEARTBEAT seconds of long work, so that nobody waits in silence."""

    def __init__(self, hidden: bool) -> None:
        self.every = heartbeat_seconds()
        self.on = not hidden and not sys.stderr.isatty() and self.every > 0
        self.last = time.monotonic()

    def beat(self, text: Callable[[], str]) -> None:
        if self.on and time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            click.echo(text(), err=True)


HEARTBEAT = 10.0
HEARTBEAT_ENV = "EDUCABLE_HEARTBEAT"      # seconds between the lines; 0: none (the test suite's setting)


def heartbeat_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get(HEARTBEAT_ENV, HEARTBEAT)))
    except ValueError:
        return HEARTBEAT


class Progress:
    """A click progress bar on stderr (not for --json; a line every 10 s when stderr is no
    terminal), drawn only once work starts, so a run refused for bad input prints just its error line.
    The line comes every 10 s even while no step ends (one long game, the exact judgement after a
    tournament's games), saying what is being done: the work may name its stage (``update(0, stage)``)."""

    def __init__(self, total: int | None, label: str, hidden: bool) -> None:
        self.total, self.label = total, label           # total None: work of no countable steps
        self.hidden = hidden or not sys.stderr.isatty()
        self.heartbeat = Heartbeat(hidden)
        self.done = 0
        self.stage: str | None = None
        self.bar: Any = None
        self.started = time.monotonic()
        self._stopped = threading.Event()

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        stage = f"; {self.stage}" if self.stage else ""
        if self.total is None:
            return f"{self.label}: still working{stage} ({elapsed:,.0f} s)"
        return f"{self.label}: {self.done:,} of {self.total:,} done{stage} ({elapsed:,.0f} s)"

    def update(self, n: int, stage: str | None = None) -> None:
        self.done += n
        if stage is not None:
            self.stage = stage
        self.heartbeat.beat(self.line)
        if self.hidden or self.total is None:
            return
        if self.bar is None:
            self.bar = click.progressbar(length=self.total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        if stage is not None:                           # on a terminal the bar's label names the stage
            self.bar.label = f"{self.label}: {stage}" if stage else self.label
        self.bar.update(n)

    def _tick(self) -> None:
        while not self._stopped.wait(self.heartbeat.every):
            self.heartbeat.beat(self.line)

    def __enter__(self) -> Callable[..., None]:
        if self.heartbeat.on:
            threading.Thread(target=self._tick, name="educable-heartbeat", daemon=True).start()
        return self.update

    def __exit__(self, *exc: Any) -> None:
        self._stopped.set()
        if self.bar is not None:
            self.bar.__exit__(*exc)


class OneLineGroup(click.Group):
    """click's group, with its usage errors (a missing argument, a bad option value) as one line."""

    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        kwargs["standalone_mode"] = False
        given = kwargs.pop("args") if "args" in kwargs else (args[0] if args else None)
        argv = [os.fspath(a) for a in given] if given is not None else sys.argv[1:]    # a script may pass paths
        try:
            check_argv(argv)
        except BadInput as exc:
            fail(str(exc))
        try:
            rv = super().main(global_options_first(argv, self.commands), *args[1:], **kwargs)
        except click.exceptions.UsageError as exc:
            hint = f" (see educable {exc.ctx.command_path.split(' ', 1)[1] + ' ' if exc.ctx and ' ' in exc.ctx.command_path else ''}--help)"
            fail(exc.format_message().replace("\n", " ") + hint)
        except click.exceptions.Abort:
            click.echo("\ninterrupted", err=True)
            sys.exit(130)
        except click.exceptions.ClickException as exc:
            fail(exc.format_message())
        sys.exit(rv if isinstance(rv, int) else 0)


def output_file(path: str | None, suffixes: tuple[str, ...], what: str = "output",
                db_path: str | None = None) -> str | None:
    """An output file named on the command line, checked before any work: its suffix, its folder, and
    that it is not the knowledge base (``db_path``, else the default one), a rule file or a game file
    in use, through any link (bridge.files.check_output)."""
    from educable.bridge import files
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise click.BadParameter(f"{path}: the file must end in {' or '.join(suffixes)}")
    if p.is_dir():
        raise click.BadParameter(f"{path} is a folder; name a file in it")
    if not p.parent.is_dir():
        raise click.BadParameter(f"{path}: folder {p.parent} does not exist")
    if not os.access(p.parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise click.BadParameter(f"{path}: cannot write there")
    try:
        files.check_output(path, what, resolve_path(db_path))
    except BadInput as exc:
        if db_path is not None:                  # in a command's body: its one line as it is
            raise
        raise click.BadParameter(str(exc)) from None
    return path


SEED = Whole(0, 2**32 - 1)       # numpy's and Prolog's generators both take these
MAX_GAMES = 10_000_000
                     # a run keeps every game's result in memory


@click.group(cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="educable")
@click.option("--debug", is_flag=True, help=f"Show the traceback of an unexpected error (or set {DEBUG_ENV}=1).")
@click.option("--games-dir", "games_dirs", multiple=True, metavar="FOLDER",
              help=f"Also load the game files in FOLDER (repeatable; or set {GAMES_ENV}, folders separated by ':').")
@click.pass_context
def main(ctx: click.Context, debug: bool, games_dirs: tuple[str, ...]) -> None:
    """A self-learning game player built as a declarative knowledge base.

    Game rules are Prolog files under rules/games/; what agents learn lives in
    one SQLite file (educable.db, or --db / EDUCABLE_DB).

    \b
    Start with:
      educable games
      educable solve tictactoe
      educable play hexapawn --opponent minimax
    """
    if debug:
        os.environ[DEBUG_ENV] = "1"
    if ctx.invoked_subcommand != "serve":     # a player named FILE.py:NAME runs that code: the person typing may ask it
        from educable.bridge import outside
        outside.allow_loading()
    if games_dirs:
        os.environ[GAMES_ENV] = os.pathsep.join([*games_dirs, *filter(None, [os.environ.get(GAMES_ENV)])])
    from educable.kb import db as kb_db
    kb_db.LEAN_IMPORT = True            # this process is the command's: sqlite-utils without numpy's types


@main.command()
@click.option("--repair", is_flag=True, help="Delete what can be recomputed (damaged stored graphs) so it is rebuilt.")
@db_option
@json_option
@handle_errors
def doctor(repair: bool, db_path: str, as_json: bool) -> None:
    """Check the knowledge base: SQLite's integrity, the schema, and every row educable reads.

    Prints each problem with where it is and how to repair it, and exits 1
    when there is any (0 when the file is sound). --repair deletes what
    educable can recompute; learned knowledge it cannot recompute is left to
    you.

    \b
    Example:
      educable doctor --db educable.db
    """
    from educable.bridge import commands
    from educable.kb import doctor as doctor_mod

    path = resolve_path(db_path)
    problems, repaired, rebuilt = commands.doctor(path, repair)
    if as_json:
        emit_json({"db": str(path), "problems": [{"where": p.where, "what": p.what, "how": p.how,
                                                  "repairable": p.repair is not None} for p in problems],
                   "repaired": repaired, "rebuilt": rebuilt})
    else:
        for p in problems:
            click.echo(p.line())
        if repair:
            again = f"; solved again: {', '.join(rebuilt)}" if rebuilt else ""
            click.echo(f"repaired {repaired} of {len(problems)} problem(s){again}")
        elif not problems:
            click.echo(f"{path}: sound (integrity, schema {doctor_mod.VERSION}, every row readable)")
    if problems and repaired < len(problems):
        sys.exit(1)


@main.command("games")
@db_option
@json_option
@handle_errors
def games_cmd(db_path: str, as_json: bool) -> None:
    """List the games the game files name (rules/games/, --games-dir), with their facts once solved,
    and each other member of a family (connect(3,5,4), pig(12,6)) the knowledge base holds solved.

    \b
    Example:
      educable games --json
    """
    from educable.bridge import catalog  # not commands: listing the games needs no numpy nor solver

    rows = catalog.list_games(open_kb(db_path))
    if as_json:
        return emit_json(rows)
    width = max((len(r["game"]) for r in rows), default=0)
    for r in rows:
        if "broken" in r:
            click.echo(f"{r['game']:<{width}}  BROKEN: {r['broken']}")
            continue
        solved = ("not solved yet" if not r["solved"] else
                  f"solved: {r['positions']:,} positions, {r['information_sets']:,} information sets, "
                  f"{r['players'][0]}'s value {r['value']:+.6f} (an equilibrium)" if r.get("hidden") else
                  f"solved: {r['positions']:,} positions, {r['terminal']:,} terminal, {solved_outcome(r)}")
        click.echo(f"{r['game']:<{width}}  players {'/'.join(r['players'])}  start {r['initial']!r}  {solved}")


def solved_outcome(row: dict) -> str:
    """How a solved game of the `games` listing ends with best play: its winner, or for a game of
    chance the first player's chance of winning (expected result where it can draw), for a game of
    score the expected score."""
    first = row["players"][0]
    if "value" not in row:
        return f"winner {row['winner'] or 'none (draw)'}"
    if len(row["players"]) == 1:
        return f"{first} expects a score of {row['value']:.4f}"
    if row["win_probability"] is not None and row.get("draw_probability"):
        return (f"{first} wins {row['win_probability']:.4%}, draw {row['draw_probability']:.4%}, "
                f"{row['players'][1]} wins {max(0.0, 1 - row['win_probability'] - row['draw_probability']):.4%}")
    if row["win_probability"] is not None:
        return f"{first} wins {row['win_probability']:.4%}"
    return f"{first} expects {row['value']:+.4f}"


@main.command("check")
@click.argument("target", metavar="GAME|FILE")
@click.option("--game", "only", default=None, help="Of a family file, check only this member (e.g. 'connect(3,5,4)').")
@click.option("--limit", default=10_000, show_default=True, type=Whole(1, 1_000_000),
              help="Check every position of games with at most this many; sample larger ones.")
@click.option("--playouts", default=300, show_default=True, type=Whole(0, 100_000),
              help="Random games whose positions are checked when the game is larger than --limit.")
@click.option("--seed", default=1, show_default=True, type=SEED, help="Seed of the random games.")
@json_option
@handle_errors
def check(target: str, only: str | None, limit: int, playouts: int, seed: int, as_json: bool) -> None:
    """Check a game file (or a loaded GAME) against the game protocol.

    Reports every problem with file:line and, where it is about behaviour,
    the first position that shows it: missing predicates, reserved names,
    texts that do not read back or do not name the side to move, legal/4
    that throws or repeats a move, next/5 that fails for a legal move,
    over/4 and legal/4 that disagree, symmetries that change the rules,
    cells/4 of the wrong length.  Every position is checked when the game
    is small (--limit), else the first --limit and those of random games.
    A FILE is loaded on its own, so a copy of a shipped game can be checked.
    Prints the time spent in each protocol predicate, so slow rules show
    up.  Exits 0 when sound (warnings are shown, not fatal), 1 when not.

    \b
    Examples:
      educable check tictactoe
      educable check mygames/count3.pl
      educable check rules/games/inarow.pl --game 'connect(3,4,4)' --json
    """
    from educable.bridge import check as check_mod

    if not check_mod.looks_like_file(target) and only is not None:
        raise BadInput("--game picks a member of a family FILE; give the game's name as GAME instead")
    with Progress(None, f"checking {target}", as_json):          # one long Prolog query: a line every 10 s
        if check_mod.looks_like_file(target):
            report = check_mod.check_file(Path(target), only, limit, playouts, seed)
        else:
            report = check_mod.check_name(target, limit, playouts, seed)
    if as_json:
        emit_json(report.as_json())
    else:
        for line in report.load_errors:
            click.echo(f"error: {line}")
        for line in report.load_warnings:
            click.echo(f"warning: {line}")
        for g in report.games:
            every = ("every one checked" if g["exhaustive"] else "checked (the first ones and those of random games)"
                     if g["positions"] else "checked: it cannot start")
            verdict = "sound" if not g["problems"] else f"{len(g['problems'])} problem(s)"
            click.echo(f"{g['file']}: game {g['game']}: {g['positions']:,} positions {every}: {verdict}")
            for note in g["problems"]:
                click.echo("  " + check_mod.note_line(note))
            for note in g["warnings"]:
                click.echo("  " + check_mod.note_line(note, "warning: "))
            for line in check_mod.timing_lines(g["timings"]) + check_mod.advice_lines(g["advice"]):
                click.echo(line)
    if not report.sound:
        sys.exit(1)


@main.command()
@click.argument("game")
@click.argument("position", required=False)
@json_option
@handle_errors
def show(game: str, position: str | None, as_json: bool) -> None:
    """Draw POSITION of GAME as a board (default: the initial position).

    \b
    Examples:
      educable show tictactoe 'x.o/.x./...'
      educable show hexapawn '13-789 b'
    """
    from educable.bridge import games  # not commands: drawing a board needs neither numpy nor a database

    data = games.show(game, position)
    if as_json:
        return emit_json(data)
    click.echo("\n".join(data["board"]))
    tail = f"game over: {data['result']}" if data["result"] else f"{data['to_move']} to move"
    click.echo(f"{data['position']}   {tail}")


@main.command()
@click.argument("game")
@click.argument("position")
@click.option("--depth", default=5, show_default=True, type=Whole(),
              help="Plies of the alpha-beta search used when the position is too large to solve.")
@click.option("--agent", "agent_names", multiple=True, metavar="NAME",
              help="Show this learned agent's values (repeatable); default: the game's 4 most recently trained.")
@db_option
@json_option
@handle_errors
def query(game: str, position: str, depth: int, agent_names: tuple[str, ...], db_path: str, as_json: bool) -> None:
    """Ask about POSITION: its moves, the value of each, and agents' learned values.

    Values are exact when the game is solved in the knowledge base or the
    game below POSITION is small (up to 100,000 positions, searched now);
    otherwise they come from an alpha-beta search --depth plies deep, and
    say so: a side that wins within that many plies, or unknown.  On
    connect(4,7,6) the perfect player (bitbully) gives every move's value
    and in how many moves it wins or loses.

    An agent's values are on its learner's scale, said under the table: a
    Q-learning or n-tuple agent's run from -1 (a loss) to +1 (a win), a
    punishment agent's are weights that start at 1 and fall with each loss.

    \b
    Examples:
      educable query tictactoe 'x../.o./...'
      educable query tictactoe 'x../.o./...' --agent q --agent p
      educable query 'connect(4,7,6)' '......./......./......./......./......./...x...'
    """
    from educable.bridge import querying

    with Progress(None, f"querying {game}", as_json) as progress:      # a line every 10 s saying what it does
        data = querying.query(open_kb(db_path), game, position, depth, list(agent_names), progress=progress)
    if as_json:
        return emit_json(data)
    if "information_set" in data:
        return print_information_set(data)
    click.echo("\n".join(data["board"]))
    click.echo(f"position {data['position']}  (canonical {data['canonical']})")
    if data["result"]:
        click.echo(f"game over: {'draw' if data['result'] == 'draw' else data['result'] + ' wins'}")
        return
    limited = "depth" in data and "perfect" not in data
    label = (f"within {data['depth']} plies (depth-limited search; too large to solve)" if limited
             else "with perfect play" + (" (bitbully)" if "perfect" in data else ""))
    click.echo(f"{data['to_move']} to move; {label}: {_result_words(data['exact'])}")
    learned = data["agents"]
    column = "search" if limited else "perfect play"
    header = f"  {'move':<6} {'leads to':<14} {column:<22}" + "".join(f" {a['agent'][:12]:>12}" for a in learned)
    click.echo(header)
    for m in data["moves"]:
        vals = "".join(f" {_fmt_value(a['values'].get(m['move'])):>12}" for a in learned)
        words = _result_words(m["exact"]) + (f" in {m['plies']}" if m.get("plies") else "")
        best = data.get("perfect", {}).get(m["move"])
        if best and best["moves"]:
            words = f"{_result_words(m['exact'])} in {best['moves']} moves"      # the winner's moves, this one counted
        click.echo(f"  {m['move']:<6} {m['next']:<14} {words:<22}{vals}")
    for a in learned:
        if a.get("note"):
            click.echo(f"  ({a['agent']}: {a['note']})")
    for learner, scale in dict.fromkeys((a["learner"], a.get("scale")) for a in learned if a.get("scale")):
        names = ", ".join(a["agent"] for a in learned if a["learner"] == learner)
        click.echo(f"  ({names}: {scale})")
    if data["agents_more"] and not agent_names:
        click.echo(f"  ({data['agents_more']} more agents of {game}: name them with --agent NAME)")


def _share(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _result_words(result: str) -> str:
    """A player's name as 'NAME wins'; 'draw', 'unknown' and a game of chance's words ('p1 wins 61.5%') as they are."""
    return result if result in ("draw", "unknown") or " " in result else f"{result} wins"


def _fmt_value(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def max_positions_option(fn: Callable) -> Callable:
    return click.option("--max-positions", "max_positions", default=None, metavar="N",
                        help="Stop enumerating a game past N positions (symmetry classes when folded); "
                             f"default {limits.DEFAULT_MAX_POSITIONS:,} or $EDUCABLE_MAX_POSITIONS.")(fn)


class CompileBar:
    """One self-rewriting status line on stderr while a graph compiles (only on a terminal, not for --json)."""

    def __init__(self, game: str, hidden: bool) -> None:
        self.game = game
        self.hidden = hidden or not sys.stderr.isatty()
        self.heartbeat = Heartbeat(hidden)
        self.drawn = False

    def __call__(self, p: Any) -> None:
        rate = p.expanded / p.seconds if p.seconds else 0.0
        line = (f"{self.game}: compiling the state graph: {p.found:,} positions found, {p.expanded:,} expanded, "
                f"{rate:,.0f}/s, {p.rss_mb:,.0f} MB")
        self.heartbeat.beat(lambda: line)
        if self.hidden or p.seconds < 1.0:
            return
        click.echo(f"\r{line}   ", nl=False, err=True)
        self.drawn = True

    def __enter__(self) -> CompileBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.drawn:
            click.echo("", err=True)


@main.command()
@click.argument("game")
@max_positions_option
@db_option
@json_option
@handle_errors
def solve(game: str, max_positions: str | None, db_path: str, as_json: bool) -> None:
    """Solve GAME exactly and store every position's value in the knowledge base.

    The state graph is compiled from the game's Prolog rules in batches
    (symmetric positions folded into one when the game declares
    symmetries), solved by retrograde analysis, and stored; a later solve,
    query or eval reads it back instead of asking Prolog again.

    \b
    Examples:
      educable solve tictactoe --json
      educable solve 'tictactoe(4,4,4)' --max-positions 3000000
    """
    from educable.bridge import commands

    limit = limits.max_positions(max_positions)
    db = open_kb(db_path)
    with CompileBar(game, as_json) as bar:
        data = commands.solve(db, game, limit, bar)
    if as_json:
        return emit_json(data)
    if data.get("hidden"):
        return print_equilibrium(game, data)
    classes = f", {data['classes']:,} up to symmetry" if data["classes"] else ""
    chance = f", {data['chance_nodes']:,} of them chance nodes" if "chance_nodes" in data else ""
    click.echo(f"{game}: {data['positions']:,} reachable positions{chance}, {data['terminal']:,} terminal{classes}")
    if "chance_nodes" in data:
        first = data["players"][0]
        if data.get("expected_score") is not None:
            click.echo(f"with best play: {first} expects a score of {data['expected_score']:.6f}")
        elif data["win_probability"] is not None and data["draw_probability"]:
            loss = max(0.0, 1.0 - data["win_probability"] - data["draw_probability"])
            click.echo(f"with best play: {first} wins with probability {data['win_probability']:.6f}, "
                       f"a draw {data['draw_probability']:.6f}, {data['players'][1]} wins {loss:.6f} "
                       f"(expected result {data['value']:+.6f})")
        elif data["win_probability"] is not None:
            click.echo(f"with best play: {first} wins with probability {data['win_probability']:.6f}")
        else:
            click.echo(f"with best play: {first}'s expected result {data['value']:+.6f} (1 a win, -1 a loss)")
        if data["cyclic_parts"]:
            rest = data["cyclic_parts"] - data["exact_parts"]
            click.echo(f"cycles: {data['cyclic_parts']:,} cyclic parts of {data['parts']:,} (the largest "
                       f"{data['largest_part']:,} positions), {data['exact_parts']:,} solved exactly by policy "
                       f"iteration after {data['sweeps']:,} sweeps of value iteration"
                       + (f", {rest:,} by value iteration to an error of {data['tolerance']:g}" if rest else ""))
    else:
        click.echo(f"with perfect play: {'a draw' if data['winner'] is None else data['winner'] + ' wins'}")
    how = "read from the knowledge base" if data["stored"] else "solved and stored"
    click.echo(f"{how} in {data['seconds']:.3f} s")


@main.command()
@click.argument("game")
@click.option("--opponent", default="minimax", show_default=True,
              help="random, minimax, alphabeta:DEPTH (search DEPTH plies), mcts:PLAYOUTS (Monte Carlo tree search), "
                   "alphabeta:DEPTH+AGENT or mcts:PLAYOUTS+AGENT (leaves valued by an n-tuple agent), "
                   "expectimax:DEPTH[+AGENT] (games of chance), perfect "
                   "(connect(4,7,6), bitbully), or a learned agent's name.")
@click.option("--as", "side", default=None, help="Your side (default: the first player).")
@click.option("--seed", default=None, type=SEED, help="Seed for the opponent's random choices (default: random).")
@db_option
@handle_errors
def play(game: str, opponent: str, side: str | None, seed: int | None, db_path: str) -> None:
    """Play GAME in the terminal against an agent; the game is stored.

    Type a move at the prompt, '?' for the legal moves, 'q' to stop.

    \b
    Examples:
      educable play tictactoe --opponent minimax --as o
      educable play hexapawn --opponent random --seed 3
      educable play '2048(2,2)'    (a game of score: you play alone)
    """
    from educable.bridge import games as games_mod
    from educable.bridge.session import PlaySession

    chosen_seed = seed if seed is not None else random.randrange(2**31)
    defaulted = click.get_current_context().get_parameter_source("opponent") == click.core.ParameterSource.DEFAULT
    if games_mod.is_hidden(game):
        from educable.bridge.hidden_play import HiddenSession
        opponent = "equilibrium" if defaulted else opponent         # best play where players cannot see everything
        return play_hidden(HiddenSession(open_kb(db_path), game, opponent, side, chosen_seed), opponent)
    session = PlaySession(open_kb(db_path), game, opponent, side, chosen_seed)
    if session.alone and not defaulted:
        raise BadInput(f"{game} is a game of one player: nobody plays against you (leave out --opponent)")
    against = "alone" if session.alone else f"{session.human} against {opponent}"
    click.echo(f"{game}: you play {against}. Type a move, '?' for the legal moves, 'q' to stop.")
    try:
        while session.result is None:
            click.echo("\n".join(session.board()))
            if session.human_to_move:
                text = click.prompt(f"your move ({session.human})", prompt_suffix="> ", default="", show_default=False)
                if text.strip() in ("q", "quit", "exit"):
                    raise EOFError
                if text.strip() in ("?", "help", ""):
                    click.echo("legal moves: " + " ".join(session.legal_moves()))
                    continue
                try:
                    session.human_move(text)
                except BadInput as exc:
                    click.echo(f"{exc}; legal moves: {' '.join(session.legal_moves())}")
                    continue
                if session.alone and session.result is None:
                    click.echo(f"score {score_text(session.score)}")
            else:
                who = "chance" if session.chance_to_move else opponent
                click.echo(f"{who} plays {session.computer_move()}")
    except (EOFError, KeyboardInterrupt, click.Abort):
        session.finish()
        click.echo("\ngame abandoned (stored without a result)")
        return
    click.echo("\n".join(session.board()))
    session.finish()
    if session.alone:
        click.echo(f"game over: you scored {score_text(session.score)}")
    elif session.result == "draw":
        click.echo("game over: draw")
    else:
        click.echo(f"game over: {session.result} wins — " + ("you win!" if session.result == session.human else f"{opponent} wins"))


def play_hidden(session: Any, opponent: str) -> None:
    """`play` on a game of hidden information: the person sees only their view; at the end the whole
    position, the payoff, each of their decisions against the equilibrium and the agent's exploitability."""
    click.echo(f"{session.game}: you play {session.human} against {opponent}, who sees only its own view as you see "
               "yours. Type a move, '?' for the legal moves, 'q' to stop.")
    try:
        while session.result is None:
            click.echo("\n".join(session.board()))
            if session.human_to_move:
                text = click.prompt(f"your move ({session.human})", prompt_suffix="> ", default="", show_default=False)
                if text.strip() in ("q", "quit", "exit"):
                    raise EOFError
                if text.strip() in ("?", "help", ""):
                    click.echo("legal moves: " + " ".join(session.legal_moves()))
                    continue
                try:
                    session.human_move(text)
                except BadInput as exc:
                    click.echo(f"{exc}; legal moves: {' '.join(session.legal_moves())}")
            else:
                click.echo(f"{opponent} plays {session.computer_move()}")
    except (EOFError, KeyboardInterrupt, click.Abort):
        session.finish()
        click.echo("\ngame abandoned (stored without a result)")
        return
    session.finish()
    click.echo("\n".join(session.board()))
    review = session.review()
    payoff = session.payoff if session.human == session.players[0] else -session.payoff
    click.echo(f"game over: you {'win' if payoff > 0 else 'lose' if payoff < 0 else 'draw'} {abs(payoff):g}")
    if review["decisions"] is None:
        click.echo(f"(no review: {review['why']})")
        return
    for d in review["decisions"]:
        if d["value"] is None:
            click.echo(f"  at {d['view']!r} you played {d['move']}: a set the equilibrium never reaches")
            continue
        best = "" if d["best"] is None or d["value"] >= d["best"] - 1e-9 else \
            f" (the equilibrium's best move is worth {d['best']:+.4f})"
        click.echo(f"  at {d['view']!r} you played {d['move']}: worth {d['value']:+.4f} against the equilibrium{best}")
    click.echo(f"your side's value with best play {review['value']:+.6f}; {opponent}'s exploitability "
               f"{review['exploitability']:.6f}")


@main.command("eval")
@click.argument("game")
@click.argument("agent")
@click.option("--vs", default=None, help="The opponent: random, minimax, alphabeta:DEPTH, mcts:PLAYOUTS, alphabeta:DEPTH+AGENT or mcts:PLAYOUTS+AGENT (leaves valued by an n-tuple agent), perfect or perfect-random (connect(4,7,6), bitbully: the second plays at random once lost) or a learned agent.")
@click.option("--exact", is_flag=True, help="Judge exactly over the state graph instead of by sampling.")
@click.option("--games", "n_games", default=1000, show_default=True, type=Whole(max=MAX_GAMES),
              help=f"Games to play (half on each side), at most {MAX_GAMES:,}.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Random seed; the same seed gives the same games.")
@click.option("--max-moves", default=1_000_000, show_default=True, type=Whole(1, 10**9),
              help="A game of score (played through Prolog) still going after this many moves is cut: counted, "
                   "and its points so far make the mean a lower bound.")
@max_positions_option
@db_option
@json_option
@handle_errors
def eval_cmd(game: str, agent: str, vs: str | None, exact: bool, n_games: int, seed: int, max_moves: int,
             max_positions: str | None, db_path: str, as_json: bool) -> None:
    """Evaluate AGENT: a match series against --vs, or exactly with --exact.

    --exact alone: on each side, the outcome AGENT guarantees against a
    best-responding opponent, and whether that is perfect (equals the game's
    value).  --exact --vs B: the exact win/draw/loss probabilities.

    \b
    Examples:
      educable eval tictactoe minimax --vs random --games 1000 --seed 1
      educable eval hexapawn random --exact --json
    """
    from educable.bridge import commands

    limit = limits.max_positions(max_positions)
    db = open_kb(db_path)
    if exact:
        with CompileBar(game, as_json) as bar:
            data = commands.evaluate_exact(db, game, agent, vs, limit, bar)
    else:
        with Progress(n_games, agent if vs is None else f"{agent} vs {vs}", as_json) as progress:
            data = commands.evaluate_series(db, game, agent, vs, n_games, seed, progress, max_moves)
    if as_json:
        return emit_json(data)
    if data.get("hidden"):
        return print_exploitability(data)
    if data.get("score") and not exact:
        low, high = data["interval95"]
        click.echo(f"{game}: {agent} scores {data['mean_score']:.3f} on average over {n_games} games, seed {seed} "
                   f"(95% interval {low:.3f}-{high:.3f}; lowest {score_text(data['lowest'])}, highest "
                   f"{score_text(data['highest'])})")
        if data.get("cut"):
            click.echo(f"{data['cut']:,} of {n_games:,} games were cut, still going after {data['cut_after']:,} moves: "
                       "each counts the points of its moves so far, so the mean is a lower bound")
        if data.get("reached"):             # a 2048 agent's games: the share reaching each tile
            click.echo("highest tile reached: " + ", ".join(f"{tile} in {share:.1%}" for tile, share in
                                                            data["reached"].items()))
        return
    if data.get("score"):
        gap = data["best_expected_score"] - data["expected_score"]
        click.echo(f"{game}: {agent} expects a score of {data['expected_score']:.6f} (judged exactly); best play "
                   f"{data['best_expected_score']:.6f}" + (" (perfect)" if data["perfect"] else f": {gap:.6f} given away"))
        return
    if exact and vs is None and data.get("chance"):
        click.echo(f"{game}: {agent} judged exactly against a best-responding opponent ({data['measure']})")
        for side in ("as_first", "as_second"):
            g = data[side]
            click.echo(f"  {side.replace('_', ' ')}: {g['against_best_response']:.6f}, the game's value "
                       f"{g['game_value']:.6f}" + (" (perfect)" if g["perfect"] else
                                                    f": a perfect opponent takes {g['game_value'] - g['against_best_response']:.6f}"))
        return
    if exact and vs is None:
        click.echo(f"{game}: {agent} judged exactly against a best-responding opponent (game value: {data['value']})")
        for side in ("as_first", "as_second"):
            g = data[side]
            click.echo(f"  {side.replace('_', ' ')}: {guarantee_words(g)}")
        return
    kind = "exact probabilities" if exact else f"{n_games} games, seed {seed}"
    click.echo(f"{game}: {agent} vs {data['vs']} ({kind})")
    click.echo(f"  {'':<10} {'win':>8} {'draw':>8} {'loss':>8}")
    for side in ("as_first", "as_second"):
        r = data[side]
        total = r["win"] + r["draw"] + r["loss"]
        click.echo(f"  {side.replace('_', ' '):<10} " + " ".join(f"{pct(r[k], total):>8}" for k in ("win", "draw", "loss")))
    if not exact:
        click.echo("  95% intervals (Wilson):")
        for side in ("as_first", "as_second"):
            iv = data[side]["interval95"]
            click.echo(f"  {side.replace('_', ' '):<10} " + " ".join(
                f"{100 * iv[k][0]:5.1f}-{100 * iv[k][1]:5.1f}%".rjust(15) for k in ("win", "draw", "loss")))
        cut = data["as_first"].get("cut", 0) + data["as_second"].get("cut", 0)
        if cut:
            click.echo(f"  {cut:,} of {n_games:,} games were cut, still going after {ENDLESS_PLIES:,} moves, "
                       "and counted as draws (as solve scores a line that never ends)")


@main.command()
@click.argument("game")
@click.argument("agent")
@click.option("--games", "n_games", default=20, show_default=True, type=Whole(max=10_000),
              help="Games in each accuracy series (against random, itself and perfect), at most 10,000.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Random seed; the same seed gives the same games.")
@click.option("--openings", default=2, show_default=True, type=Whole(),
              help="Play against perfect from every opening of up to this many moves (0, 1 or 2).")
@click.option("--per-opening", default=0, show_default=True, type=Whole(), metavar="N",
              help="Also N games from each opening against both perfect players: as first from the start, and as "
                   "second after each first move (perfect delays a loss; perfect-random plays at random once lost).")
@click.option("--starts-out", metavar="FILE",
              help="With --per-opening: write the positions where games were given away to FILE (.txt), as "
                   "train's --starts-file reads them.")
@db_option
@json_option
@handle_errors
def judge(game: str, agent: str, n_games: int, seed: int, openings: int, per_opening: int, starts_out: str | None,
          db_path: str, as_json: bool) -> None:
    """Judge AGENT on Connect Four against a perfect player (bitbully).

    Move accuracy: the share of positions where AGENT plays a move of the
    best game-theoretic value (a win stays a win, a draw a draw), over the
    positions of --games games against random, against itself and against
    perfect.  Then results against perfect (ties broken at random) from the
    start on each side, and from every opening of one and two moves with
    AGENT playing the side to move; "at value" counts the games where it
    got what perfect play would.  With --per-opening it ends with where the
    games below value were given away: the agent's first move in each that
    lowered its value, commonest first; --starts-out writes those positions
    to a file that train's --starts-file takes, so that an n-tuple agent
    trains from where it loses.  bitbully is an optional extra (AGPL-3.0)
    that make setup installs.

    \b
    Examples:
      educable judge 'connect(4,7,6)' 'alphabeta:4' --games 10
      educable judge 'connect(4,7,6)' c4 --openings 1 --json
      educable judge 'connect(4,7,6)' c4 --openings 0 --per-opening 20 --starts-out lost.txt
    """
    from educable.bridge import commands
    from educable.bridge.judge import judge_steps, write_starts
    output_file(starts_out, (".txt",), "positions", db_path)
    if starts_out and not per_opening:
        raise BadInput("--starts-out needs --per-opening N: the positions come from the games of every opening")
    db = open_kb(db_path)
    steps = judge_steps(n_games, openings) + 2 * 8 * max(0, per_opening)
    with Progress(steps, f"judging {agent}", as_json) as progress:
        data = commands.judge(db, game, agent, n_games, seed, openings, progress, per_opening)
    if starts_out:
        b = data["by_opening"]
        origin = f"{agent} (educable judge '{game}' {agent} --per-opening {per_opening} --seed {seed})"
        data["starts_out"] = {"file": starts_out, "positions": write_starts(starts_out, b["mistakes"], origin)}
    if as_json:
        return emit_json(data)
    if data.get("hidden"):
        return print_exploitability(data)
    click.echo(f"{game}: {agent} judged against the perfect player (seed {seed})")
    click.echo("  move accuracy (a move of the best value):")
    for vs, a in data["accuracy"].items():
        share = "-" if a["accuracy"] is None else f"{100 * a['accuracy']:.1f}%"
        click.echo(f"    in games vs {vs:<8} {share:>7}  of {a['positions']} positions")
    if data["fixed"]:
        f = data["fixed"]
        by = ", ".join(f"{k} {100 * v:.1f}%" for k, v in f["by_source"].items())
        click.echo(f"    on {f['positions']} fixed positions {100 * f['accuracy']:.1f}%  ({by})")
    click.echo("  against perfect:      games    win   draw   loss   at value")
    for label, r in data["vs_perfect"].items():
        click.echo(f"    {label:<18} {r['games']:>5} {r['win']:>6} {r['draw']:>6} {r['loss']:>6} {r['at_value']:>10}")
    if "by_opening" in data:
        b = data["by_opening"]
        click.echo(f"  from each opening, {b['games_per_opening']} games against each perfect player (at value / games):")
        click.echo(f"    {'opening':<10} {'as':<4} {'value':<6}" + "".join(f" {n:>15}" for n in b["summary"]))
        for row in b["openings"]:
            click.echo(f"    {row['opening']:<10} {row['as']:<4} {row['value']:<6}"
                       + "".join(f" {row[n]['at_value']:>7}/{row[n]['games']:<7}" for n in b["summary"]))
        for name, sm in b["summary"].items():
            click.echo(f"    {name}: won as first {_share(sm['won_as_first'])}, as second at value "
                       f"{_share(sm['second_at_value'])} (over the openings that do not lose)")
        _echo_mistakes(b["mistakes"])
    if starts_out:
        click.echo(f"  {data['starts_out']['positions']} positions written to {starts_out} (train --starts-file {starts_out})")


MISTAKES_SHOWN = 5


def _echo_mistakes(mistakes: list[dict]) -> None:
    """Where `judge --per-opening` games below value were given away, the commonest first."""
    if not mistakes:
        return
    below = sum(m["games"] for m in mistakes)
    click.echo(f"  where the {below} games below value were given away (the agent's first move that lowered its value):")
    for m in mistakes[:MISTAKES_SHOWN]:
        click.echo(f"    after {m['moves'] or 'no move'}, {m['played']}: a {m['was']} became a {m['became']} "
                   f"(best {', '.join(m['best'])}); {m['games']} game{'s' * (m['games'] != 1)} "
                   f"against {' and '.join(m['against'])}")
    if len(mistakes) > MISTAKES_SHOWN:
        click.echo(f"    and {len(mistakes) - MISTAKES_SHOWN} more positions (--json lists them all)")


def print_equilibrium(game: str, data: dict[str, Any]) -> None:
    """solve's lines for a game of hidden information."""
    first, second = data["players"]
    click.echo(f"{game}: {data['positions']:,} positions, {data['information_sets']:,} information sets "
               "(hidden information: each player sees its own view)")
    click.echo(f"equilibrium by {data['method']}: {first}'s value {data['value']:+.9f} ({second}'s "
               f"{-data['value']:+.9f}), exploitability {data['exploitability']:.2e}")
    how = "read from the knowledge base" if data["stored"] else "solved and stored"
    click.echo(f"{how} in {data['seconds']:.3f} s")


def print_information_set(data: dict[str, Any]) -> None:
    """query's lines at an information set of a game of hidden information."""
    seen = "" if data["from"] == "view" else f" (from the {data['from']})"
    click.echo(f"{data['player']} sees {data['information_set']!r}{seen}")
    click.echo(f"equilibrium ({data['method']}; the game's value {data['value']:+.6f} for the first player):")
    click.echo(f"  {'move':<8} {'probability':>11}  {'value':>10}")
    for m in data["moves"]:
        value = "unreached" if m["value"] is None else f"{m['value']:+.6f}"
        click.echo(f"  {m['move']:<8} {m['probability']:>11.6f}  {value:>10}")
    click.echo("  (a move's value: its player's expected payoff once the set is reached and the move made, "
               "both playing the equilibrium)")


def print_exploitability(data: dict[str, Any]) -> None:
    """eval --exact's and judge's lines on a game of hidden information."""
    game, agent = data["game"], data["agent"]
    if "vs" in data:
        click.echo(f"{game}: {agent} vs {data['vs']}, expected payoffs (exact):")
        for side in ("as_first", "as_second"):
            click.echo(f"  {side.replace('_', ' ')} ({data[side]['player']}): {data[side]['expected']:+.9f}")
        return
    click.echo(f"{game}: {agent}'s exploitability {data['exploitability']:.9f} (NashConv {data['nash_conv']:.9f}; "
               f"OpenSpiel's definition)")
    for side in ("as_first", "as_second"):
        g = data[side]
        click.echo(f"  {side.replace('_', ' ')} ({g['player']}): {g['guaranteed']:+.9f} against a best response; "
                   f"the game's value {g['value']:+.9f}, {g['given_away']:.9f} given away")
    if data["best_response_gains"]:
        click.echo(f"  where a best response to {agent} gains most over equilibrium play (chance and {agent} weighing):")
        for g in data["best_response_gains"]:
            click.echo(f"    {g['player']} at {g['information_set']!r}: {g['gain']:+.6f} by {g['best_move']}")


class TrainCommand(click.Command):
    """`train`: the options every learner takes, then those of the learner --learner names, built from
    the declarations in its module (OPTIONS; learners/options.py) only when the command runs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.common = list(self.params)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        learner = learner_named(args)
        if learner is None and any(a in ("--help", "-h") for a in args):
            self.params, self.epilog = self.common, ("Each learner has options of its own: educable train GAME "
                                                     f"--learner NAME --help ({', '.join(registry.TRAINABLE)}).")
            return super().parse_args(ctx, args)
        learner = learner or str(next(p.default for p in self.common if p.name == "learner"))
        if learner not in registry.TRAINABLE:
            raise click.UsageError(f"--learner: unknown learner '{learner}' (known: {', '.join(registry.TRAINABLE)})",
                                   ctx)
        module = registry.learner_module(learner)
        plays = registry.plays_games(learner)
        self.params = [*self.common, *(game_options() if plays else []), *map(click_option, module.OPTIONS)]
        self.epilog = None
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            owners = [name for name in registry.TRAINABLE if exc.option_name in learner_flags(name)]
            if owners or exc.option_name in ("--games", "--vs", "--as"):
                why = (f" but of the {' and '.join(owners)} learner{'s' if len(owners) > 1 else ''}" if owners
                       else " (it runs --cycles; --fitness says how agents are measured)")
                raise click.UsageError(f"{exc.option_name} is not an option of the {learner} learner{why}", ctx) \
                    from None
            raise


def learner_named(args: list[str]) -> str | None:
    """The value of --learner in train's arguments, or None."""
    for i, arg in enumerate(args):
        if arg == "--learner" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--learner="):
            return arg.partition("=")[2]
    return None


def learner_flags(learner: str) -> set[str]:
    """Every flag of a learner's own options (--fold, --no-fold, ...)."""
    return {flag for o in registry.learner_module(learner).OPTIONS for c in [click_option(o)]
            for flag in (*c.opts, *c.secondary_opts)}


def click_option(o: Any) -> click.Option:
    """A click option from a learner's declaration (learners/options.Option).  Its default is None
    (the learner's own default then applies, or the stored agent's value), except for an option
    of one run, and its values are checked by the learner, with the learner's messages."""
    default = o.default_words()
    text = o.help + (f" Default: {default}." if default else "")
    if o.type is bool:
        if o.off == "":
            return click.Option([f"--{o.flag_name}", o.name], is_flag=True, default=False, help=text)
        return click.Option([f"--{o.flag_name}/--{o.off_flag}", o.name], default=None, help=text)
    metavar = o.metavar or ("[" + "|".join(o.choices) + "]" if o.choices else {int: "INTEGER", float: "FLOAT",
                                                                                str: "TEXT"}[o.type])
    if o.run and o.type is int:
        return click.Option([f"--{o.flag_name}", o.name], type=Whole(o.low, o.high), default=o.default,
                            metavar=metavar, help=text)
    return click.Option([f"--{o.flag_name}", o.name], type=Real() if o.type is float else o.type,
                        default=o.default if o.run else None,
                        metavar=metavar, help=text)


def game_options() -> list[click.Option]:
    """--games, --vs and --as: for the learners that play games (all but ga, which runs cycles)."""
    return [click.Option(["--games", "n_games"], default=500, show_default=True, type=Whole(max=MAX_GAMES),
                         help=f"Games to play in this run, at most {MAX_GAMES:,}."),
            click.Option(["--vs"], default="self", show_default=True,
                         help="Opponent: self, random, minimax, alphabeta:DEPTH, mcts:PLAYOUTS[+AGENT], adversary "
                              "(best response to the agent; punish and ntuple), or another agent."),
            click.Option(["--as", "side"], default="both", show_default=True,
                         type=click.Choice(["first", "second", "both"]),
                         help="The agent's side against --vs (both: alternate).")]


def given_options(ctx: click.Context, chosen: dict[str, Any]) -> dict[str, Any]:
    """The learner's options typed on the command line (not those left at their defaults)."""
    return {k: v for k, v in chosen.items() if ctx.get_parameter_source(k) != click.core.ParameterSource.DEFAULT}


@main.command(cls=TrainCommand)
@click.argument("game")
@click.option("--learner", default="punish", show_default=True,
              help="Which learner: " + "; ".join(f"{k} ({v})" for k, v in registry.TRAINABLE.items())
                   + ".  Its own options: train GAME --learner NAME --help.")
@click.option("--agent", "agent", required=True, help="The agent's name; made on first use, trained further after.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Random seed; the same seed gives the same run.")
@click.option("--plot", "plot_path", default=None, metavar="FILE.png", callback=lambda c, p, v: output_file(v, (".png", ".svg", ".pdf")),
              help="Save the learning curve as a PNG (or .svg, .pdf).")
@max_positions_option
@db_option
@json_option
@click.pass_context
@handle_errors
def train(ctx: click.Context, game: str, learner: str, agent: str, seed: int, plot_path: str | None,
          max_positions: str | None, db_path: str, as_json: bool, **chosen: Any) -> None:
    """Train a learning agent for GAME and store it in the knowledge base.

    The games run inside Prolog (one query per batch); the agent's values are
    written in one transaction at the end, and a later run continues them.
    Options are fixed when the agent is made.

    \b
    Examples:
      educable train hexapawn --agent her --games 100 --vs adversary --as second
      educable train hexapawn --agent pupil --games 300 --vs self --punish all --reward 1
      educable train tictactoe --agent menace --games 5000 --vs random --plot curve.png
      educable train tictactoe --learner qlearn --agent q --games 20000 --until-perfect
      educable train tictactoe --learner ga --agent gaia --cycles 500 --nudge 0.2 --plot ga.png
      educable train tictactoe --learner ntuple --agent nt --games 2000
    """
    from educable.bridge import commands

    output_file(plot_path, (".png", ".svg", ".pdf"), "plot", db_path)
    n_games, vs, side = chosen.pop("n_games", 0), chosen.pop("vs", "self"), chosen.pop("side", "both")
    limit = limits.max_positions(max_positions)
    db = open_kb(db_path)
    if learner in registry.ITERATING:
        with Progress(chosen["iterations"], f"CFR+ on {agent}", as_json) as progress:
            data = commands.train_agent(db, game, learner, agent, seed, given_options(ctx, chosen), progress=progress,
                                        limit=limit)
        return print_cfr_run(data, plot_path, as_json)
    if not registry.plays_games(learner):
        with Progress(chosen["cycles"], f"evolving {agent}", as_json) as progress:
            data = commands.train_agent(db, game, learner, agent, seed, given_options(ctx, chosen), progress=progress,
                                        limit=limit)
        return print_rule_sets(game, agent, chosen["cycles"], data, plot_path, as_json)
    with Progress(n_games, f"training {agent}", as_json) as progress:
        data = commands.train_agent(db, game, learner, agent, seed, given_options(ctx, chosen), n_games, vs, side,
                                    progress, limit)
    if plot_path:
        from educable.bridge import files
        from educable.learners.plot import curve_png
        title = f"{game}: {agent} ({learner}) vs {data['vs']}"
        if data.get("checkpoints") and "expected_score" in data["checkpoints"][0]:      # a game of score
            cps = data["checkpoints"]
            files.write_whole(plot_path, lambda path: curve_png(path, {
                "expected score (exact)": [c["expected_score"] for c in cps],
                "best play": [c["best_expected_score"] for c in cps],
            }, cps[0]["games"], title, ylabel="points, at checkpoints"))
        elif data.get("checkpoints") and "against_best_response" in data["checkpoints"][0]["as_first"]:   # chance
            cps = data["checkpoints"]
            files.write_whole(plot_path, lambda path: curve_png(path, {
                f"{side.replace('_', ' ')} against a best response (exact)": [c[side]["against_best_response"] for c in cps]
                for side in ("as_first", "as_second")}, cps[0]["games"], title, ylabel="exact, at checkpoints"))
        elif data.get("checkpoints"):
            cps = data["checkpoints"]
            every = cps[0]["games"]
            files.write_whole(plot_path, lambda path: curve_png(path, {
                "win rate vs random as first": [c["as_first"]["win_vs_random"] for c in cps],
                "win rate vs random as second": [c["as_second"]["win_vs_random"] for c in cps],
                "perfect as first (exact)": [float(c["as_first"]["perfect"]) for c in cps],
                "perfect as second (exact)": [float(c["as_second"]["perfect"]) for c in cps],
            }, every, title, ylabel="exact, at checkpoints"))
        elif data.get("strength"):
            from educable.learners.plot import strength_png
            files.write_whole(plot_path, lambda path: strength_png(
                path, [(p["games"], p["accuracy"]) for p in data["strength"]], title, "best moves on the 300 fixed positions"))
        else:
            files.write_whole(plot_path, lambda path: curve_png(path, {f"{agent} losses": data["curve"]}, 10, title,
                                                                ylabel="losses per 10 games"))
        data["plot"] = plot_path
    if as_json:
        return emit_json(data)
    click.echo(f"{agent} ({learner}, {game}) played {data['games']} games vs {data['vs']} in {data['seconds']:.2f} s "
               f"({data['games_per_second']:.0f} games/s)")
    click.echo("  " + results_words(data))
    if "enumeration" in data:
        e = data["enumeration"]
        click.echo(f"  full table: {e['boards']:,} boards x {e['actions']} actions = {e['entries']:,} entries; "
                   f"{e['reachable_boards']:,} boards reachable ({e['reachable_states']:,} states)")
    lazy = data.get("lazy") or {}
    if lazy.get("rounds"):
        click.echo(f"  on {lazy['workers']} workers that keep the net: {lazy['rounds']:,} rounds; the whole net "
                   f"({lazy['bytes_first_round'] / 1e6:,.1f} MB) sent once, then {lazy['bytes_per_round'] / 1e6:,.2f} MB "
                   "a round")
    if data["exact"] is None:
        click.echo(f"  {data['exact_skipped']}")
    elif "expected_score" in data["exact"]:
        x = data["exact"]
        click.echo(f"  exactly: expects a score of {x['expected_score']:.6f}" + (", as best play does" if x["perfect"] else
                                                                             f" (best play: {x['best_expected_score']:.6f})"))
    elif "exploitability" in data["exact"]:          # a game of hidden information: its greedy play judged
        x = data["exact"]
        click.echo(f"  exactly: exploitability {x['exploitability']:.6f} (its greedy play; an equilibrium's is 0)")
        for side_name in ("as_first", "as_second"):
            g = x[side_name]
            click.echo(f"  {side_name.replace('_', ' ')} ({g['player']}): {g['guaranteed']:+.6f} against a best "
                       f"response, the game's value {g['value']:+.6f}")
    for side_name in ("as_first", "as_second") if data["exact"] is not None and "as_first" in data["exact"] \
            and "exploitability" not in data["exact"] else ():
        click.echo(f"  exactly, {side_name.replace('_', ' ')}: {guarantee_words(data['exact'][side_name])}")
    if plot_path:
        click.echo(f"  learning curve saved to {plot_path}")


def print_cfr_run(data: dict[str, Any], plot_path: str | None, as_json: bool) -> None:
    """train's lines for the cfr learner: its iterations, its exploitability now and along the way."""
    if plot_path:
        from educable.bridge import files
        from educable.learners.plot import exploitability_png
        files.write_whole(plot_path, lambda path: exploitability_png(path, data["curve"],
                                                                     f"{data['game']}: {data['agent']} (cfr)"))
        data["plot"] = plot_path
    if as_json:
        return emit_json(data)
    method = "external-sampling MCCFR" if data.get("sampling") == "external" else "CFR+"
    click.echo(f"{data['agent']} (cfr, {data['game']}): {data['iterations']:,} iterations of {method} in "
               f"{data['seconds']:.2f} s ({data['total_iterations']:,} in all) over {data['information_sets']:,} "
               "information sets")
    click.echo(f"exploitability {data['exploitability']:.3e}; {data['players'][0]}'s expected payoff in self-play "
               f"{data['value']:+.6f}")
    shown = data["curve"][:: max(1, len(data["curve"]) // 5)]
    click.echo("curve: " + ", ".join(f"{c['iterations']:,}: {c['exploitability']:.2e}" for c in shown))


def print_rule_sets(game: str, agent: str, cycles: int, data: dict[str, Any], plot_path: str | None,
                    as_json: bool) -> None:
    """`train --learner ga`'s report: a population of rule sets evolved (Gaia's "Ejemplos de Vida")."""
    from educable.bridge import games

    if plot_path:
        from educable.bridge import files
        from educable.learners.plot import curve_png
        curve = data["curve"]
        per = data["per_cycle"]
        marks = [c["cycle"] - (data["total_cycles"] - cycles) for c in curve]
        starts = [0] + marks[:-1]

        def window_share(key: str) -> list[float]:
            out = []
            for a, b in zip(starts, marks, strict=True):
                moves = sum(per["rule_moves"][a:b]) + sum(per["random_moves"][a:b])
                out.append(sum(per[key][a:b]) / moves if moves else 0.0)
            return out

        first, second = games.two_players(game)
        files.write_whole(plot_path, lambda path: curve_png(path, {
            f"best agent's loss vs random as {first} (exact)": [c["as_first"]["vs_random"]["loss"] for c in curve],
            f"best agent's loss vs random as {second} (exact)": [c["as_second"]["vs_random"]["loss"] for c in curve],
            "share of moves made by rules": window_share("rule_moves"),
        }, marks[0], f"{game}: population {agent} (ga)", xlabel="cycles", ylabel="rate"))
        data["plot"] = plot_path
    if as_json:
        return emit_json(data)
    last, best = data["last_cycle"], data["best"]
    click.echo(f"{agent} (ga, {game}) ran {data['cycles']} cycles ({data['games']} games) in {data['seconds']:.2f} s; "
               f"{data['total_cycles']} cycles in all")
    if data["options"]["fitness"] == "exact":
        click.echo(f"  last cycle: best exact fitness {last['best_weight']:.4g} (score against random on both sides, "
                   "less a point per throw-away position)")
    else:
        click.echo(f"  last cycle: {last['draws']} draws, {last['rule_moves']} moves by rules, "
                   f"{last['random_moves']} at random, best weight {last['best_weight']:g}")
    for side_name in ("as_first", "as_second"):
        b = best[side_name]
        click.echo(f"  best agent {side_name.replace('_', ' ')}: guarantees a {b['guaranteed']}; vs random exactly "
                   f"win {100 * b['vs_random']['win']:.2f}%  draw {100 * b['vs_random']['draw']:.2f}%  "
                   f"loss {100 * b['vs_random']['loss']:.2f}%")
    if plot_path:
        click.echo(f"  learning curve saved to {plot_path}")


@main.command("agents")
@click.argument("name", required=False)
@click.option("--game", default=None, help="Only agents of this game.")
@click.option("--rules", "show_rules", is_flag=True,
              help="For a rule-set agent: every member (NAME#k, best first) with its rules and weights.")
@db_option
@json_option
@handle_errors
def agents_cmd(name: str | None, game: str | None, show_rules: bool, db_path: str, as_json: bool) -> None:
    """List learned agents: learner, game, games trained, parameters.

    \b
    Examples:
      educable agents
      educable agents her --json
      educable agents gaia --rules
      educable agents gaia#3 --rules
    """
    from educable.bridge import commands

    db = open_kb(db_path)
    if show_rules:
        if name is None:
            raise BadInput("--rules needs an agent name: educable agents NAME --rules")
        data = commands.rule_sets(db, name)
        if as_json:
            return emit_json(data)
        click.echo(f"{data['agent']} ({data['learner']}, {data['game']}): {len(data['members'])} member(s), best first")
        for m in data["members"]:
            click.echo(f"{m['member']}  weight {m['weight']:g}  born in cycle {m['born']}  ({len(m['rules'])} rules)")
            for r in sorted(m["rules"], key=lambda r: (-r["priority"], -r["weight"])):
                click.echo(f"    {r['pattern']}  -> {r['action']:<5} priority {r['priority']}  weight {r['weight']:g}")
        return None
    rows = commands.list_agents(db, game)
    if name is not None:
        rows = [r for r in rows if r["name"] == name]
        if not rows:
            raise BadInput(f"unknown agent '{name}'")
    if as_json:
        return emit_json(rows)
    if not rows:
        click.echo("no learned agents yet (see: educable train --help)")
    for r in rows:
        click.echo(f"{r['name']:<14} {r['learner']:<8} {r['game']:<10} {r['games_trained']:>8} games  "
                   f"{commands.option_summary(r)}")


@main.command("serve")
@click.option("--port", default=8000, show_default=True, type=Whole(0, 65535), help="The port to listen on (0: any free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; anything but this machine's loopback lets others play and read.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Another name the page may be reached by (repeat for more); requests addressed to any other "
                   "name are refused, to stop DNS rebinding (docs/window.md).")
@click.option("--read-only", is_flag=True, help="Store no game and teach no agent (the page says so).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in this machine's web browser.")
@click.option("--player", "players", multiple=True, metavar="FILE.py:NAME",
              help="A Python policy the page offers as an opponent (repeatable; docs/python.md). Requests can name "
                   "only these: no request makes the server load code.")
@click.option("--search-seconds", default=8, show_default=True, type=Whole(1, 600),
              help="A page request that searches (a move by alphabeta, mcts or expectimax; a query below a position) "
                   "past this many seconds is stopped and refused in one line.")
@db_option
@handle_errors
def serve(port: int, host: str, allow_hosts: tuple[str, ...], read_only: bool, open_browser: bool, players: tuple[str, ...],
          search_seconds: int, db_path: str) -> None:
    """Serve a page to play any agent, see its values beside the truth, and watch runs learn.

    A local web server (Starlette on uvicorn) over the knowledge base: the
    games and agents, a board to play by clicking, every move's exact value
    beside the agents' learned values, learning curves that grow while
    `educable train` runs in another terminal, and a JSON API under /api/
    (docs/commands.md).  Ctrl-C stops it.

    Only requests addressed to this server by its own name are answered
    (127.0.0.1, localhost, [::1], --host, --allow-host), and a POST must
    carry the secret printed at start and written into the page
    (X-Educable-Token): no other web site can drive it (docs/window.md).

    \b
    Examples:
      educable serve
      educable serve --port 8080 --open
      educable serve --read-only --db shared.db
      educable serve --host 0.0.0.0 --allow-host lab.example.org --read-only
    """
    import socket
    import webbrowser

    import uvicorn

    from educable.web.app import create_app
    from educable.web.trust import Boundary, split_host

    for name in allow_hosts:
        parts = split_host(name)
        if parts is None or parts[1] is not None:
            raise BadInput(f"--allow-host {name[:80]!r}: give a host name or address alone, without a port")
    boundary = Boundary(host, allow_hosts)
    if players:
        from educable.bridge import outside
        outside.allow_loading()
        for name in players:
            if not outside.named(name):
                raise BadInput(f"--player {name[:80]!r}: name a Python policy as FILE.py:NAME or module:NAME")
            outside.policy(name)
        outside.allow_loading(False)
    path = resolve_path(db_path)
    # a missing or locked knowledge base: one line, before listening; then WAL (kept by the file), so
    # that the page's reads and a training process's writes never wait for each other
    open_kb(path).execute("PRAGMA journal_mode = WAL")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: listening on {host}: anyone who can reach it can play, read the knowledge base"
                   + ("" if read_only else " and teach its agents (--read-only stops that)"), err=True)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # answers leave at once (else 40 ms of delayed ACK)
    try:
        sock.bind((host, port))
        sock.listen(128)                            # connections queue from the moment the address is printed
    except OSError as exc:
        raise BadInput(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{sock.getsockname()[1]}/"
    click.echo(f"educable: serving {path} at {url}{' (read-only)' if read_only else ''}; Ctrl-C stops; "
               f"scripts post with the header X-Educable-Token: {boundary.token}", err=False)
    sys.stdout.flush()
    if open_browser:
        webbrowser.open(url)
    # Ctrl-C or SIGTERM: requests still open after half a second are dropped (a search in its own
    # process is ended with it), so the server stops within a second whatever it is doing
    config = uvicorn.Config(create_app(path, read_only, boundary, search_seconds), log_level="warning", lifespan="on",
                            proxy_headers=False, server_header=False, timeout_graceful_shutdown=0.5)
    uvicorn.Server(config).run(sockets=[sock])


@main.command("tournament")
@click.argument("game")
@click.argument("players", nargs=-1, required=True)
@click.option("--games", "n_games", default=20, show_default=True, type=Whole(2, 100_000),
              help="Games a pairing, half with each side first.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Random seed; the same seed gives the same tournament.")
@db_option
@json_option
@handle_errors
def tournament(game: str, players: tuple[str, ...], n_games: int, seed: int, db_path: str, as_json: bool) -> None:
    """A round robin of PLAYERS (agents and built-in players) on GAME: every pair plays --games games,
    half with each side first; ratings (Bradley–Terry on the Elo scale, mean 0, with 95% intervals),
    a cross table of scores, and on a game small enough to solve each player's exact judgement.
    Stored in the knowledge base (table tournaments; every game in matches).

    
    Examples:
      educable tournament tictactoe random minimax td --games 100
      educable tournament 'connect(4,7,6)' c4 'mcts:800+c4' 'alphabeta:5+c4' --games 10 --json
    """
    from educable.bridge import tournament as tournament_mod

    db = open_kb(db_path)
    pairings = len(players) * (len(players) - 1) // 2
    with Progress(pairings * n_games, f"tournament of {len(players)} players", as_json) as progress:
        data = tournament_mod.run(db, game, list(players), n_games, seed, progress)
    if as_json:
        return emit_json(data)
    width = max(len(p) for p in players)
    click.echo(f"tournament {data['tournament']}: {game}, {len(players)} players, {n_games} games a pairing, seed {seed}")
    click.echo(f"  {'player':<{width}}  {'rating':>7}  {'95% interval':<17} {'score':>6}" +
               ("  exactly as first / as second" if any("exact" in r for r in data["ratings"]) else ""))
    for r in data["ratings"]:
        rating = f"{r['rating']:>7.0f}" if r["rating"] is not None else f"{'-':>7}"
        interval = f"[{r['interval95'][0]:.0f}, {r['interval95'][1]:.0f}]" if r["interval95"] else f"({r['why']})"
        exact = ""
        if "exact" in r:
            exact = "  " + " / ".join("perfect" if r["exact"][s]["perfect"] else r["exact"][s]["guaranteed"]
                                      for s in ("as_first", "as_second"))
        click.echo(f"  {r['player']:<{width}}  {rating}  {interval:<17} {100 * r['score']:>5.1f}%{exact}")
    click.echo("  cross table (the row's score against the column):")
    click.echo(f"  {'':<{width}}" + "".join(f" {p[:8]:>8}" for p in players))
    for a in players:
        click.echo(f"  {a:<{width}}" + "".join(f" {'':>8}" if a == b else f" {100 * data['cross'][a][b]:>7.1f}%"
                                               for b in players))


class RunName(click.ParamType):
    """A stored run's number, or ``now``: the newest run still going."""

    name = "run"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        if isinstance(value, int) or value == "now":
            return value
        try:
            return int(ROW_ID.convert(value, param, ctx))
        except click.BadParameter:
            self.fail(f"{value!r} is neither a run's number nor 'now'", param, ctx)


@main.command("runs")
@click.argument("run_id", required=False, type=RunName(), metavar="[RUN|now]")
@click.option("--agent", default=None, help="Only this agent's runs.")
@db_option
@json_option
@handle_errors
def runs_cmd(run_id: int | str | None, agent: str | None, db_path: str, as_json: bool) -> None:
    """List training runs (newest first), or show RUN with its learning curve.

    A run commits its curve as it goes (games, lost, draws and, where it
    can be measured, its strength), so a run still going is listed too, as
    `now`; `runs now` shows the newest one's curve so far (of --agent's).

    \b
    Examples:
      educable runs
      educable runs --agent c4 --json
      educable runs 3 --json
      educable runs now --agent c4
    """
    from educable.bridge import commands

    db = open_kb(db_path)
    if run_id == "now":
        data = commands.run_going(db, agent)
        if as_json:
            return emit_json(data)
        click.echo(f"run now: {data['agent']} ({data['learner']}), {data['games']:,} games so far, "
                   f"started {data['started']}")
    elif run_id is not None:
        data = commands.run_detail(db, int(run_id))
        if as_json:
            return emit_json(data)
        click.echo(f"run {data['id']}: {data['agent']} ({data['learner']}), {data['games']:,} games in "
                   f"{data['seconds']:.1f} s, started {data['started']}")
    if run_id is not None:
        for p in data["points"]:
            click.echo(f"  {p['games']:>10,} games  lost {p['lost']:>9,}  drawn {p['draws']:>9,}  at {p['at']}"
                       f"{strength_words(p.get('strength'))}")
        return
    runs = commands.list_runs(db, agent)
    if as_json:
        return emit_json(runs)
    if not runs:
        click.echo(f"no training runs{f' of {agent}' if agent else ''} yet (see: educable train --help)")
    for r in runs:
        ident = f"{r['id']:>5}" if r["id"] is not None else "  now"
        took = f"in {r['seconds']:.1f} s" if r["seconds"] is not None else "going on (or stopped), as committed"
        click.echo(f"{ident}  {r['agent']:<16} {r['learner']:<8} {r['games']:>10,} games {took}  started {r['started']}")


def strength_words(strength: dict | None) -> str:
    """A curve point's strength in a few words ('' where none was measured)."""
    if not strength:
        return ""
    if strength.get("kind") == "accuracy":
        return f"  best moves on the fixed positions {100 * strength['accuracy']:.1f}%"
    sides = [f"{side.replace('as_', 'as ')} {'perfect' if strength[side]['perfect'] else strength[side]['guaranteed']}"
             for side in ("as_first", "as_second") if isinstance(strength.get(side), dict)]
    return "  exactly: " + ", ".join(sides) if sides else ""


@main.group()
def rules() -> None:
    """Rule files: an agent's rules as readable Prolog facts, to read, edit and import.

    \b
    Examples:
      educable rules export gaia#1 best.pl
      educable rules import examples/never_lose_as_x.pl --agent careful
      educable play tictactoe --opponent careful
    """


@rules.command("export")
@click.argument("agent")
@click.argument("file")
@db_option
@json_option
@handle_errors
def rules_export(agent: str, file: str, db_path: str, as_json: bool) -> None:
    """Write AGENT's rules (NAME or NAME#k; default the best member) to FILE.

    \b
    Example:
      educable rules export gaia#2 gaia2.pl
    """
    from educable.bridge import files, ga

    files.check_output(file, "rules", resolve_path(db_path))
    data = ga.export_rules(open_kb(db_path), agent, file)
    if as_json:
        return emit_json(data)
    click.echo(f"wrote {data['rules']} rules of {data['agent']} ({data['game']}) to {data['file']}")


@rules.command("import")
@click.argument("file")
@click.option("--agent", required=True, help="Name of the new agent.")
@click.option("--game", default=None, help="Check the file is for this game.")
@click.option("--replace", is_flag=True, help="Replace an agent imported earlier under this name.")
@db_option
@json_option
@handle_errors
def rules_import(file: str, agent: str, game: str | None, replace: bool, db_path: str, as_json: bool) -> None:
    """Check FILE and make it agent --agent, which plays at once (nothing is imported if any line is wrong).

    \b
    Example:
      educable rules import examples/never_lose_as_x.pl --agent careful
    """
    from educable.bridge import agents as agents_mod
    from educable.bridge import ga

    agents_mod.check_name(agent)
    with Progress(rules_in(file), f"checking the rules of {file}", as_json) as progress:
        data = ga.import_rules(open_kb(db_path), file, agent, game, replace, progress)
    if as_json:
        return emit_json(data)
    click.echo(f"imported {data['rules']} rules for {data['game']} as agent {data['agent']}")


def rules_in(path: str) -> int:
    """About how many rules a rule file holds (its lines that start a rule), for a progress bar."""
    from educable.bridge import files
    try:
        return sum(1 for line in files.read_text(path, "rule file").splitlines() if line.startswith("rule("))
    except BadInput:
        return 0                                  # the import says why in one line


@main.group()
def gdl() -> None:
    """General Game Playing: games written in GDL (.kif), played like any other.

    A .kif file in a games folder (rules/games/, --games-dir, EDUCABLE_GAMES)
    is loaded as the game named by its file name; `gdl import` checks one
    and puts it there.  Two-player turn-taking games, written the GDL way
    (the role not on turn plays a single move such as noop).

    \b
    Example:
      educable gdl import examples/gdl/tictactoe_gdl.kif --into mygames
    """


@gdl.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", default=None, help="The game's name (default: the file's name without .kif).")
@click.option("--into", "folder", default=None, type=click.Path(file_okay=False),
              help="The games folder to put it in (default rules/games/).")
@click.option("--replace", is_flag=True, help="Replace a game imported earlier under this name.")
@json_option
@handle_errors
def gdl_import(file: str, name: str | None, folder: str | None, replace: bool, as_json: bool) -> None:
    """Check the GDL game FILE and put it into a games folder as NAME.kif.

    It is loaded and played at random 20 times first; a syntax error, an
    unsupported construct, one role or more than two are refused in one
    line and nothing is written.  A sheet with (sees ...) rules or moves
    made at once (GDL-II) is a game of hidden information (docs/hidden.md).

    \b
    Examples:
      educable gdl import examples/gdl/nim_gdl.kif
      educable gdl import ticTacToe.kif --name ttt --into mygames
      educable --games-dir mygames solve ttt
    """
    from educable.bridge import gdl as gdl_mod

    data = gdl_mod.import_kif(Path(file), name, Path(folder) if folder else None, replace)
    if as_json:
        return emit_json(data)
    results = ", ".join(f"{k} {v}" for k, v in sorted(data["trial_results"].items()))
    click.echo(f"imported {data['game']} as {data['file']}: players {'/'.join(data['players'])}; "
               f"{data['trial_games']} random games played ({results})")
    if data["trial_cut"]:
        click.echo(f"{data['trial_cut']} of them never ended: cut after {ENDLESS_PLIES:,} moves and scored draws "
                   "(does the sheet's terminal ever hold?)")
    click.echo(f"start: {data['start']}")


@main.group()
def race() -> None:
    """The rat race (the PPCG rat-race challenge): specimens with genomes race across tracks of coloured cells.

    \b
    Examples:
      educable race run --player colorscore --boards 50 --workers 2
      educable race results
      educable race show --seed 7 --turn 500 --player believer --png track.png
      educable race show --seed 7 --turn 2000 --player believer --gif race.gif
    """


@race.command("run")
@click.option("--player", default="colorscore", show_default=True,
              help="colorscore (the challenge's sample), believer (ours), random, or module:function.")
@click.option("--boards", default=50, show_default=True, type=Whole(max=RACE_MAX_BOARDS),
              help="Boards (tracks) to race on (at most 100,000).")
@click.option("--seed", default=0, show_default=True, type=Whole(0, RACE_MAX_SEED),
              help="Board i's seed is SEED*1000000+i.")
@click.option("--workers", default=1, show_default=True, type=Whole(1, 64),
              help="Worker processes of a local Dask cluster (1-64; 1: in this process).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786); default: $EDUCABLE_SCHEDULER, else local.")
@click.option("--resume", default=None, type=ROW_ID, metavar="RUN",
              help="Finish stored run RUN (its player, boards, seed and turns): race the boards it is missing.")
@click.option("--turns", default=None, type=Whole(max=RACE_MAX_TURNS),
              help="Turns a game (default: the spec's 10,000; at most 10,000,000).")
@db_option
@json_option
@click.pass_context
@handle_errors
def race_run(ctx: click.Context, player: str, boards: int, seed: int, workers: int, scheduler: str | None,
             resume: int | None, turns: int | None, db_path: str, as_json: bool) -> None:
    """Race PLAYER over BOARDS boards; score = geometric mean of 1 + goals; stored in the knowledge base.

    Built-in players: colorscore (the challenge's sample, also known as
    ColorScorePlayer; names are case-insensitive), believer, random.

    \b
    Examples:
      educable race run --player believer --boards 100 --seed 3 --workers 2
      educable race run --player ColorScorePlayer --boards 20
      educable race run --player myplayers:cautious --boards 20
      educable race run --player believer --boards 1000 --scheduler tcp://10.0.0.5:8786
      educable race run --resume 12
    """
    from educable.bridge import race as race_mod

    if resume is not None:
        given = [k for k in ("player", "boards", "seed", "turns")
                 if ctx.get_parameter_source(k) != click.core.ParameterSource.DEFAULT]
        if given:
            raise BadInput(f"--resume RUN takes the run's own --{given[0]}; give only --resume (and --workers, --scheduler)")
    db = open_kb(db_path)
    total = boards if resume is None else race_mod.stored_boards(db, resume)
    with Progress(total, f"racing {player}" if resume is None else f"resuming run {resume}", as_json) as progress:
        data = race_mod.run(db, player, boards, seed, workers, turns, progress, scheduler, resume)
    if as_json:
        return emit_json(data)
    click.echo(f"{data['player']}: geometric mean {data['geomean']:.2f} over {data['boards']} boards (median {data['median']:g}, "
               f"{100 * data['share_of_ones']:.0f}% score 1) in {data['seconds']:.1f} s, "
               f"{data['moves_per_second']:,} specimen-moves/s; run {data['run']}")


@race.command("results")
@click.option("--player", default=None, help="Only this player's runs.")
@db_option
@json_option
@handle_errors
def race_results(player: str | None, db_path: str, as_json: bool) -> None:
    """List stored race runs, newest first.

    \b
    Example:
      educable race results --player believer --json
    """
    from educable.bridge import race as race_mod

    rows = race_mod.results(open_kb(db_path), player)
    if as_json:
        return emit_json(rows)
    if not rows:
        click.echo("no race runs yet (see: educable race run --help)")
    for r in rows:
        gm = "-" if r["geomean"] is None else f"{r['geomean']:.2f}"
        click.echo(f"run {r['id']:<4} {r['player']:<12} seed {r['seed']:<4} {len(r['scores'])}/{r['boards']} boards  "
                   f"geomean {gm:>8}  {r['seconds'] or 0:.1f} s  {r['status']}")


@race.command("show")
@click.option("--seed", required=True, type=SEED, help="The board's seed.")
@click.option("--turn", default=0, show_default=True, type=Whole(0, 10_000_000), help="Show the specimens after this many turns.")
@click.option("--player", default="colorscore", show_default=True, help="Whose specimens.")
@click.option("--png", default=None, metavar="FILE.png", callback=lambda c, p, v: output_file(v, (".png",)),
              help="Write the picture after --turn turns here.")
@click.option("--gif", default=None, metavar="FILE.gif", callback=lambda c, p, v: output_file(v, (".gif",)),
              help="Write an animation of turns 0..--turn here.")
@click.option("--frames", default=25, show_default=True, type=Whole(1, 1000), help="Frames in the animation (1-1000).")
@json_option
@handle_errors
def race_show(seed: int, turn: int, player: str, png: str | None, gif: str | None, frames: int,
              as_json: bool) -> None:
    """Draw a track: each cell's colour and meaning, trapped cells, teleporter jumps, start rows, specimens.

    \b
    Examples:
      educable race show --seed 7 --turn 500 --player believer --png track.png
      educable race show --seed 3000001 --turn 1000 --player believer --gif race.gif
    """
    from educable.bridge import race as race_mod

    data = race_mod.show(seed, png, turn, player, gif, frames)
    if as_json:
        return emit_json(data)
    wrote = " and ".join(f for f in (png and f"picture in {png}", gif and f"{data['frames']} frames in {gif}") if f)
    click.echo(f"board {seed}: {len(data['start_rows'])} start rows; {player} after {data['turn']} turns has "
               f"{data['specimens']} specimens and score {data['score']}; {wrote}")


@main.command()
@db_option
@handle_errors
def demo(db_path: str) -> None:
    """The main job: solve the games, play and judge, train every learner, then point at the window.

    \b
    Example:
      educable demo --db /tmp/demo.db
    """
    from educable.bridge import demo as demo_mod

    for line in demo_mod.run(open_kb(db_path)):
        click.echo(line)



@main.group()
def sweep() -> None:
    """Run one command over a grid of options and seeds, in parallel on Dask; compare the settings.

    Every run is stored in the knowledge base (tables sweeps and sweep_runs).

    \b
    Examples:
      educable sweep train hexapawn --learner punish --vs adversary --as second --games 60 \\
          --grid reward=0,1 --grid punish=last,all --seeds 25
      educable sweep train tictactoe --learner qlearn --games 3000 --until-perfect --grid fold=on,off --seeds 9
      educable sweep race --player colorscore,believer --boards 100 --seed 11
      educable sweep resume 3
    """


def sweep_engine_options(fn: Callable) -> Callable:
    fn = click.option("--scheduler", default=None, metavar="ADDRESS",
                      help="Run on the Dask scheduler at ADDRESS; default: $EDUCABLE_SCHEDULER, else a local cluster.")(fn)
    fn = click.option("--workers", default=os.cpu_count() or 1, show_default="this machine's cores",
                      type=Whole(1, 64), help="Worker processes of the local cluster (1: in this process).")(fn)
    fn = click.option("--plot", "plot_path", default=None, metavar="FILE.png",
                      callback=lambda c, p, v: output_file(v, (".png", ".svg", ".pdf")),
                      help="Draw every run and each setting's centre with its 95% interval.")(fn)
    return fn


@sweep.command("train", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("game")
@click.option("--grid", "grid_items", multiple=True, metavar="NAME=V1,V2",
              help="An option of train and its values (repeat for more options; every combination runs).")
@click.option("--seeds", default=10, show_default=True, type=Whole(), help="Seeds 0..N-1 for each setting.")
@click.option("--measure", default=None,
              help="What to compare: losses, last_loss, games, games_to_perfect, perfect, seconds, or a dotted "
                   "path into train's --json output (e.g. exact.as_first.mistakes). Default: punish losses, "
                   "qlearn games_to_perfect, ga best.as_first.vs_random.loss.")
@sweep_engine_options
@db_option
@json_option
@click.pass_context
@handle_errors
def sweep_train(ctx: click.Context, game: str, grid_items: tuple[str, ...], seeds: int, measure: str | None,
                plot_path: str | None, workers: int, scheduler: str | None, db_path: str, as_json: bool) -> None:
    """Run `train GAME [TRAIN OPTIONS]` for every setting of the grid and every seed; per setting,
    the median of the measure with a 95% interval.

    Options not listed here go to train as they are (e.g. --learner punish --games 60).

    \b
    Examples:
      educable sweep train hexapawn --learner punish --vs adversary --as second --games 60 \\
          --grid reward=0,1 --grid punish=last,all --seeds 25
      educable sweep train tictactoe --learner ga --cycles 500 --grid fitness=pairs,exact --seeds 5 --json
    """
    from educable.bridge import cluster as cluster_mod
    from educable.bridge import sweep as sweep_mod

    if not 1 <= seeds <= 10_000:
        raise BadInput(f"--seeds must be from 1 to 10,000, not {seeds}")
    output_file(plot_path, (".png", ".svg", ".pdf"), "plot", db_path)
    fixed = list(ctx.args)
    for bad in (f"--{name}" for name in sweep_mod.SET_BY_SWEEP):
        if any(a == bad or a.startswith(bad + "=") for a in fixed):
            raise BadInput(f"{bad} is set by the sweep itself (use --seeds N for seeds 0..N-1)")
    grid = sweep_mod.parse_grid(list(grid_items))
    runs = train_requests(game, fixed, grid)
    measure = sweep_mod.check_train(game, runs, measure)
    db = open_kb(db_path)
    with cluster_mod.engine(workers, cluster_mod.scheduler_address(scheduler)) as engine:
        sweep_id = sweep_mod.start(db, "train", {"game": game, "args": fixed}, grid, seeds, measure)
        run_train_sweep(db, engine, sweep_id, game, fixed, grid, seeds, measure, plot_path, as_json)


def train_requests(game: str, fixed: list[str], grid: dict[str, list[str]]) -> list[tuple[dict[str, str], dict]]:
    """Each setting of a train sweep's grid with its training request (learner, given options, games,
    vs, side), parsed and typed by train's own options; BadInput names a setting train refuses."""
    from educable.bridge import sweep as sweep_mod

    out = []
    for setting in sweep_mod.settings(grid):
        argv = [game, *fixed, *setting_args(setting), "--agent", "sweep"]
        try:
            ctx = train.make_context("train", argv)
        except click.ClickException as exc:
            raise BadInput(f"{sweep_mod.setting_text(setting)}: {exc.format_message()}") from None
        chosen = {k: v for k, v in ctx.params.items() if k not in ("game", "learner", "agent", "seed", "plot_path",
                                                                    "max_positions", "db_path", "as_json")}
        request = {"learner": ctx.params["learner"], "n_games": chosen.pop("n_games", 0),
                   "vs": chosen.pop("vs", "self"), "side": chosen.pop("side", "both")}
        out.append((setting, {**request, "given": given_options(ctx, chosen)}))
    return out


def setting_args(setting: dict[str, str]) -> list[str]:
    """A grid setting as train arguments: --NAME VALUE, or an on/off option's flag (--fold, --no-fold)."""
    from educable.learners.options import OFF, ON

    switches = on_off_flags()
    out: list[str] = []
    for name, value in setting.items():
        flag = f"--{name.replace('_', '-')}"
        if flag in switches:
            word = value.lower()
            if word not in ON + OFF:
                raise BadInput(f"--grid {name}={value}: {flag} is on or off (true/false)")
            out += [flag] if word in ON else [switches[flag]] if switches[flag] else []
        else:
            out += [flag, value]
    return out


def on_off_flags() -> dict[str, str]:
    """Every learner's on/off flags, each with its 'off' flag ('' for a flag alone, --until-perfect)."""
    return {f"--{o.flag_name}": f"--{o.off_flag}" if o.off != "" else "" for name in registry.TRAINABLE
            for o in registry.learner_module(name).OPTIONS if o.type is bool}


def run_train_sweep(db: Any, engine: Any, sweep_id: int, game: str, fixed: list[str], grid: dict, seeds: int,
                    measure: str, plot_path: str | None, as_json: bool) -> None:
    """Run the (setting, seed) pairs of a train sweep that it has not stored yet; report all of them."""
    from educable.bridge import sweep as sweep_mod
    from educable.learners.sampling import median_interval

    plan = sweep_mod.train_plan(db, sweep_id, game, train_requests(game, fixed, grid), seeds, measure)
    with Progress(len(plan.tasks), f"sweep {sweep_id}", as_json) as progress:
        values = sweep_mod.run_plan(db, sweep_id, engine, plan, progress)
    report_sweep(sweep_id, f"{game}: {' '.join(fixed)}", measure, values, median_interval,
                 "median", plot_path, as_json)


def report_sweep(sweep_id: int, title: str, measure: str, values: dict[str, list[float]], centre: Callable,
                 centre_name: str, plot_path: str | None, as_json: bool, extra: Callable | None = None) -> None:
    """A sweep's table (or --json, --plot): per setting, runs, centre and its 95% interval."""
    rows = []
    centres = {}
    for label, vals in values.items():
        mid, lo, hi = centre(vals)
        centres[label] = (mid, lo, hi)
        row = {"setting": label, "runs": len(vals), centre_name: mid, "interval95": [lo, hi],
               "values": [v if math.isfinite(v) else None for v in vals]}
        if extra:
            row.update(extra(vals))
        rows.append(row)
    if plot_path:
        from educable.bridge import files
        from educable.learners.plot import intervals_png
        files.write_whole(plot_path, lambda path: intervals_png(path, values, centres, f"sweep {sweep_id}: {title}", measure))
    if as_json:
        return emit_json({"sweep": sweep_id, "measure": measure, "settings": rows, "plot": plot_path})
    width = max(len(r["setting"]) for r in rows)

    def num(x: float) -> str:
        return "never" if not math.isfinite(x) else f"{x:.4g}"

    click.echo(f"sweep {sweep_id}: {measure}, {centre_name} with its 95% interval")
    for r in rows:
        more = "".join(f"  {k.replace('_', ' ')} {v}" for k, v in r.items()
                       if k not in ("setting", "runs", centre_name, "interval95", "values"))
        click.echo(f"  {r['setting']:<{width}}  {r['runs']:>4} runs  {centre_name} {num(r[centre_name]):>8}"
                   f"  [{num(r['interval95'][0])}, {num(r['interval95'][1])}]{more}")
    if plot_path:
        click.echo(f"  plot saved to {plot_path}")


@sweep.command("race")
@click.option("--player", "player_list", required=True, multiple=True,
              help="Players to compare, separated by commas (or --player given again).")
@click.option("--boards", default=100, show_default=True, type=Whole(1, RACE_MAX_BOARDS), help="Boards each player races.")
@click.option("--seed", default=0, show_default=True, type=Whole(0, RACE_MAX_SEED),
              help="Board i's seed is SEED*1000000+i (the same boards for every player).")
@click.option("--turns", default=None, type=Whole(1, RACE_MAX_TURNS), help="Turns a game (default: the spec's 10,000).")
@sweep_engine_options
@db_option
@json_option
@handle_errors
def sweep_race(player_list: tuple[str, ...], boards: int, seed: int, turns: int | None, plot_path: str | None, workers: int,
               scheduler: str | None, db_path: str, as_json: bool) -> None:
    """Race every player on the same boards; per player, the geometric mean of the scores with a 95%
    interval and the share of boards scoring 1.

    \b
    Examples:
      educable sweep race --player colorscore,believer --boards 100 --seed 3
      educable sweep race --player believer,mymodule:player --boards 1000 --scheduler tcp://10.0.0.5:8786
    """
    from educable.bridge import cluster as cluster_mod
    from educable.bridge import race as race_mod
    from educable.bridge import sweep as sweep_mod
    from educable.learners.race import players as players_mod

    names = [p.strip() for given in player_list for p in given.split(",") if p.strip()]
    if not names:
        raise BadInput("--player: name at least one player")
    names = [players_mod.builtin_name(n) for n in names]
    for n in names:
        race_mod.check_player(n)
    if len(set(names)) != len(names):
        raise BadInput("--player names a player twice")
    n_turns = turns or race_mod.spec().turns
    db = open_kb(db_path)
    with cluster_mod.engine(workers, cluster_mod.scheduler_address(scheduler)) as engine:
        sweep_id = sweep_mod.start(db, "race", {"seed": seed, "turns": n_turns}, names, boards, "score")
        run_race_sweep(db, engine, sweep_id, names, boards, seed, n_turns, plot_path, as_json)


def run_race_sweep(db: Any, engine: Any, sweep_id: int, names: list[str], boards: int, seed: int, n_turns: int,
                   plot_path: str | None, as_json: bool) -> None:
    """Race the (player, board) pairs of a race sweep that it has not stored yet; report all of them."""
    from educable.bridge import sweep as sweep_mod
    from educable.learners.sampling import geomean_interval

    plan = sweep_mod.race_plan(db, sweep_id, names, boards, seed, n_turns)
    with Progress(len(plan.tasks), f"sweep {sweep_id}", as_json) as progress:
        values = sweep_mod.run_plan(db, sweep_id, engine, plan, progress)
    report_sweep(sweep_id, f"rat race, {boards} boards from seed {seed}", "score", values,
                 lambda v: geomean_interval([int(x) for x in v]), "geometric_mean", plot_path, as_json,
                 lambda v: {"share_of_ones": round(sum(x == 1 for x in v) / len(v), 4)})


@sweep.command("resume")
@click.argument("sweep_id", metavar="SWEEP", type=ROW_ID)
@sweep_engine_options
@db_option
@json_option
@handle_errors
def sweep_resume(sweep_id: int, plot_path: str | None, workers: int, scheduler: str | None, db_path: str,
                 as_json: bool) -> None:
    """Finish a sweep that was stopped: run only the settings and seeds (or players and boards) it has
    not stored, with its own options, then print the table of all its runs.  A complete sweep is refused.

    \b
    Examples:
      educable sweep resume 3
      educable sweep resume 3 --workers 2 --json
    """
    from educable.bridge import cluster as cluster_mod
    from educable.bridge import race as race_mod
    from educable.bridge import sweep as sweep_mod

    db = open_kb(db_path)
    row = sweep_mod.stored(db, sweep_id)
    if row["status"] == "complete":
        raise BadInput(f"sweep {sweep_id} is complete; nothing to resume")
    args = row["args"]
    if row["command"] == "race":
        for n in row["grid"]:
            race_mod.check_player(n)
    with cluster_mod.engine(workers, cluster_mod.scheduler_address(scheduler)) as engine:
        if row["command"] == "race":
            run_race_sweep(db, engine, sweep_id, row["grid"], row["seeds"], args["seed"], args["turns"],
                           plot_path, as_json)
        else:
            run_train_sweep(db, engine, sweep_id, args["game"], args["args"], row["grid"], row["seeds"],
                            row["measure"], plot_path, as_json)


if __name__ == "__main__":
    main()
