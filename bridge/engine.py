"""The one place that imports pyswip: a single Prolog engine per process.

Every call runs a goal once through ``bridge_call/4`` (rules/bridge.pl), so a
query is always finished and closed, answers come back as JSON text that
becomes plain Python values, and Prolog errors become Python exceptions.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from educable.bridge.errors import BadInput, PrologError, ResourceLimit, RuleFileError
from educable.bridge.files import GAME_SUFFIXES, GAMES_ENV, RULES_DIR, game_files, game_folders, read_text  # noqa: F401  (GAME_SUFFIXES, GAMES_ENV: named here too)
from educable.bridge.textinput import whole_number
from educable.learners.jit import cache_folder

# Prolog's limits, set here rather than left at pyswip's defaults (1 GB of
# stack): a deep search or a large table gets room, and running out is one
# line, not a stack dump.  An environment variable sets another value: the
# flag it sets, its default (None: the rule file's own) and its range.
PROLOG_LIMITS = {
    "EDUCABLE_PROLOG_STACK": ("stack_limit", 4 * 2**30, 2**25, 2**42, "bytes"),
    "EDUCABLE_PROLOG_TABLES": ("table_space", 4 * 2**30, 2**20, 2**42, "bytes"),
    # one call of a game file's rule (rules/guard.pl: 100,000,000, a few seconds)
    "EDUCABLE_RULE_INFERENCES": ("educable_rule_inferences", None, 1_000, 10**12, "inferences"),
}


def prolog_limits() -> dict[str, int]:
    """Each Prolog flag of PROLOG_LIMITS with the value its environment variable gives, else its
    default; BadInput (one line) for a value that is no whole number in range."""
    out = {}
    for env, (flag, default, lo, hi, unit) in PROLOG_LIMITS.items():
        raw = os.environ.get(env, "").strip()
        value = whole_number(raw, f"${env}", lo, hi, unit) if raw else default
        if value is not None:
            out[flag] = value
    return out


# Rows one call carries when a learned table goes into or out of Prolog: a
# large agent moves in pages, never as one term.
ROWS_PER_CALL = 20_000


ABORTED = "a rule called abort (a game file may not abort educable; the command stopped)"


_JSON = json.JSONDecoder(strict=False)     # answers are JSON whose strings may hold control characters


class Aborted(Exception):
    """A goal called abort/0, which no catch/3 in Prolog stops (only a game file would)."""


def quote(text: object) -> str:
    """Quote ``text`` as a Prolog atom, safe to splice into a goal (control characters, NUL
    included, become \\xHH\\ escapes)."""
    out = str(text).replace("\\", "\\\\").replace("'", "\\'")
    if not out.isprintable():
        out = "".join(c if c.isprintable() else f"\\x{ord(c):x}\\" for c in out)
    return "'" + out + "'"


class Engine:
    """The process's Prolog engine with every rule file loaded."""

    def __init__(self, rules_dir: Path = RULES_DIR, only: Path | None = None) -> None:
        self._start(rules_dir)
        self._open(only)

    def _start(self, rules_dir: Path) -> None:
        """SWI-Prolog with educable's rules: what no command's settings change."""
        locate_swipl()
        from pyswip import Prolog  # the project's only pyswip import
        from pyswip import core as pl
        from pyswip.core import _lib

        self._prolog = Prolog()
        self._lib = _lib
        self._pl = pl                           # the C interface, and the flags a call uses, read once
        self._goal_text = pl.PL_STRING | pl.REP_UTF8
        self._query_flags = pl.PL_Q_NODEBUG | pl.PL_Q_CATCH_EXCEPTION
        self._text_flags = pl.CVT_ATOM | pl.CVT_STRING | pl.BUF_DISCARDABLE | pl.REP_UTF8
        self._quoted_flags = pl.CVT_WRITEQ | pl.BUF_DISCARDABLE | pl.REP_UTF8
        self._thread = _lib.PL_thread_self()      # Prolog's id of the thread that runs every goal
        self._guarded = False                   # rules/guard.pl's limits are in place
        self._running = False                   # a query is running (interrupt() may stop it) ...
        self._raised = False                    # ... and a stop was raised in it
        self.goals_run = 0                      # goals started, so that a stop can tell one goal from the next
        self._signal_socket: tuple[Any, Any] | None = None      # watch_signals' wake-up socket, kept open
        self._lock = threading.Lock()
        self.rules_dir = rules_dir
        list(self._prolog.query("set_prolog_flag(encoding, utf8)", maxresult=1))
        # What a game file's rules print goes to stderr: stdout is educable's own (--json must stay JSON).
        list(self._prolog.query("set_stream(user_error, alias(user_output)), set_output(user_error)", maxresult=1))
        self._prolog.consult(str(rules_dir / "bridge.pl"))
        self._bridge_run = _lib.PL_predicate(b"bridge_run", 3, b"bridge")
        self._get_nchars = _lib.PL_get_nchars
        self._get_nchars.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t),
                                     ctypes.POINTER(ctypes.c_char_p), ctypes.c_uint]
        self._get_nchars.restype = ctypes.c_int
        self.load(rules_dir / "core.pl")
        self.shipped_loaded = False
        self.broken: dict[str, str] = {}      # a game file that did not load -> its first error
        self.warnings: dict[str, list[str]] = {}

    def _open(self, only: Path | None) -> None:
        """Ready for this command: its limits (from the environment), the signal watch, and every game
        file (``only`` that one)."""
        limits = ", ".join(f"create_prolog_flag({flag}, {value}, [type(integer)])" for flag, value in prolog_limits().items())
        list(self._prolog.query(limits, maxresult=1))
        watch_signals(self)
        if only:
            self.load_game(only)
            return
        users = game_folders(self.rules_dir)[1:]       # the folders after rules/games/
        if not self.shipped_loaded:
            self.load_shipped()
        for path in [p for folder in users for p in game_files(folder)]:
            self.load_game(path)

    def load_shipped(self) -> None:
        """Load the shipped games (rules/games/), ahead of the command's ``_open``."""
        for path in game_files(self.rules_dir / "games"):
            self.load_game(path)
        self.shipped_loaded = True

    def load_game(self, path: Path) -> None:
        """Load one game file on its own (a Prolog file, or a GDL .kif file as the game named by its
        stem): an error leaves it out (recorded in ``broken``, the other games unaffected); warnings
        are recorded, not fatal."""
        shipped = path.resolve().parent == (self.rules_dir / "games").resolve()
        if not shipped and not self._guarded:
            self._query("guard:guard_protocol")      # a game file of the user's: every call under limits
            self._guarded = True
        if not shipped:
            try:
                read_text(path, "game file")       # a regular file of UTF-8 text, said in one line otherwise
            except BadInput as exc:
                self.broken[relative_paths(str(path), self.rules_dir)] = relative_paths(str(exc), self.rules_dir)
                return
        if not shipped and path.suffix == ".pl":
            error = preflight(path, self.rules_dir)
            if error:
                self.broken[relative_paths(str(path), self.rules_dir)] = relative_paths(error, self.rules_dir)
                return
        goal = (f"bridge:bridge_load_gdl({quote(path)}, {quote(path.stem)}, Errors, Warnings)" if path.suffix == ".kif"
                else f"bridge:bridge_load_shipped({quote(path)}, Errors, Warnings)" if shipped
                else f"bridge:bridge_load_game({quote(path)}, Errors, Warnings)")
        try:
            answer = self._query(goal)
        except Aborted:                   # abort/0 in a directive gets past bridge_load_game's catch
            self._query(f"catch(unload_file({quote(path)}), _, true)")
            answer = [{"Errors": [f"{path}: the file calls abort (a game file may not abort educable)"],
                       "Warnings": []}]
        errors = [_text(e) for e in answer[0]["Errors"]] if answer else ["could not load"]
        warnings = [_text(w) for w in answer[0]["Warnings"]] if answer else []
        name = relative_paths(str(path), self.rules_dir)
        if errors:
            self.broken[name] = relative_paths(errors[0], self.rules_dir)
        if warnings:
            self.warnings[name] = [relative_paths(w, self.rules_dir) for w in warnings]

    def load(self, path: Path) -> None:
        """Load a rule file; raise RuleFileError naming file and line on any error."""
        answer = self._query(f"bridge:bridge_load({quote(path)}, Errors)")
        errors = [_text(e) for e in answer[0]["Errors"]] if answer else ["could not load"]
        if errors:
            raise RuleFileError(relative_paths(errors[0], self.rules_dir))

    def call(self, goal: str) -> Any:
        """Run ``goal`` once and return the value bound to its variable ``Out``.

        Raises BadInput for the game's own input errors, PrologError for any
        other exception, and LookupError when the goal fails.
        """
        self._begin()
        try:
            status, text = self._run(goal)
        except Aborted:                   # only abort/0 gets past bridge_run's catch
            raise BadInput(ABORTED) from None
        finally:
            self._end()
        if status == "ok":
            return _JSON.decode(text)
        if status == "bad_input":
            raise BadInput(text)
        if status == "failed":
            raise LookupError(f"no answer: {goal}")
        if status == "resource":
            raise ResourceLimit(text)
        if status == "interrupted":
            raise KeyboardInterrupt
        raise PrologError(text)

    def _query(self, goal: str) -> list[dict]:
        """The first answer of ``goal`` (or none), marked as running so that ``interrupt`` reaches it."""
        with self._interruptible():
            try:
                with self._strings_released():
                    return list(self._prolog.query(goal, maxresult=1))
            except Exception as exc:          # pyswip's own error
                _raise_if_stopped(str(exc))
                raise

    @contextlib.contextmanager
    def _interruptible(self) -> Iterator[None]:
        """A goal runs inside: ``interrupt`` reaches it (``call`` does the same without a generator)."""
        self._begin()
        try:
            yield
        finally:
            self._end()

    def _begin(self) -> None:
        """A goal starts: ``interrupt`` reaches it from now on."""
        with self._lock:
            self._running = True
            self.goals_run += 1

    def _end(self) -> None:
        """The goal has ended.  A stop it ended before hearing, which stays pending in Prolog, is spent
        here, not on the next goal (a commit's)."""
        with self._lock:
            self._running = False
            unheard, self._raised = self._raised, False
        if unheard:
            try:
                list(self._prolog.query("true", maxresult=1))
            except Exception:  # noqa: S110  (nothing to report: see the comment)
                pass

    def _run(self, goal: str) -> tuple[str, str]:
        """bridge_run(Goal, Status, Text) through SWI-Prolog's C interface directly: the goal goes in
        as a string and only Status and Text come back, so neither pyswip's parse of a query nor its
        conversion of every binding is paid (a small call: 40 µs, against 190 µs through
        pyswip's query).  Aborted or KeyboardInterrupt for what gets past bridge_run's catch."""
        if self._lib.PL_thread_self() == -1:     # a thread Prolog has not met (pyswip's query attaches one too)
            self._lib.PL_thread_attach_engine(None)
        pl = self._pl
        mark = pl.buf_mark_t()                   # as _strings_released, without a generator a call
        pl.PL_mark_string_buffers(ctypes.byref(mark))
        try:
            fid = pl.PL_open_foreign_frame()
            args = pl.PL_new_term_refs(3)
            pl.PL_put_chars(args, self._goal_text, -1, goal.encode("utf-8"))
            qid = pl.PL_open_query(None, self._query_flags, self._bridge_run, args)
            try:
                if pl.PL_next_solution(qid):
                    return self._chars(args + 1), self._chars(args + 2)
                exception = pl.PL_exception(qid)
                what = self._chars(exception, quoted=True) if exception else "bridge_run failed"
            finally:
                pl.PL_cut_query(qid)
                pl.PL_discard_foreign_frame(fid)
        finally:
            pl.PL_release_string_buffers_from_mark(mark)
        _raise_if_stopped(what)
        raise PrologError(what)

    @contextlib.contextmanager
    def _strings_released(self) -> Iterator[None]:
        """Release, when a goal is done, the text buffers SWI-Prolog stacked while it ran.  Inside a
        foreign predicate Prolog releases them itself; a process that embeds Prolog must mark and
        release them (PL_STRINGS_MARK/PL_STRINGS_RELEASE), else every call kept about 1 KB for ever
        (300,000 calls: 260 MB) and a long run died of "Too many stacked strings".  pyswip's own
        PL_STRINGS_MARK does it (its mark is declared a pointer, which is a mark's size)."""
        from pyswip.core import PL_STRINGS_MARK
        with PL_STRINGS_MARK():
            yield

    def _chars(self, term: int, quoted: bool = False) -> str:
        """The text of an atom or string term (any term, written, if ``quoted``), NULs included."""
        length, chars = ctypes.c_size_t(), ctypes.c_char_p()
        if not self._get_nchars(term, ctypes.byref(length), ctypes.byref(chars), self._quoted_flags if quoted else self._text_flags):
            return ""
        return ctypes.string_at(chars, length.value).decode("utf-8")

    def interrupt(self) -> int | None:
        """Stop the goal Prolog is running, if any, from any thread: Prolog throws at its next
        inference (rules/bridge.pl, stop_requested/1) and the call raises KeyboardInterrupt.  The
        number of the goal asked to stop, or None when none was running."""
        with self._lock:
            if self._running:
                self._lib.PL_thread_raise(self._thread, int(signal.SIGUSR2))
                self._raised = True
                return self.goals_run
        return None

    def still_running(self, goal: int) -> bool:
        """Whether goal number ``goal`` (interrupt's answer) is still running."""
        with self._lock:
            return self._running and self.goals_run == goal


