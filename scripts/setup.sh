#!/usr/bin/env bash
# Idempotent set-up: SWI-Prolog (Debian swi-prolog-core) if swipl is missing,
# a .venv, and the project installed editable with its test extras.
# Quiet when everything is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."
# Python writes the bytecode of what it imports here even where PYTHONDONTWRITEBYTECODE is set
# (the Makefile unexports it too): compiled once, in .venv and the project's __pycache__ folders.
unset PYTHONDONTWRITEBYTECODE

# The Debian packages of the programs educable and its documented examples run:
# SWI-Prolog, the sqlite3 shell the tutorial opens the knowledge base with, and
# chromium for the browser tests of `educable serve`.
missing=()
command -v swipl >/dev/null 2>&1 || missing+=(swi-prolog-core)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
# Debian's chromium, which the page's tests drive through Playwright (no browser download).
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]}…"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: ${missing[*]} missing and this system has no apt-get;" >&2
    echo "setup: install SWI-Prolog 9 (https://www.swi-prolog.org/download) and the sqlite3 shell, then run again." >&2
    exit 1
  fi
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv…"
  # Without pip's own copy, which `venv` bootstraps in 5 s: uv installs pip with the rest below
  # (and where uv cannot be had, ensurepip bootstraps it as venv would have).
  "$PY" -m venv --without-pip .venv
fi

# Reinstall only when pyproject.toml changed since the last install.
stamp=.venv/.educable-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing educable (editable, with test extras, the perfect Connect Four player, PettingZoo, Gymnasium and OpenSpiel)…"
  # uv (from PyPI) installs the same packages as pip in about a fifth of the time (13 s against 54 s
  # on a fresh clone); where uv cannot be had or cannot reach an index, pip does it as before.
  # Bytecode is written as modules are first imported (below, and by the commands), not for all
  # 1 GB of packages at install: compiling them all took 17 of a fresh clone's 55 s of set-up.
  # uv itself comes from the base Python's pip, put into .venv (pip's --python), else from .venv's pip.
  pip_in_venv() {
    .venv/bin/python -m pip --version >/dev/null 2>&1 || .venv/bin/python -m ensurepip
    .venv/bin/python -m pip install -q --disable-pip-version-check "$@"
  }
  if ! { { .venv/bin/python -m uv --version ||
           "$PY" -m pip --python .venv/bin/python install -q --disable-pip-version-check uv ||
           pip_in_venv uv; } &&
         .venv/bin/python -m uv pip install -q --python .venv/bin/python pip -e '.[test,perfect,field,openspiel,bench]'; } \
       >.venv/pip.log 2>&1 &&
     ! pip_in_venv -e '.[test,perfect,field,openspiel,bench]' >>.venv/pip.log 2>&1; then
    cat .venv/pip.log >&2
    echo "setup: pip install failed (log above)" >&2
    exit 1
  fi
  # The bytecode of what educable's commands import (the page's and the sweeps' libraries too), for
  # a user whose environment sets PYTHONDONTWRITEBYTECODE (else every command compiles them anew),
  # and of the test suite's libraries, which its first processes would each compile at once.
  # (In the background, beside the rest of the set-up; waited for at its end.)
  .venv/bin/python -c "import educable.cli, educable.bridge.commands, sqlite_utils, distributed, matplotlib.pyplot, educable.web.app, PIL
import pytest, xdist, hypothesis, playwright.sync_api, pettingzoo, gymnasium, pyspiel, httpx, starlette.testclient" \
    >.venv/imports.log 2>&1 &
  importing=$!
  touch "$stamp"
fi

# mypy checks the package under the name it is installed as (pyproject.toml's [tool.mypy]).
[ -L .venv/typecheck/educable ] || { mkdir -p .venv/typecheck && ln -sfn ../.. .venv/typecheck/educable; }

# educable's own modules compiled too (only what changed since; quiet): every command imports them.
.venv/bin/python -m compileall -q -j 0 cli.py __init__.py __main__.py bridge kb learners web >/dev/null

# SWI-Prolog's quick-load files of educable's rules (rules/*.qlf): Prolog loads an up-to-date .qlf
# in place of its .pl, which starts every command about 70 ms sooner (an edited .pl is newer than
# its .qlf and is loaded from source until the next set-up). Made again when a rule file changed
# or SWI-Prolog did; if any is missing after (a rule file being edited), none is kept.
qlf_stamp=.venv/.educable-qlf
swipl_version=$(swipl --dump-runtime-variables 2>/dev/null | grep PLVERSION || true)
if [ ! -f "$qlf_stamp" ] || [ "$(cat "$qlf_stamp")" != "$swipl_version" ] ||
   [ -n "$(find rules -maxdepth 1 -name '*.pl' -newer "$qlf_stamp")" ]; then
  rm -f rules/*.qlf
  rule_files=$(cd rules && ls ./*.pl | sed "s|^\./\(.*\)|'\1'|" | paste -sd,)
  (cd rules && swipl -q -g "forall(member(F, [$rule_files]), qcompile(F))" -t halt) >/dev/null 2>&1 ||
    true                # halt is refused while guard.pl is loaded: the exit status says nothing
  if [ "$(ls rules/*.qlf 2>/dev/null | wc -l)" -eq "$(ls rules/*.pl | wc -l)" ]; then
    echo "$swipl_version" > "$qlf_stamp"
  else
    rm -f rules/*.qlf
  fi
fi

# numba's cache of educable's compiled loops (the rat race, the n-tuple learner and 2048's kernel,
# exact-fitness rule sets, the solver of games of chance), filled once here: on a fresh clone every process that needs
# them compiled them again until one had written the cache (7-10 s of CPU each time; the test suite
# ran several at once). The cache is the user's (~/.cache/educable/numba, by module and the content
# of learners/: learners/jit.py), so another clone or virtual environment of the same code loads
# them (a few seconds here) where compiling took 62 s of CPU. Run again when a module of learners/
# or scripts/warm_numba.py changed; three processes side by side. If it fails, commands compile as
# they need, as before.
numba_stamp=.venv/.educable-numba
if [ ! -f "$numba_stamp" ] || [ -n "$(find learners scripts/warm_numba.py -name '*.py' -newer "$numba_stamp")" ]; then
  if .venv/bin/python scripts/warm_numba.py --warmed; then
    touch "$numba_stamp"              # compiled into the user's cache by another clone of this code
  else
    echo "setup: compiling the race's and learners' loops into numba's cache…"
    if { .venv/bin/python scripts/warm_numba.py race tiles & race=$!;
         .venv/bin/python scripts/warm_numba.py believers & believers=$!;
         .venv/bin/python scripts/warm_numba.py learners; learners=$?;
         wait $race && wait $believers && [ $learners -eq 0 ]; } \
         >.venv/numba.log 2>&1; then
      .venv/bin/python scripts/warm_numba.py --mark
      touch "$numba_stamp"
    else
      echo "setup: compiling numba's loops failed (.venv/numba.log); commands will compile them as they need" >&2
    fi
  fi
fi
[ -z "${importing:-}" ] || wait "$importing" || true
