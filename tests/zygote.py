"""A fork server for the suite's command lines: ``educable`` with its imports and numba already done.

Every ``educable`` command a test starts as a user would (a process of its own, its exit code, its
stdout and stderr) pays about 0.3 s of CPU for Python's imports, and one that runs a numba kernel
about 1.3 s more for numba's start (its compiler's tables, loaded again in every process) and
0.7 s for loading the learners' kernels from numba's cache; the suite starts some 500 of them.  Here
one process a test worker does that once (``serve``), with every module of bridge/ and learners/ and
the page's, and each command is a child forked from it that runs ``cli.main`` with the command's arguments, folder,
environment and standard streams (passed over a Unix socket).  A second server forked from the first
has also started SWI-Prolog with educable's rules and shipped games (``bridge.engine.start_ahead``,
about 0.15 s of CPU a command); it takes the commands whose environment would start Prolog alike, and each child opens that
engine for its own command (its limits, signal watch and game files).  ``educable`` on the suite's PATH is a small client (``client``) that hands its own
streams over, forwards SIGINT, SIGTERM and SIGHUP to the child, and ends as the child ended (its
exit code, or killed by the same signal).  Without a running fork server it runs the real command.

The tests of how a command itself starts and those that send a command signals (tests/test_stops.py,
test_interrupt.py, parts of test_cli.py and others: ``conftest.REAL_EDUCABLE``) run the installed
``educable`` and do not come here; two tests of test_cli.py hold this one to it.

This module imports only the standard library at its top: the client runs with ``python -S``.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import pkgutil
import signal
import socket
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # the project's folder
SOCKET_ENV = "EDUCABLE_TEST_FORK_SERVER"
STATUS = "status "
LOG_ENV = "EDUCABLE_TEST_FORK_LOG"
WARM = ".warm"          # the warm server's socket: the fork server's, with this after it
PROLOG_PLACES = ("LIBSWIPL_PATH", "SWI_HOME_DIR", "EDUCABLE_CACHE", "HOME", "LD_LIBRARY_PATH", "LD_PRELOAD")


def client() -> None:
    """Run ``educable ARGS`` in a child of the fork server, as if this process ran it."""
    path = os.environ.get(SOCKET_ENV)
    real = os.path.join(os.path.dirname(sys.executable), "educable")
    request = {"argv": [real, *sys.argv[1:]], "cwd": os.getcwd(), "env": dict(os.environ),
               "sigint_ignored": signal.getsignal(signal.SIGINT) is signal.SIG_IGN}
    try:
        if not path:
            raise OSError("no fork server")
        try:
            conn, reader, pid = _ask(path + WARM, request)
        except (OSError, ValueError):            # not started yet
            pid = 0
        if not pid:                              # or Prolog there started otherwise than this command's would
            with contextlib.suppress(NameError):
                conn.close()
            conn, reader, pid = _ask(path, request)
    except (OSError, ValueError):
        os.execv(real, [real, *sys.argv[1:]])
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, lambda n, _frame: _forward(pid, n))
    line = reader.readline()
    status = int(line[len(STATUS):]) if line.startswith(STATUS) else 1
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _ask(path: str, request: dict):
    """Hand ``request`` and this process's standard streams to the fork server at ``path``: the
    connection, a reader on it and the pid of the command's child (0: refused)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        reader = conn.makefile("r")
        return conn, reader, int(reader.readline())
    except (OSError, ValueError):
        conn.close()
        raise