STOP_GRACE = 0.8       # seconds a goal asked to stop may take before the process ends without it


def stop_for_sure(engine: Engine, goal: int, number: int) -> None:
    """A goal that has not stopped STOP_GRACE seconds after it was asked (a directive of a game file
    that loops where Prolog checks for no signal) ends the process: one line, and the exit status of
    that signal.  What was committed stays: SQLite keeps a transaction whole or not at all."""
    time.sleep(STOP_GRACE)
    if engine.still_running(goal):
        name = signal.Signals(number).name
        os.write(2, f"educable: stopped by {name}: a rule did not stop when asked (a directive or rule that loops "
                    "without end?); what was committed is kept\n".encode())
        os._exit(128 + number)


def _raise_if_stopped(error: str) -> None:
    """Aborted for abort/0, KeyboardInterrupt for a Ctrl-C that reached a goal outside bridge_call,
    read from the text of what Prolog raised; nothing otherwise."""
    if "$aborted" in error:
        raise Aborted from None
    if "educable_interrupted" in error:
        raise KeyboardInterrupt from None


STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def watch_signals(engine: Engine) -> None:
    """Let Ctrl-C and SIGTERM stop a goal Prolog is running.  Python runs its signal handlers only
    between its own steps, never inside Prolog, so an endless game rule would ignore both; Python
    does note each signal on a wake-up socket at once, and a thread watching that socket interrupts
    Prolog.  Python's handler still runs once the goal has stopped.  Only in the main thread, and
    only when nothing else watches the wake-up socket."""
    if threading.current_thread() is not threading.main_thread():
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:
        return
    if previous != -1:                       # someone else's (an event loop's): leave it theirs
        signal.set_wakeup_fd(previous)
        reader.close()
        writer.close()
        return

    def watch() -> None:
        while True:
            try:
                got = reader.recv(64)
            except OSError:
                return
            if not got:
                return
            stops = [number for number in got if number in STOPPING_SIGNALS]
            if stops:
                goal = engine.interrupt()
                if goal is not None:
                    threading.Thread(target=stop_for_sure, args=(engine, goal, stops[-1]), daemon=True).start()

    threading.Thread(target=watch, name="educable-signals", daemon=True).start()
    engine._signal_socket = (reader, writer)   # kept open as long as the engine


