# Home Agent: the two commands a fresh machine needs are `make demo` and `make test`.
# pyenv's Python 3.13, the add-on image's Python (and Home Assistant's venv's): the one Python
# everything runs and is tested on.
PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
PYTHON ?= $(PYENV_ROOT)/versions/3.13.0/bin/python3
VENV := .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=
# Three pytest-xdist workers on two cores, a test file each at a time (module fixtures stay in one
# process; much of a real-HA test is waiting for Home Assistant, so two workers left the cores half
# idle):
# the figures behind it are in docs/DECISIONS.md ("The test suite on two cores").
PYTEST_WORKERS ?= 3

WEBUI_VENDOR := webui/static/vendor/codemirror/codemirror.js

.PHONY: demo test test-quick lint format venv ha-venv system-deps clean

$(VENV)/.installed-py313: requirements.txt requirements-dev.txt requirements-intents.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 13), sys.version' \
		|| { echo "make: need Python 3.13 at $(PYTHON) (pyenv install 3.13.0, or PYTHON=...)" >&2; exit 1; }
	@[ ! -x $(PY) ] || $(PY) -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null \
		|| { echo "make: $(VENV) is not Python 3.13; rebuilding it" >&2; rm -rf $(VENV); }
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e .
	# Home Assistant 2025.4's own sentences, unchanged from the registry, where the add-on reads
	# them (addon/local/language.py LEGACY_DIR), as the Dockerfile installs them.
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
		--upgrade --target $(VENV)/share/home-agent/home-assistant-intents-2025.3.28 \
		-r requirements-intents.txt
	touch $@

# Front-end packages the panel serves unchanged (CodeMirror), from the npm registry, pinned by
# version and integrity in webui/package-lock.json, as the Dockerfile installs them.
$(WEBUI_VENDOR): webui/package.json webui/package-lock.json scripts/webui-vendor.sh
	bash scripts/webui-vendor.sh
	@touch $@

venv: $(VENV)/.installed-py313 $(WEBUI_VENDOR)

# The real Home Assistant Cores the integration tests and the demo run, cached outside the clone:
# 2025.4.4 in a venv of pyenv's Python 3.13, 2026.11.0 in a Debian sid root with Python 3.14
# (needs root). Built side by side: the first build takes about 3 minutes.
ha-venv:
	@bash scripts/ha-venv.sh >/dev/null & venv=$$!; \
	bash scripts/ha-root.sh >/dev/null; root=$$?; \
	wait $$venv; venv=$$?; \
	[ $$venv -eq 0 ] && [ $$root -eq 0 ]

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

## make demo: real Home Assistant with demo entities plus the add-on; panel through the demo ingress proxy on 8098, add-on port 8099
demo: venv ha-venv
	$(PY) -m devtools.demo

## make test: set up, then ruff, mypy and the whole suite once (real Home Assistant and Chromium included)
# mypy runs beside the suite: from a clean clone it takes about 35 s of one core, and the suite
# leaves about a quarter of the two cores idle while it waits on Home Assistant and Chromium. Its
# report is printed after the suite's; either failing fails the run.
test: venv ha-venv system-deps
	$(VENV)/bin/ruff check addon tests devtools bench
	$(VENV)/bin/ruff format --check addon tests devtools bench
	@report=$$(mktemp); $(VENV)/bin/mypy > $$report 2>&1 & typing=$$!; \
	bash scripts/run-pytest.sh $(PY) -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS); tests=$$?; \
	wait $$typing; typed=$$?; echo "mypy:"; cat $$report; rm -f $$report; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

## A quick local run without the real Home Assistant or the browser.
test-quick: venv
	bash scripts/run-pytest.sh $(PY) -n $(PYTEST_WORKERS) --dist loadfile -m "not homeassistant and not browser" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
