# Two commands do everything on a fresh machine: `make demo` and `make test`.
# Each runs the (idempotent, quiet when done) set-up first.
VENV := .venv
PY := $(VENV)/bin/python
# Python writes the bytecode of what it imports (in .venv and __pycache__ folders) even where the
# environment says not to: the suite starts hundreds of Python processes, each of which would
# otherwise compile numpy, numba, dask... from source again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup demo test bench clean

setup:
	@bash scripts/setup.sh

demo: setup
	@$(VENV)/bin/educable demo

test: setup
	@$(VENV)/bin/ruff check --quiet cli.py __init__.py __main__.py bridge kb learners web
	@# mypy (one core, about 10 s from cold) checks while the test processes start; either failing fails
	@# the target. Its cache is the user's, as uv's is: mypy checks each file's content against it, so
	@# another clone of the same code checks in 0.2 s instead of 7 (an edited file is checked anew).
	@# Three test processes on two cores: some tests wait on servers, timers and subprocesses, but the
	@# suite is bound by CPU, and a fourth process added its own fork server, Dask cluster and browser
	@# (bench/suite_time.py, alternating: 324 and 327 s with three, 345 and 348 s with four)
	@MYPY_CACHE_DIR=$${MYPY_CACHE_DIR:-$$HOME/.cache/educable/mypy} $(VENV)/bin/mypy --no-error-summary & mypy=$$!; \
	$(PY) -m pytest -q -n 3 --dist worksteal --durations=15; tests=$$?; \
	wait $$mypy && exit $$tests

bench: setup
	@for b in bench/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) *.egg-info build dist educable.db rules/*.qlf