PREFLIGHT_SECONDS = 8       # a game file's directives may run this long in the trial load (the default)
LOAD_SECONDS_ENV = "EDUCABLE_LOAD_SECONDS"


def preflight_seconds() -> int:
    """How long a game file's directives may run in its trial load: $EDUCABLE_LOAD_SECONDS, else 8 s
    (a file that computes large tables as it loads may need more); BadInput for a bad value."""
    raw = os.environ.get(LOAD_SECONDS_ENV, "").strip()
    return whole_number(raw, f"${LOAD_SECONDS_ENV}", 1, 3600, "seconds") if raw else PREFLIGHT_SECONDS
MESSAGE_CHARS = 300         # of a load error (one that prints a huge term is cut)


TIMED_OUT = "loading it did not finish within"
TIMED_OUT_KEPT = 600        # seconds a trial that ran out of time is remembered before it is tried again


def preflight(path: Path, rules_dir: Path = RULES_DIR) -> str | None:
    """The trial load of a game file from elsewhere (trial_load), remembered: a file whose bytes, path
    and working folder, and educable's rule files, are those of an earlier trial, and every other file
    that trial loaded (an include, a consult: SWI-Prolog's source files) still has the bytes it had,
    is not tried again, so that every command after the first pays nothing for it.  A trial that ran
    out of time is remembered for ten minutes only (a busy machine may have slowed a sound file), so
    that commands run one after another do not each wait the whole time limit for it.  The cache is
    a folder of small files (EDUCABLE_CACHE, else ~/.cache/educable): a first line, '!' and the
    error or empty, then a line ``SHA256 PATH`` for each other file the trial loaded.  One that
    cannot be read or written is skipped, never an error."""
    import hashlib
    key = hashlib.sha256()
    try:
        key.update(path.read_bytes())
        key.update(_rules_fingerprint(rules_dir).encode())
    except OSError:
        return trial_load(path, rules_dir)[0]
    key.update(f"{path}|{Path.cwd()}|{preflight_seconds()}|{shutil.which('swipl')}".encode())
    remembered = cache_folder() / "preflight" / key.hexdigest()
    try:
        first, *loaded = remembered.read_text(encoding="utf-8").split("\n")
        fresh = TIMED_OUT not in first or time.time() - remembered.stat().st_mtime < TIMED_OUT_KEPT
        if fresh and all(_digest(Path(p)) == d for d, _, p in (line.partition(" ") for line in loaded if line)):
            return first[1:] if first.startswith("!") else None
    except (OSError, UnicodeDecodeError):
        pass
    error, files = trial_load(path, rules_dir)
    lines = ["" if error is None else "!" + error]
    lines += [f"{_digest(f)} {f}" for f in files if f != path.resolve()]
    remember(remembered, "\n".join(lines))
    return error