def _forward(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


def serve(path: str, parent: int) -> None:
    """Import what every command imports, start numba's compiler, then fork a child for each request,
    as long as process ``parent`` (the test process that started this one) is its parent; and a warm
    server beside it that has started SWI-Prolog as well, for the commands it would start alike."""
    import numpy  # noqa: F401
    sys.argv = ["educable"]
    base_path = [p for p in sys.path[1:] if p != _ROOT]    # without this script's folder and the project's
    import numba

    from educable import cli
    numba.njit(lambda x: x + 1)(1)              # numba's compiler tables loaded once, here
    import uvicorn  # noqa: F401                 (these two by every `serve`: 0.15 s)

    import educable.web.app  # noqa: F401
    from educable import bridge, learners
    for package in (bridge, learners):          # the modules commands import as they need them (0.9 s here)
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
    from educable.learners import jit
    with contextlib.suppress(Exception):        # numba's cache as setup filled it; else commands load it as they need
        jit.load_cached()
    if os.fork() == 0:                          # the warm server: SWI-Prolog started too
        from educable.bridge import engine
        engine.locate_swipl()                   # pyswip's variables, as a command would set them
        accepts = _prolog_as_started(set(engine.SWIPL_PLACES))
        engine.start_ahead()
        _serve_on(path + WARM, os.getppid(), cli, base_path, accepts)
        os._exit(0)
    _serve_on(path, parent, cli, base_path, None)


def _prolog_as_started(located: set[str]):
    """Whether a command would start SWI-Prolog as it was started here: not `check FILE` (which loads
    that file alone), the same ``swipl`` on its PATH, and the same settings where educable and pyswip
    look for it (those in ``located`` may also be unset: the command would locate the same ``swipl``
    as this process did, and a test process that started Prolog passes them on set)."""
    import shutil
    swipl = shutil.which("swipl")
    here = {name: os.environ.get(name) for name in PROLOG_PLACES}
    return lambda argv, env: (not ("check" in argv and any(a.endswith((".pl", ".kif")) for a in argv))  # `check FILE`: that file alone
                              and shutil.which("swipl", path=env.get("PATH")) == swipl
                              and all(env.get(name) == value or (name in located and env.get(name) is None)
                                      for name, value in here.items()))


def _serve_on(path: str, parent: int, cli, base_path: list[str], accepts) -> None:
    """Serve requests at ``path`` while process ``parent`` is this one's parent; ``accepts(argv, env)``, if
    given, says which commands this server runs (the others are told 0: to ask the other server)."""
    import selectors

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path + ".new")
        listener.listen(64)
        os.rename(path + ".new", path)          # clients see the socket only once it accepts
    except FileNotFoundError:                   # the test process ended, its folder gone, before this started
        return
    wakeup_r, wakeup_w = os.pipe()
    os.set_blocking(wakeup_w, False)
    signal.set_wakeup_fd(wakeup_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    waiting: dict[int, tuple[socket.socket, list[str]]] = {}     # a running command's client, and what it runs
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wakeup_r, selectors.EVENT_READ)
    while os.getppid() == parent:               # the test worker gone: so is its fork server
        for key, _ in selector.select(timeout=1.0):
            if key.fileobj is listener:
                conn, _ = listener.accept()
                pid, command = _fork_command(conn, [listener, *(c for c, _ in waiting.values())],
                                             wakeup_r, wakeup_w, cli, base_path, accepts)
                if pid:
                    waiting[pid] = (conn, command)
                    selector.register(conn, selectors.EVENT_READ, pid)
            elif key.fileobj == wakeup_r:
                os.read(wakeup_r, 4096)
            else:                               # the client ended before its command: killed, so is the command
                selector.unregister(key.fileobj)
                _forward(key.data, signal.SIGKILL)
        while waiting:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                break
            if pid not in waiting:
                continue
            conn, command = waiting.pop(pid)
            _log(command, usage, accepts is not None)
            with contextlib.suppress(KeyError):     # unregistered already when its client ended first
                selector.unregister(conn)
            with contextlib.suppress(OSError):
                conn.sendall(f"{STATUS}{status}\n".encode())
            conn.close()


