# Two commands set up a fresh machine: `make demo` and `make test`.
# Both create .venv and install everything (torch pinned in constraints.txt).
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PIP    := $(PY) -m pip install -q -c constraints.txt
# The web page's browser tests drive Debian's chromium: Playwright's own browser download is
# not reachable, so apt installs it (the package lists are refreshed only when needed).
CHROMIUM := /usr/bin/chromium

.PHONY: install demo test test-slow lint docs bench playthroughs clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) -e '.[dev]'
	touch $(STAMP)

$(CHROMIUM):
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
	  || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

install: $(STAMP) $(CHROMIUM)

demo: $(STAMP)
	$(VENV)/bin/morty demo

# pytest also runs the strict docs build (tests/test_docs.py) and every Python code block
# of README.md and docs/ (--markdown-docs in pyproject.toml)
test: $(STAMP) $(CHROMIUM)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -n 2 --dist loadfile -q

test-slow: $(STAMP)
	$(VENV)/bin/pytest -m slow -q

lint: $(STAMP)
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

# the documentation site; warnings are errors (tests/test_docs.py builds it the same way)
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

bench: $(STAMP)
	$(PY) experiments/bench_engine.py

playthroughs: $(STAMP)
	$(PY) experiments/make_playthroughs.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache docs/_build docs/_generated