def _digest(path: Path) -> str:
    """A file's SHA-256, or 'missing' for one that cannot be read."""
    import hashlib
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def remember(path: Path, content: str | bytes) -> None:
    """Write a file of the cache (text as UTF-8) whole or not at all (commands run side by side); a
    cache that cannot be written is skipped, never an error."""
    from educable.bridge.files import write_whole
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, lambda scratch: scratch.write_bytes(data))
    except (OSError, BadInput):
        pass


SWIPL_PLACES = {"LIBSWIPL_PATH": "PLLIBSWIPL", "SWI_HOME_DIR": "PLBASE"}   # pyswip's variable: swipl's name


def locate_swipl() -> None:
    """Tell pyswip where SWI-Prolog's library and home are (LIBSWIPL_PATH, SWI_HOME_DIR), remembered
    for the ``swipl`` on the PATH: otherwise every process pyswip starts in runs ``swipl
    --dump-runtime-variables`` to find them (about 40 ms of CPU a command).  Variables the user set
    are kept; anything unexpected leaves pyswip to its own search."""
    swipl = shutil.which("swipl")
    if swipl is None or any(os.environ.get(name) for name in SWIPL_PLACES):
        return
    try:
        stat = Path(swipl).resolve().stat()
        remembered = cache_folder() / f"swipl-{stat.st_ino}-{stat.st_mtime_ns}.json"
        try:
            found = json.loads(remembered.read_text(encoding="utf-8"))
            if not swipl_places_ok(found):            # edited, or from another installation: asked again
                remembered.unlink(missing_ok=True)
                raise ValueError("not SWI-Prolog's places")
        except (OSError, ValueError):
            dump = subprocess.run([swipl, "--dump-runtime-variables"], capture_output=True, text=True, timeout=30,  # noqa: S603  (swipl found on PATH, fixed arguments; the goal's paths quoted as atoms)
                                  stdin=subprocess.DEVNULL).stdout
            values = dict(line.rstrip(";").split("=", 1) for line in dump.splitlines() if "=" in line)
            found = {name: values.get(var, "").strip('"') for name, var in SWIPL_PLACES.items()}
            remember(remembered, json.dumps(found))
    except (OSError, subprocess.SubprocessError, ValueError):
        return
    if swipl_places_ok(found):
        os.environ.update({name: found[name] for name in SWIPL_PLACES})


