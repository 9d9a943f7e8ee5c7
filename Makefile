# Two commands set up a fresh machine: `make demo` and `make test`.
# Both create .venv and install everything (every extra but RLlib's, and the dev tools;
# torch pinned in constraints.txt); `make test` also creates .venv-rllib for RLlib (below).
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PIP    := $(PY) -m pip install -q -c constraints.txt
# The web page's browser tests drive Debian's chromium: Playwright's own browser download is
# not reachable, so apt installs it (the package lists are refreshed only when needed).
CHROMIUM := /usr/bin/chromium
# RLlib pins an older gymnasium than constraints.txt: it gets its own venv, whose pins are
# constraints.txt with those of constraints-rllib.txt put over it (same names replaced).
RLVENV := .venv-rllib
RLPY   := $(RLVENV)/bin/python
RLSTAMP := $(RLVENV)/.installed-stamp

.PHONY: install rllib demo test test-quick test-rllib test-slow lint docs notebooks bench bench-ray bench-skill bench-skill-run playthroughs clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) -e '.[dev,all,interop]'
	touch $(STAMP)

$(CHROMIUM):
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
	  || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

$(RLSTAMP): pyproject.toml constraints.txt constraints-rllib.txt
	test -x $(RLPY) || python3 -m venv $(RLVENV)
	awk -F'==' 'function key(n) { n = tolower(n); gsub(/[-_.]+/, "-", n); return n } \
		/^#/ || NF < 2 { next } NR == FNR { own[key($$1)] = 1; print; next } \
		!(key($$1) in own)' constraints-rllib.txt constraints.txt > $(RLVENV)/constraints.txt
	$(RLPY) -m pip install -q -c $(RLVENV)/constraints.txt -e '.[dev,rllib]'
	touch $(RLSTAMP)

# morty warmup compiles the engine's kernels ahead (numba, cached on disk), so that no later
# run waits for them: a minute or two the first time, seconds once cached
install: $(STAMP) $(CHROMIUM)
	$(VENV)/bin/morty warmup

rllib: $(RLSTAMP)

demo: $(STAMP)
	$(VENV)/bin/morty warmup
	$(VENV)/bin/morty demo

# pytest also runs the strict docs build (tests/project/test_docs.py) and every Python code block
# of README.md and docs/ (--markdown-docs in pyproject.toml)
# (tests/arena/test_ray_rllib.py is skipped in .venv, which has no RLlib, and runs in test-rllib)
test: $(STAMP) $(CHROMIUM) $(RLSTAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -n 2 --dist loadfile -q
	$(MAKE) test-rllib

# The fast tier for rules and engine work, under 2 minutes with a warm numba cache: the
# rules, both engines and their differential on a few hundred games (MORTY_QUICK), the
# envs' API checks; no docs build, browser, Ray, notebooks, packaging or training.
QUICK := tests/rules tests/engine/test_engine_*.py tests/engine/test_features.py \
	tests/engine/test_invariants.py tests/envs/test_env_*.py

test-quick: $(STAMP)
	MORTY_QUICK=1 $(VENV)/bin/pytest -n 2 --dist loadfile -q -k "not learns" $(QUICK)

test-rllib: $(RLSTAMP)
	$(RLVENV)/bin/pytest tests/arena/test_ray_rllib.py -q -p no:cacheprovider

test-slow: $(STAMP)
	$(VENV)/bin/pytest -m slow -q

lint: $(STAMP)
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

# the documentation site; warnings are errors (tests/project/test_docs.py builds it the same way)
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

# run the notebooks at research size and save them with their outputs (what the docs show;
# minutes); tables they export go to runs/notebooks/ (git-ignored)
notebooks: $(STAMP)
	$(PY) experiments/tools/run_notebooks.py

bench: $(STAMP)
	$(PY) experiments/benchmarks/bench_engine.py

# distributed tournament on a 2-CPU local Ray vs the local run (the numbers in docs/ray.md)
bench-ray: $(STAMP)
	$(PY) experiments/benchmarks/bench_ray.py

# time to skill: the wall time and learner steps each trainer needs to reach fixed strengths,
# from the committed logs of the shipped recipes (the table and curves in docs/training.md;
# seconds); bench-skill-run reruns the three recipes into runs/time_to_skill/ first (hours)
bench-skill: $(STAMP)
	$(PY) experiments/benchmarks/time_to_skill.py

bench-skill-run: $(STAMP)
	$(PY) experiments/benchmarks/time_to_skill.py --run

playthroughs: $(STAMP)
	$(PY) experiments/tools/make_playthroughs.py

clean:
	rm -rf $(VENV) $(RLVENV) .pytest_cache .ruff_cache docs/_build docs/_generated
