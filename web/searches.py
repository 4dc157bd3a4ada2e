"""The page's searches in a process of their own, under a bound of time.

A move by a searching opponent (``alphabeta:8``, ``expectimax:8`` on 2048) or a query that searches
below a position can run for minutes; on the engine thread it held up every other request, and the
server could not stop while Prolog ran.  Here each such request runs in a child process with its own
Prolog engine and its own connection to the knowledge base (WAL): the page goes on serving meanwhile,
and a search still running after ``SEARCH_SECONDS`` is stopped by ending the child (a new one starts
with the next search), its request refused in one line.  The child is asked for a fixed task by name
(``TASKS``) with plain arguments: nothing a request says becomes code.
"""
from __future__ import annotations

import asyncio
import multiprocessing
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

SEARCH_SECONDS = 8.0        # a search's bound: past it the request is refused (the page answers within 10 s)
START_SECONDS = 60.0        # the child's start (Python, Prolog, the game files), not counted in the bound


class SearchRefused(Exception):
    """A search that ran past its bound, or whose process ended or would not start."""


def _move(db: Any, *args: Any) -> Any:
    from educable.bridge import session
    return session.reply(db, *args)


def _query(db: Any, *args: Any) -> Any:
    from educable.bridge import querying
    return querying.query(db, *args)


TASKS = {"move": _move, "query": _query}


def _serve(conn: Connection, db_path: str) -> None:
    """The child: start Prolog and load the games, say "ready", then answer each (task, args) with
    ("ok", answer), ("refused", one line) for a user's error, or ("error", one line)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)         # Ctrl-C reaches the server, which ends this child
    from educable.bridge import agents, games
    from educable.web.engine import user_errors
    refusals = user_errors()
    games.games()                                        # Prolog started, the game files loaded
    agents.keep_loaded()
    conn.send(("ready",))
    db = None
    while True:
        try:
            task, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if db is None:
                from educable.kb.db import open_kb
                db = open_kb(Path(db_path))
            conn.send(("ok", TASKS[task](db, *args)))
        except refusals as exc:
            conn.send(("refused", " ".join(str(exc).split())[:500]))
        except Exception as exc:                          # noqa: BLE001  (said to the page as its one line)
            conn.send(("error", f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}"))


class Searches:
    """The child process that runs the page's searches, started on first use, one search at a time."""

    def __init__(self, db_path: Path, seconds: float = SEARCH_SECONDS) -> None:
        self.db_path = db_path
        self.seconds = seconds
        self._process: Any = None
        self._conn: Connection | None = None
        self._lock = asyncio.Lock()

    async def _started(self) -> Connection:
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return self._conn
        self.close()
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, str(self.db_path)), daemon=True,
                                        name="educable-searches")
        self._process.start()
        child.close()
        self._conn = parent
        try:
            ready = await self._answered(parent, START_SECONDS) and parent.recv() == ("ready",)
        except (EOFError, OSError):
            ready = False
        if not ready:
            self.close()
            raise SearchRefused("the page's search process did not start")
        return parent

    @staticmethod
    async def _answered(conn: Connection, seconds: float) -> bool:
        try:
            return await asyncio.get_running_loop().run_in_executor(None, conn.poll, seconds)
        except (EOFError, OSError):
            return True                                   # ended: recv says so

    async def run(self, task: str, *args: Any) -> Any:
        """``task`` (a name of TASKS) with ``args`` in the child: its answer; a user's error raised as
        BadInput with the child's line; SearchRefused past the bound (the child is ended)."""
        from educable.bridge.errors import BadInput
        async with self._lock:
            conn = await self._started()
            conn.send((task, args))
            try:
                done = await self._answered(conn, self.seconds)
            except asyncio.CancelledError:      # the server stops: the search with it, and the request answered
                self.close()
                raise SearchRefused("the server is stopping: the search was stopped") from None
            if not done:
                self.close()
                raise SearchRefused(f"the search ran past its bound of {self.seconds:g} s and was stopped: "
                                    "choose a shallower search or a smaller board")
            try:
                answer = conn.recv()
            except (EOFError, OSError):
                self.close()
                raise SearchRefused("the search's process ended before it answered") from None
        if answer[0] == "ok":
            return answer[1]
        if answer[0] == "refused":
            raise BadInput(answer[1])
        raise RuntimeError(answer[1])

    def close(self) -> None:
        """End the child at once (a search it runs is stopped with it)."""
        process, self._process = self._process, None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if process is not None and process.is_alive():
            process.kill()
            process.join(timeout=2)