def swipl_places_ok(found: Any) -> bool:
    """Whether remembered places look like SWI-Prolog's own: a library named libswipl and a home with
    its boot file.  Another folder made SWI-Prolog abort the process (two FATAL ERROR lines), another
    library an internal error."""
    if not (isinstance(found, dict) and all(isinstance(found.get(name), str) and found[name] for name in SWIPL_PLACES)):
        return False
    library, home = Path(found["LIBSWIPL_PATH"]), Path(found["SWI_HOME_DIR"])
    return library.name.startswith("libswipl") and library.is_file() and (home / "boot.prc").is_file()


@functools.cache
def _rules_fingerprint(rules_dir: Path) -> str:
    """educable's rule files as a trial load depends on them (names, times, sizes): read once a process,
    not once a game file."""
    return "".join(f"{f.name} {f.stat().st_mtime_ns} {f.stat().st_size};" for f in sorted(rules_dir.glob("*.pl")))


def trial_load(path: Path, rules_dir: Path = RULES_DIR) -> tuple[str | None, list[Path]]:
    """Load a Prolog game file from elsewhere in a plain ``swipl`` of its own first: its first load
    error, or why that process could not load it, or None when it loads; and every file the load read
    (the file itself, what it includes, consults or loads), as far as the trial got.

    A game file is code, and a directive runs as it loads.  Prolog embedded in Python runs without
    its signal handling, so a term too deep for the C stack (printed or thrown by a directive) ends
    the whole process with SIGSEGV, and a directive that never ends hangs it; in a process of its
    own, Prolog reports the first and a time limit stops the second, and educable goes on without
    that file.  About 70 ms a file, for files outside rules/games/ only.
    """
    swipl = shutil.which("swipl")
    if swipl is None:                       # the library without the program: nothing to try it in
        return None, []
    # after the load, every file it read besides educable's and SWI-Prolog's own, on stderr
    loaded = ("forall(( source_file(F) ; source_file(S), source_file_property(S, includes(F, _)) ), "
              f"( sub_atom(F, 0, _, _, {quote(str(rules_dir) + os.sep)}) -> true "
              "; current_prolog_flag(home, H), sub_atom(F, 0, _, _, H) -> true "
              "; format(user_error, 'educable-loaded ~w~n', [F]) ))")
    goal = (f"consult({quote(str(rules_dir / 'bridge.pl'))}), bridge:bridge_load({quote(str(rules_dir / 'core.pl'))}, _), "
            f"bridge:bridge_load_game({quote(str(path))}, Errors, _), {loaded}, "
            "( Errors = [E|_] -> format('~s', [E]) ; true )")
    seconds = preflight_seconds()
    try:
        p = subprocess.run([swipl, "-q", "--stack-limit=1g", "-g", goal, "-t", "halt(3)"], capture_output=True,  # noqa: S603  (swipl found on PATH, fixed arguments; the goal's paths quoted as atoms)
                           timeout=seconds, stdin=subprocess.DEVNULL, cwd=Path.cwd())
    except subprocess.TimeoutExpired:
        return (f"{path}: {TIMED_OUT} {seconds} s (a directive that never ends or "
                "allocates without end?)"), []
    if p.returncode < 0:
        return (f"{path}: loading it ends Prolog with {signal.Signals(-p.returncode).name} (a directive that "
                "builds a term too deep to print, or redefines part of SWI-Prolog?)"), []
    files = sorted({Path(line.removeprefix("educable-loaded ")) for line in p.stderr.decode("utf-8", "replace").splitlines()
                    if line.startswith("educable-loaded /")})
    out = p.stdout.decode("utf-8", "replace").strip()      # its first load error, if any
    if not out:
        return None, files
    line = out.splitlines()[0][:MESSAGE_CHARS]
    return (line if str(path) in line else f"{path}: {line}"), files


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def relative_paths(message: str, rules_dir: Path = RULES_DIR) -> str:
    """The message with paths shown from the project folder, or from the working folder below it."""
    for root in (str(rules_dir.parent) + os.sep, str(Path.cwd()) + os.sep):
        message = message.replace(root, "")
    return message


