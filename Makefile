# The two commands of the README:
#   make run    execute every notebook headless: build/notebooks/, build/figures/, HTML copies
#               in build/html/ (open build/html/index.html), a summary
#   make test   run the test suite
# Both create the virtual environment .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
ARGS   ?=
# pip reports errors only; its progress, notices and warnings are not this project's news
PIP    := $(PY) -m pip install -qq --disable-pip-version-check

.PHONY: run test venv clean

run: $(VENV)/.installed
	@$(PY) -m gpualgo.run_notebooks --out build $(ARGS)

test: $(VENV)/.installed
	@$(PY) -m pytest -q $(ARGS)

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@echo "Setting up $(VENV) (first use only: a few minutes) ..."
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) --upgrade pip
	@$(PIP) -e '.[notebooks,test,peers,cluster]'
	@touch $@
	@echo "$(VENV) ready."

clean:
	rm -rf build
