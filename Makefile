# The two commands of the README:
#   make run    execute every notebook headless: build/notebooks/, build/figures/, a summary
#   make test   run the test suite
# Both create the virtual environment .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
ARGS   ?=

.PHONY: run test venv clean

run: $(VENV)/.installed
	$(PY) -m gpualgo.run_notebooks --out build $(ARGS)

test: $(VENV)/.installed
	$(PY) -m pytest -q $(ARGS)

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[notebooks,test,peers]'
	touch $@

clean:
	rm -rf build