_ENGINE: Engine | None = None
_AHEAD: Engine | None = None      # started by start_ahead, not yet opened for a command


def start_ahead() -> None:
    """Start SWI-Prolog with educable's rules and the shipped games, but for no command yet, in a
    process that will fork a child for each command (the test suite's fork server, tests/zygote.py):
    the child's first ``engine()`` opens it for its own command (its limits, its signal watch, the
    games of its other folders) instead of starting Prolog again (about 0.15 s of CPU)."""
    global _AHEAD
    _AHEAD = Engine.__new__(Engine)
    _AHEAD._start(RULES_DIR)
    _AHEAD.load_shipped()


def _opened(only: Path | None = None) -> Engine:
    global _AHEAD
    if _AHEAD is None:
        return Engine(only=only)
    if only:
        raise RuntimeError("the engine was started ahead with the shipped games: it cannot hold one file alone")
    opened = _AHEAD
    opened._lib.PL_changed_cwd()      # the command's folder, not the one Prolog started in
    opened._open(only)
    _AHEAD = None
    return opened


def engine() -> Engine:
    """The process's engine, started on first use."""
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = _opened()
    return _ENGINE


def engine_with_only(path: Path) -> Engine:
    """Start the process's engine with one game file and no other (``educable check FILE``: a copy
    of a shipped game must not meet the original)."""
    global _ENGINE
    if _ENGINE is not None:
        raise RuntimeError("the engine has already started with every game file")
    _ENGINE = _opened(only=path)
    return _ENGINE
