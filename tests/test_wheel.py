"""The package as a user gets it: the wheel and the sdist built from this checkout, the wheel installed
into a fresh virtual environment in a scratch folder, and every command there run from another
folder, so that nothing is read from the checkout.  One import name (educable) and its dist-info
are all it adds to site-packages; every file the commands read (rules, templates, static files,
tuple files, data, examples) is in it."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from test_chance import pig_reference

VENV_PY = Path(sys.executable)
DATA_FOLDERS = ("rules", "web/templates", "web/static", "bridge/data", "learners/tuples", "examples")


def uv(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(VENV_PY), "-m", "uv", *args], capture_output=True, text=True, timeout=600, **kw)


def tracked(folder: str) -> list[str]:
    """The files git tracks under ``folder`` (what a clone has), but Python sources and caches."""
    out = subprocess.run(["git", "ls-files", folder], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return [f for f in out.split() if not f.endswith((".py", ".qlf"))]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel (uv build: the sdist first, the wheel from it, as a packager does)."""
    dist = tmp_path_factory.mktemp("dist")
    r = uv("build", "--quiet", "--out-dir", str(dist), str(ROOT))
    if r.returncode != 0 and "network" in r.stderr.lower():
        pytest.skip(f"no package index to build from: {r.stderr.strip().splitlines()[-1]}")
    assert r.returncode == 0, r.stderr
    wheel, = dist.glob("educable-*.whl")
    sdist, = dist.glob("educable-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> dict[str, Path]:
    """A fresh virtual environment outside the checkout with the wheel (and the field's extra)."""
    home = tmp_path_factory.mktemp("user")
    venv = home / "venv"
    r = uv("venv", "--quiet", "--python", str(VENV_PY), str(venv))
    assert r.returncode == 0, r.stderr
    r = uv("pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), f"{built['wheel']}[field]")
    assert r.returncode == 0, r.stderr
    work = home / "work"
    work.mkdir()
    return {"venv": venv, "work": work, "python": venv / "bin" / "python", "educable": venv / "bin" / "educable"}


def run(installed: dict[str, Path], *argv: str, timeout: float = 300, **extra_env: str) -> subprocess.CompletedProcess:
    """A command of the installed package, in a folder of its own, with nothing of the checkout around."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "EDUCABLE_DB", "EDUCABLE_GAMES", "VIRTUAL_ENV")}
    env["EDUCABLE_DB"] = str(installed["work"] / "kb.db")
    env.update(extra_env)
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                          cwd=installed["work"], env=env)


def test_the_wheel_holds_one_import_name_and_every_file_the_commands_read(built):
    names = zipfile.ZipFile(built["wheel"]).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"educable", f"{built['wheel'].name.split('-')[0]}-{built['wheel'].name.split('-')[1]}.dist-info"}, top
    inside = {n.removeprefix("educable/") for n in names}
    missing = [f for folder in DATA_FOLDERS for f in tracked(folder) if f not in inside]
    assert missing == [], f"not in the wheel: {missing}"
    metadata = zipfile.ZipFile(built["wheel"]).read(f"{'-'.join(built['wheel'].name.split('-')[:2])}.dist-info/METADATA")
    assert b"License-Expression: MIT" in metadata and b"Provides-Extra: field" in metadata
    sdist = {n.split("/", 1)[1] for n in tarfile.open(built["sdist"]).getnames() if "/" in n}
    for needed in ("pyproject.toml", "LICENSE", "README.md", "cli.py", "__init__.py", "rules/games/2048.pl"):
        assert needed in sdist, needed


def only_educable_in_site_packages(installed):
    code = ("import importlib.metadata as m; d = m.distribution('educable'); "
            "print(sorted({str(f).split('/')[0] for f in d.files if not str(f).startswith('..')}))")
    r = run(installed, installed["python"], "-c", code)
    assert r.returncode == 0, r.stderr
    dist_info = json.loads(r.stdout.replace("'", '"'))
    assert dist_info[0] == "educable" and len(dist_info) == 2 and dist_info[1].endswith(".dist-info"), dist_info


def commands_work(installed):
    exe = installed["educable"]
    r = run(installed, exe, "--version")
    assert r.returncode == 0 and r.stdout.startswith("educable, version "), r.stderr
    r = run(installed, installed["python"], "-m", "educable", "--version")
    assert r.returncode == 0 and r.stdout.startswith("educable, version "), r.stderr
    r = run(installed, exe, "solve", "tictactoe", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["positions"] == 5478          # tic-tac-toe's reachable positions
    # a shipped game of chance, its numba loops loaded from the kernels the checkout compiled
    # (kernels_are_shared_with_the_checkout)
    r = run(installed, exe, "solve", "pig(10,6)", "--json")
    assert r.returncode == 0, r.stderr
    assert abs(json.loads(r.stdout)["win_probability"] - pig_reference(10)[(0, 0, 0)]) < 1e-9, r.stdout
    r = run(installed, exe, "demo", "--help")
    assert r.returncode == 0, r.stderr


KERNEL_CALL = ("import numpy as np\n"
               "from educable.learners import chance\n"
               "chance._strong_parts(1, np.zeros(2, np.int64), np.zeros(0, np.int64))\n"
               "stats = chance._strong_parts.stats\n"
               "print(stats.cache_path, sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))")


def kernels_are_shared_with_the_checkout(installed):
    """A kernel the checkout compiled is loaded by the installed package, whose source is the same
    but lies elsewhere: numba keeps educable's kernels by module and the source's content
    (learners/jit.py), not beside each file (every clone and virtual environment compiled all of
    them again: 62 s of CPU)."""
    here = subprocess.run([sys.executable, "-c", KERNEL_CALL], capture_output=True, text=True, cwd=ROOT, check=True)
    there = run(installed, installed["python"], "-c", KERNEL_CALL)
    assert there.returncode == 0, there.stderr
    folder, hits, misses = there.stdout.split()
    assert folder == here.stdout.split()[0] == str(Path(os.environ["EDUCABLE_CACHE"]) / "numba"
                                                   / "educable.learners.chance")
    assert (hits, misses) == ("1", "0"), there.stdout


def library_steps_an_environment(installed):
    code = ("import educable, numpy as np\n"
            "assert educable.__version__[0].isdigit(), educable.__version__\n"
            "assert educable.__file__.startswith(sys.prefix), educable.__file__\n"
            "env = educable.env('tictactoe'); env.reset(seed=1)\n"
            "obs, *_ = env.last(); env.step(int(np.flatnonzero(obs['action_mask'])[0]))\n"
            "print(env.agent_selection, int(env.observe(env.agent_selection)['observation'].sum()))")
    r = run(installed, installed["python"], "-c", "import sys\n" + code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["o", "1"], r.stdout      # o to move, one mark on the board


def page_answers(installed):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "EDUCABLE_GAMES")}
    env["EDUCABLE_DB"] = str(installed["work"] / "kb.db")
    server = subprocess.Popen([str(installed["educable"]), "serve", "--port", str(port)], cwd=installed["work"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        page = None
        while time.time() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:   # noqa: S310
                    page = answer.read().decode()
                break
            except OSError:
                time.sleep(0.3)
        assert page is not None, server.stderr.read() if server.poll() is not None else "no answer"
        assert "educable" in page and "tictactoe" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/play.js", timeout=5) as answer:   # noqa: S310
            assert answer.status == 200
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_installed_package_works_outside_the_checkout(installed):
    """One test (one virtual environment, on one worker of the suite): what it adds to site-packages,
    the commands, the library and the page, each run from a folder outside the checkout."""
    only_educable_in_site_packages(installed)
    kernels_are_shared_with_the_checkout(installed)
    commands_work(installed)
    library_steps_an_environment(installed)
    page_answers(installed)
