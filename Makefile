# Home Agent: the two commands a fresh machine needs are `make demo` and `make test`.
PYTHON ?= python3
PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
PYTHON313 ?= $(PYENV_ROOT)/versions/3.13.0/bin/python3
VENV := .venv
VENV313 := .venv313
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: demo test test-quick test-py313 lint format venv venv313 ha-venv system-deps clean

$(VENV)/.installed: requirements.txt requirements-dev.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

venv: $(VENV)/.installed

$(VENV313)/.installed: requirements.txt requirements-dev.txt pyproject.toml
	$(PYTHON313) -m venv $(VENV313)
	$(VENV313)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(VENV313)/bin/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

venv313: $(VENV313)/.installed

# The real Home Assistant Core the integration tests and the demo run, cached outside the clone.
ha-venv:
	bash scripts/ha-venv.sh >/dev/null

# Debian packages the tests drive (Chromium for the UI, shellcheck for the s6 scripts).
system-deps:
	bash scripts/system-deps.sh

lint: venv
	$(VENV)/bin/ruff check addon tests devtools bench
	$(VENV)/bin/ruff format --check addon tests devtools bench
	$(VENV)/bin/mypy

format: venv
	$(VENV)/bin/ruff check --fix addon tests devtools bench
	$(VENV)/bin/ruff format addon tests devtools bench

## make demo: real Home Assistant with demo entities plus the add-on, web UI on http://127.0.0.1:8099
demo: venv ha-venv
	$(PY) -m devtools.demo

## make test: set up, then ruff, mypy and the whole suite (real Home Assistant and Chromium included)
test: venv ha-venv system-deps lint
	bash scripts/run-pytest.sh $(PY) $(PYTEST_ARGS)
	$(MAKE) test-py313

## The suite again on pyenv's Python 3.13 (the image's Python); real-HA tests already ran above.
test-py313: venv313
	bash scripts/run-pytest.sh $(VENV313)/bin/python -m "not homeassistant and not browser" $(PYTEST_ARGS)

## A quick local run without the real Home Assistant or the browser.
test-quick: venv
	bash scripts/run-pytest.sh $(PY) -m "not homeassistant and not browser" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(VENV313) .mypy_cache .ruff_cache .pytest_cache