def _log(command: list[str], usage, warm: bool) -> None:
    """With $EDUCABLE_TEST_FORK_LOG set, a line of the file it names for each command: the CPU seconds it
    took, its arguments and the test that started it (to see where the suite's time goes)."""
    if os.environ.get(LOG_ENV):
        with open(os.environ[LOG_ENV], "a") as f:
            f.write(json.dumps([round(usage.ru_utime + usage.ru_stime, 3), command, warm]) + "\n")


def _fork_command(conn: socket.socket, others: list[socket.socket], wakeup_r: int, wakeup_w: int, cli,
                  base_path: list[str], accepts) -> tuple[int, list[str]]:
    """Read one request and fork its child: the child's pid, told to the client too (0: a bad request,
    or one ``accepts`` refuses), and its arguments with '#' and the test that started it."""
    try:
        message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        while not message.endswith(b"\n"):
            more = conn.recv(1 << 20)
            if not more:
                raise OSError("request cut short")
            message += more
        request = json.loads(message)
    except (OSError, ValueError):
        conn.close()
        return 0, []
    if accepts is not None and not accepts(request["argv"], request["env"]):
        for fd in fds:
            os.close(fd)
        with contextlib.suppress(OSError):
            conn.sendall(b"0\n")
        conn.close()
        return 0, []
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        conn.sendall(f"{pid}\n".encode())
        return pid, [*request["argv"][1:], "#", request["env"].get("PYTEST_CURRENT_TEST", "")]
    try:
        for other in [*others, conn]:
            other.close()
        signal.set_wakeup_fd(-1)
        os.close(wakeup_r)
        os.close(wakeup_w)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN if request["sigint_ignored"] else signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _fresh_streams()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = request["argv"]
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [os.path.dirname(sys.argv[0]), *extra, *base_path]     # as Python starts the script
        import numpy
        numpy.random.seed()                     # Python's random is seeded again at fork by itself
        code = _run(cli.main)
    except BaseException:                       # noqa: BLE001  (whatever happens, the child must end here)
        import traceback
        traceback.print_exc()
        code = 1
    try:
        import atexit
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _run(main) -> int:
    """``sys.exit(main())`` as the console script does, its exit code."""
    try:
        main()
        return 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1


def _fresh_streams() -> None:
    """sys.stdin, stdout and stderr over the new descriptors, buffered as Python does at start."""
    import io
    sys.stdin = io.TextIOWrapper(io.open(0, "rb", closefd=False), encoding="utf-8", errors="strict")
    out = io.open(1, "wb", closefd=False)
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", line_buffering=os.isatty(1),
                                  write_through=False)
    sys.stderr = io.TextIOWrapper(io.open(2, "wb", closefd=False), encoding="utf-8", errors="backslashreplace",
                                  line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


def client_in(folder: str) -> str:
    """Write the ``educable`` client into ``folder`` (its fork server's socket will be there too); its path."""
    here = os.path.dirname(os.path.abspath(__file__))
    shim = os.path.join(folder, "educable")
    with open(shim, "w") as f:
        f.write(f"#!{sys.executable} -S\nimport sys\nsys.path.insert(0, {here!r})\n"
                "from zygote import client\nclient()\n")
    os.chmod(shim, 0o755)
    return shim


def start(folder: str) -> None:
    """Start a fork server for this process, its socket in ``folder`` (it ends with this process), and
    send this process's ``educable`` commands to it."""
    import subprocess
    path = os.path.join(folder, "fork-server")
    subprocess.Popen([sys.executable, os.path.abspath(__file__), path, str(os.getpid())], cwd=_ROOT,  # noqa: S603
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
    os.environ[SOCKET_ENV] = path


def client_folder() -> str | None:
    """The folder of the ``educable`` client when a fork server was started, to put first on a PATH."""
    path = os.environ.get(SOCKET_ENV)
    return os.path.dirname(path) if path else None


if __name__ == "__main__":
    sys.path.insert(0, _ROOT)
    serve(sys.argv[1], int(sys.argv[2]))
