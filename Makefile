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
	@# the target. Four test processes on two cores: many tests wait on servers, timers and subprocesses
	@# (the suite took 392 s with three, 357 s with four on an idle machine)
	@$(VENV)/bin/mypy --no-error-summary & mypy=$$!; \
	$(PY) -m pytest -q -n 4 --dist worksteal --durations=15; tests=$$?; \
	wait $$mypy && exit $$tests

bench: setup
	@for b in bench/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) *.egg-info build dist educable.db rules/*.qlf
