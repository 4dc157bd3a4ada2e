"""Every Prolog call, and the SQLite connection they share, on one thread.

pyswip is not thread-safe (its open-query flag is process-wide), so the page's requests reach the
library through a one-worker executor: served one after another, never at once.  Prolog starts
on that thread (its first call imports pyswip there), and the knowledge base is opened there
too; answers leave the thread as plain lists and dicts.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def user_errors() -> tuple[type[BaseException], ...]:
    """The refusals a request can cause, which the page answers with their one line (a 4xx)."""
    from educable.bridge.engine import BadInput, ResourceLimit, RuleFileError
    from educable.kb.db import KBError
    from educable.learners.errors import Unsolvable
    return BadInput, KBError, RuleFileError, ResourceLimit, LookupError, Unsolvable


class EngineThread:
    """A one-worker executor that owns the process's Prolog engine and its knowledge base."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="educable-engine")
        self._local = threading.local()

    def _db(self) -> Any:
        from educable.kb.db import open_kb
        db = getattr(self._local, "db", None)
        if db is None:
            from educable.bridge import agents
            agents.keep_loaded()                           # a served agent stays in Prolog until its row changes
            db = self._local.db = open_kb(self.db_path)      # in WAL since `serve` started (cli.py)
        return db

    def call(self, fn: Callable[..., Any], *args: Any, db: bool = False) -> Any:
        """``fn(*args)`` (with the knowledge base first when ``db``) on the engine thread, waited for."""
        return self._pool.submit(lambda: fn(self._db(), *args) if db else fn(*args)).result()

    async def run(self, fn: Callable[..., Any], *args: Any, db: bool = False) -> Any:
        """The same from async code: the event loop goes on serving while the engine works."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: fn(self._db(), *args) if db else fn(*args))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class SolverProcess:
    """The perfect Connect Four player's searches (bitbully), in a process of their own: a search past
    its opening book takes up to a second and holds Python's GIL while it runs, so on the engine
    thread it held up every other request.  Started on first use; its answers are remembered in this
    process (bridge.perfect.remember), where the engine thread then finds them."""

    def __init__(self) -> None:
        self._pool: Any = None

    async def position_values(self, key: str) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from educable.bridge import perfect
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return await asyncio.get_running_loop().run_in_executor(self._pool, perfect.position_values, key)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
