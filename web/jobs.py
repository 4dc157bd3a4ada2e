"""Long work started from the page — a training run, a tournament — each a process of its own:
the same command a terminal would run (`educable train ...`, `educable tournament ...`) on the
server's knowledge base, so the engine thread that serves the page is never held, and the page
follows the work through what it commits (the run's live curve, the stored tournament).  Stopping
a job sends it SIGTERM, which a training run takes as Ctrl-C: what it committed is kept.
"""
from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXE = str(Path(sys.executable).parent / "educable")
REFUSAL_WAIT = 2.0          # seconds a new job is watched for a refusal before the page is answered
MAX_RUNNING = 4


@dataclass
class Job:
    id: int
    kind: str
    args: list[str]
    agent: str | None
    process: subprocess.Popen
    log: Path
    started: float = field(default_factory=time.time)

    def status(self) -> dict[str, Any]:
        code = self.process.poll()
        lines = [x for x in self.log.read_text(errors="replace").splitlines() if x.strip()] if self.log.exists() else []
        return {"id": self.id, "kind": self.kind, "command": "educable " + " ".join(self.args), "agent": self.agent,
                "running": code is None, "exit_code": code, "last_line": lines[-1][:300] if lines else "",
                "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.started))}


class Jobs:
    """The jobs this server started, by id."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.jobs: dict[int, Job] = {}
        self.ids = itertools.count(1)
        self._folder: Path | None = None

    @property
    def folder(self) -> Path:
        """The jobs' logs: a temporary folder made at the first job and removed when the server stops."""
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="educable-jobs-"))
        return self._folder

    def start(self, kind: str, args: list[str], agent: str | None = None) -> dict[str, Any]:
        """Start ``educable COMMAND --db=DB REST`` (``args``: the command and the rest, built from checked
        values, its names after ``--``; the knowledge base is always the server's own); its status, or
        ValueError with its one line when the command refused at once (a bad option, an unknown game)
        or the agent is being trained by another job."""
        if "--" not in args or any(a.startswith("--db") for a in args[:args.index("--")]):
            raise ValueError("a job's command line must be built by bridge.commands (its names after --)")
        running = [j for j in self.jobs.values() if j.process.poll() is None]
        if len(running) >= MAX_RUNNING:
            raise ValueError(f"{len(running)} jobs are running already; stop one first")
        if agent is not None and any(j.agent == agent for j in running):
            raise ValueError(f"agent '{agent}' is being trained by another job of this page; stop it first")
        job_id = next(self.ids)
        log = self.folder / f"job{job_id}.log"
        env = {**os.environ, "EDUCABLE_HEARTBEAT": "2"}           # a progress line every 2 s into the log
        with open(log, "w") as out:
            proc = subprocess.Popen([EXE, args[0], f"--db={self.db_path}", *args[1:]], stdout=out, stderr=subprocess.STDOUT,  # noqa: S603  (educable itself, with arguments built from checked values (bridge.commands))
                                    stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        job = Job(job_id, kind, args, agent, proc, log)
        self.jobs[job_id] = job
        deadline = time.time() + REFUSAL_WAIT
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        if proc.poll() == 2:                                          # refused: one line says why
            del self.jobs[job_id]
            raise ValueError(job.status()["last_line"].removeprefix("educable: error: "))
        return job.status()

    def stop(self, job_id: int) -> dict[str, Any]:
        """SIGTERM to the job (a training run keeps what it committed); its status once it ended."""
        job = self.jobs.get(job_id)
        if job is None:
            raise ValueError(f"no job {job_id} on this server")
        if job.process.poll() is None:
            job.process.send_signal(signal.SIGTERM)
            try:
                job.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                job.process.kill()
                job.process.wait()
        return job.status()

    def list(self) -> list[dict[str, Any]]:
        return [j.status() for j in sorted(self.jobs.values(), key=lambda j: -j.id)]

    def close(self) -> None:
        for job in self.jobs.values():
            if job.process.poll() is None:
                job.process.send_signal(signal.SIGTERM)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
