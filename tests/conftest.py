import atexit
import functools
import os
import shutil
import signal
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# No progress line every 10 s on a stderr that is no terminal: what a command prints must not depend
# on how busy the machine is (tests/test_cli.py tests the lines themselves).
os.environ["EDUCABLE_HEARTBEAT"] = "0"
# Trial loads of game files and 2048's line tables are remembered (bridge.engine.preflight,
# bridge.tiles): in a folder of this run's, not the user's ~/.cache, so that no run of the suite sees
# another's; made by the first process (xdist's controller) and shared by the test processes it starts.
# numba's compiled kernels are the exception: they stay the user's (a link to its numba/ folder), as
# a second clone or virtual environment of the user's would find them (learners/jit.py, by module and
# the source's content), and as scripts/setup.sh compiled them before the suite.
_OWN_CACHE = os.environ.get("EDUCABLE_TEST_CACHE_OWNER") is None
if _OWN_CACHE:
    from educable.learners.jit import cache_folder
    _kernels = cache_folder() / "numba"         # the user's, before this run's own folder is set
    os.environ["EDUCABLE_CACHE"] = tempfile.mkdtemp(prefix="educable-cache-")
    os.environ["EDUCABLE_TEST_CACHE_OWNER"] = str(os.getpid())
    try:
        _kernels.mkdir(parents=True, exist_ok=True)
        (Path(os.environ["EDUCABLE_CACHE"]) / "numba").symlink_to(_kernels, target_is_directory=True)
    except OSError:
        pass                            # no such folder to be had: the suite compiles into its own
# A game file's trial load may run 3 s here, not 8: the tests of files that loop wait it out; a sound
# file loads in about 0.1 s even on the busy machine.
os.environ["EDUCABLE_LOAD_SECONDS"] = "3"
if _OWN_CACHE:
    atexit.register(shutil.rmtree, os.environ["EDUCABLE_CACHE"], ignore_errors=True)
sys.path.insert(0, str(Path(__file__).resolve().parent))

import zygote  # noqa: E402  (tests/ on the path first)

# ``educable`` as the tests start it: a client of a fork server that has done the imports and numba's
# start once (tests/zygote.py); EDUCABLE_TEST_REAL_STARTS=1 starts every command from nothing instead.
FORK_FOLDER = tempfile.mkdtemp(prefix="educable-bin-")
atexit.register(shutil.rmtree, FORK_FOLDER, ignore_errors=True)
EDUCABLE = zygote.client_in(FORK_FOLDER)
REAL_EDUCABLE = str(Path(sys.executable).parent / "educable")      # for the tests that send signals


# The modules whose tests take longest (pytest --durations) run first: xdist hands each worker a run of the
# collection and idle workers take tests from the others' ends, so a 40 s test met last would run alone.
FIRST = ("test_docs.py", "test_tiles.py", "test_ntuple.py", "test_perfect.py", "test_wheel.py", "test_einstein.py",
         "test_exact_edges.py", "test_exact.py", "test_hidden.py", "test_web_browser.py", "test_cluster.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))      # stable: within a module as written


def pytest_configure(config):
    controller = not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None)
    if not controller and not os.environ.get("EDUCABLE_TEST_REAL_STARTS"):
        zygote.start(FORK_FOLDER)


def once_per_run(tmp_path_factory, name: str, make):
    """``make()``'s JSON-able result, computed by the first of the suite's processes to ask and read
    from a file by the others (a module's fixture would run again in each test process that meets it)."""
    import fcntl
    import json
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):               # the run's folder, above each test process's own
        shared = shared.parent
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = shared / f"{name}.json"
        if kept.exists():
            return json.loads(kept.read_text())
        result = make()
        kept.write_text(json.dumps(result))
        return result


@pytest.fixture
def db_path(tmp_path, monkeypatch):
    """A fresh knowledge base file per test, also as EDUCABLE_DB."""
    path = tmp_path / "kb.db"
    monkeypatch.setenv("EDUCABLE_DB", str(path))
    return path


@pytest.fixture
def kb(db_path):
    from educable.kb.db import open_kb
    return open_kb(db_path)


@pytest.fixture(scope="session")
def graphs():
    from educable.bridge import graphs
    return {g: graphs.state_graph(None, g) for g in ("tictactoe", "hexapawn")}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """made(commands, into): a knowledge base the commands (run in-process) have filled, copied to
    ``into``.  The commands run once a test module and process; each test gets a copy of their file
    (SQLite's backup)."""
    _MADE: dict[tuple, Path] = {}

    def copy(commands: tuple, into: Path) -> Path:
        if commands not in _MADE:
            path = tmp_path_factory.mktemp("made") / "kb.db"
            for args in commands:
                r = cli(*args, "--db", str(path))
                assert r.exit_code == 0, r.output
            _MADE[commands] = path
        with sqlite3.connect(_MADE[commands]) as source, sqlite3.connect(into) as target:
            source.backup(target)
        return into
    return copy


