"""Parallel work on Dask (the ``distributed`` package): one engine for every command that runs in parallel.

By default a local cluster of worker processes (one thread each) is started
for the command and closed after it; ``--scheduler ADDRESS`` or the
environment variable EDUCABLE_SCHEDULER sends the same work to an existing
Dask scheduler (its workers must have educable installed).  Tasks are pure
functions of their arguments (a board's seed, a run's options), so a task
lost with a worker is run again elsewhere and gives the same result.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from educable.bridge.engine import BadInput

SCHEDULER_ENV = "EDUCABLE_SCHEDULER"
CONNECT_SECONDS = 10


def scheduler_address(given: str | None) -> str | None:
    """The scheduler to use: ``--scheduler``, else EDUCABLE_SCHEDULER, else None (a local cluster)."""
    address = given or os.environ.get(SCHEDULER_ENV) or None
    if address is not None and not address.strip():
        raise BadInput("--scheduler: an empty address")
    return address


def _refused(address: str) -> str | None:
    """Why a TCP scheduler address cannot be reached, found at once (a refused connection, a name that
    does not resolve, no port), where Dask's client would retry for CONNECT_SECONDS before saying so;
    None when a connection opens, or for other schemes (tls://, ucx://), which Dask's client tries."""
    import socket
    from urllib.parse import urlsplit
    if "://" in address and not address.startswith("tcp://"):
        return None
    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        return f"not an address: {exc}"
    if not host or port is None:
        return "not an address: want tcp://HOST:PORT"
    try:
        with socket.create_connection((host, port), timeout=CONNECT_SECONDS):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


@contextmanager
def client(workers: int, scheduler: str | None = None) -> Iterator[Any]:
    """A Dask client: on a local cluster of ``workers`` processes, or on the scheduler at
    ``scheduler`` (BadInput in one line if it cannot be reached)."""
    refused = _refused(scheduler) if scheduler else None
    if refused:                                 # said at once, before distributed is even imported (a second)
        raise BadInput(f"cannot reach the Dask scheduler at {scheduler} ({refused})")
    from distributed import Client, LocalCluster

    for name in ("distributed", "distributed.nanny", "distributed.worker", "distributed.scheduler",
                 "distributed.core", "distributed.comm"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if scheduler:
        try:
            c = Client(scheduler, timeout=f"{CONNECT_SECONDS}s")
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise BadInput(f"cannot reach the Dask scheduler at {scheduler} ({reason[:120]})") from None
        try:
            yield c
        finally:
            c.close()
        return
    import warnings

    import dask
    # The workers' statistical profiler samples each task's stack every 10 ms for a dashboard we do
    # not start; with every core busy it cost Connect Four's self-play 5-15% of its games a second.
    # Each process also checks its event loop every 20 ms, its memory every 100 ms and the
    # machine every 500 ms: 6.9% of a core while a two-worker cluster sits idle, 1.5% at these
    # intervals, so the workers' games get the rest. (A worker past its memory limit is still
    # stopped, within a second.)
    # Dask's nanny also starts each worker with MALLOC_TRIM_THRESHOLD_=65536, and setting it at all
    # turns off glibc's adaptive mmap threshold: each of self-play's large per-step arrays (2 MB on
    # Connect Four) was then mapped and zeroed afresh, and a worker played 4,096 games in 7.6 s where
    # a plain process took 6.2 (6.6 without it; bench/results/c4_workers.json).
    # The workers are forked from one server process that has imported Dask and numpy ('forkserver'),
    # not each started afresh ('spawn'): `race run --workers 2` took 5.2 s of CPU instead of 7.0,
    # a two-worker sweep 3.4 instead of 3.8.
    dask.config.set({"distributed.worker.profile.enabled": False,
                     "distributed.admin.tick.interval": "1s",
                     "distributed.worker.memory.monitor-interval": "1s",
                     "distributed.admin.system-monitor.interval": "2s",
                     "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                     "distributed.worker.multiprocessing-method": "forkserver"})
    with warnings.catch_warnings(), sigint_ignored():
        warnings.simplefilter("ignore")          # e.g. "port 8787 is already in use" for a dashboard not started
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               worker_dashboard_address=None, silence_logs=logging.CRITICAL)
    c = Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ctrl-C ignored while the local cluster's processes start, so that they inherit it ignored: the
    terminal sends SIGINT to the whole process group, and a worker process that takes it prints
    Dask's 30-line KeyboardInterrupt traceback.  This process alone handles Ctrl-C (it keeps what was
    committed and closes the cluster, which stops the workers)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def engine(workers: int, scheduler: str | None = None) -> Iterator[Any]:
    """Where ``run_tasks`` runs: None (in this process) for one worker and no scheduler, else a
    Dask client (``client``).  Open it before storing anything: a bad address is refused here."""
    if workers == 1 and scheduler is None:
        yield None
        return
    with client(workers, scheduler) as c:
        yield c


def run_tasks(c: Any, fn: Callable, tasks: Iterable[tuple], keep: Callable[[Any], None],
              pins: list[str] | None = None) -> None:
    """Run ``fn(*task)`` for every task, on the engine ``c`` (None: here, one after another);
    ``keep(result)`` as each finishes, in the order they finish (the caller commits it).  Tasks
    are submitted in the order given: give the longest first.  ``pins``: the worker address each
    task should run on (a task that works on what an earlier one left on that worker; should that
    worker be gone, it runs elsewhere and says so itself)."""
    if c is None:
        for task in tasks:
            keep(fn(*task))
        return
    collect(submit_tasks(c, fn, tasks, pins), keep)


def submit_tasks(c: Any, fn: Callable, tasks: Iterable[tuple], pins: list[str] | None = None) -> list[Any]:
    """Start ``fn(*task)`` for every task on the Dask client ``c`` (``pins`` as in run_tasks) and
    return at once: their futures, for ``collect``.  The caller may work meanwhile."""
    where = [dict(workers=[pin], allow_other_workers=True) for pin in pins] if pins else None
    return [c.submit(fn, *task, pure=False, **(where[i] if where else {})) for i, task in enumerate(tasks)]


def collect(futures: list[Any], keep: Callable[[Any], None]) -> None:
    """``keep(result)`` for each of ``futures`` as it finishes; those left are cancelled should one fail
    or the wait be interrupted."""
    from distributed import as_completed

    try:
        for future in as_completed(futures):
            keep(future.result())
    finally:
        for f in futures:
            f.cancel()