def kb_dump(path) -> list[str]:
    """The whole database as SQL, to check a refused command changed nothing."""
    return list(sqlite3.connect(path).iterdump())


def cli(*args, input=None):
    """Run the command line in-process (click's runner)."""
    from click.testing import CliRunner

    from educable.cli import main
    return CliRunner().invoke(main, list(args), input=input)


def one_line(r, code=2, *words):
    """A click result that is one line of output (no traceback) with exit ``code``, naming ``words``."""
    lines = r.output.strip().splitlines()
    assert r.exit_code == code, r.output
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    for w in words:
        assert w in lines[0], lines[0]


def cli_json(*args):
    """Run a command with --json; it must succeed, and its output is returned parsed."""
    import json
    r = cli(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def interruptible() -> None:
    """``preexec_fn`` for a process a test stops with SIGINT (Ctrl-C): a suite started in the
    background (``make test &``) ignores SIGINT, and its children would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def assert_adversary_remembers(game: str, ref, me: str, victim_side: str, options: dict, games: int,
                               at_least: int = 1) -> None:
    """Train a punish agent as ``victim_side`` against the adversary (playing ``me``) for ``games``
    games; after each, the adversary's remembered chance in every state where it is to move (at
    least ``at_least`` of them) equals a fresh search over the reference ``ref`` that asks the
    victim only for its current candidates."""
    import pytest

    from educable.bridge import punish
    from educable.bridge.engine import engine, quote
    from reference_games import best_reply_chances

    g = quote(game)
    punish._create("memo", game, punish.validate(options), [])
    engine().call("adversary:adversary_forget, punish:punish_training(memo, true), Out = true")
    try:
        for i in range(games):
            engine().call(f"set_random(seed({i})), play:play_results({g}, "
                          f"[[{me}-adversary(agent(memo)), {victim_side}-agent(memo)]], 1, Out)")

            def candidates(key):
                return set(engine().call(
                    f"game:parse_position({g}, {quote(key)}, P, M), play:candidates(agent(memo), {g}, P, M, Ms), "
                    f"findall(T, (member(X, Ms), game:move_text({g}, X, T)), Out)"))

            mine = {k: p for k, (s, p) in best_reply_chances(ref, me, candidates).items() if s[-1] == me}
            assert len(mine) >= at_least
            for key, p in mine.items():
                got = engine().call(f"game:parse_position({g}, {quote(key)}, P, M), "
                                    f"adversary:win_chance({g}, P, M, {me}, agent(memo), Out)")
                assert got == pytest.approx(float(p), abs=1e-9), (i, key)
    finally:
        engine().call("punish:punish_training(memo, false), Out = true")


@functools.cache
def http():
    """One HTTP client for the whole test process: ``httpx.get`` makes a client, and its TLS context
    (the CA bundle read again), at every call, some 20 s of CPU over the suite.  The server sets no
    cookies, so nothing one test's requests leave reaches another's."""
    import httpx
    return httpx.Client(timeout=120)


class Server:
    """`educable serve` started as a user would, on a free port of 127.0.0.1."""

    def __init__(self, db_path, *args, env=None):
        import os
        import re
        import subprocess
        self.proc = subprocess.Popen([EDUCABLE, "serve", "--port", "0", "--db", str(db_path), *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **(env or {})})
        line = self.proc.stdout.readline()
        found = re.search(r"at (http://[^/\s]+)/", line)
        if not found:
            self.proc.kill()
            raise RuntimeError(f"educable serve did not start: {line!r} {self.proc.stderr.read()[-2000:]}")
        self.url = found.group(1).rstrip("/")
        self.token = re.search(r"X-Educable-Token: (\S+)", line).group(1)

    def get(self, path, **params):
        return http().get(self.url + path, params=params, timeout=120)

    def post(self, path, body, headers=None):
        """A POST as the page sends it: with the server's secret, unless ``headers`` say otherwise."""
        return http().post(self.url + path, json=body, headers={"X-Educable-Token": self.token, **(headers or {})},
                          timeout=120)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()


@pytest.fixture
def served(db_path):
    """A server over the test's fresh knowledge base (started on first use: ``served()``)."""
    servers = []

    def start(*args, env=None):
        servers.append(Server(db_path, *args, env=env))
        return servers[-1]
    yield start
    for s in servers:
        s.stop()
