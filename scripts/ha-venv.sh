#!/usr/bin/env bash
# Builds (once) the real Home Assistant Core venv the integration tests and `make demo` use.
# Cached outside the clone, keyed by version, so CI and later runs reuse it.
# Contract: the venv path on stdout, every message on stderr, exit 1 with a reason on failure.
set -euo pipefail
HA_VERSION="${HA_VERSION:-2025.4.4}"
FRONTEND_VERSION="${HA_FRONTEND_VERSION:-20250411.0}"
WYOMING_FOR_HA="${HA_WYOMING_VERSION:-1.5.4}"
CACHE="${HOME_AGENT_CACHE:-$HOME/.cache/home-agent}"
VENV="$CACHE/ha-$HA_VERSION"
MARKER="$VENV/.complete-$HA_VERSION-$FRONTEND_VERSION-$WYOMING_FOR_HA"

if [ -f "$MARKER" ]; then
  echo "$VENV"
  exit 0
fi

PYENV_ROOT="${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}"
PY313="${HA_PYTHON:-$PYENV_ROOT/versions/3.13.0/bin/python3}"
if [ ! -x "$PY313" ]; then
  echo "ha-venv: Python 3.13 not found at $PY313; Home Assistant $HA_VERSION needs it (set HA_PYTHON)." >&2
  exit 1
fi

# Two test sessions (or a test run and `make demo`) may start at once: the second waits for the
# first build instead of deleting the venv under it. A venv cannot be moved after it is built
# (its scripts hold absolute paths), so the lock, not a rename, is what makes the build safe.
mkdir -p "$CACHE"
exec 9>"$CACHE/ha-$HA_VERSION.lock"
if ! flock --nonblock 9; then
  echo "ha-venv: another build of Home Assistant $HA_VERSION is running; waiting for it" >&2
  flock 9
fi
if [ -f "$MARKER" ]; then
  echo "$VENV"
  exit 0
fi

echo "ha-venv: building Home Assistant $HA_VERSION in $VENV (about 2.5 minutes, once)" >&2
rm -rf "$VENV"
"$PY313" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade pip >&2
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  "homeassistant==$HA_VERSION" "home-assistant-frontend==$FRONTEND_VERSION" \
  "wyoming==$WYOMING_FOR_HA" >&2
touch "$MARKER"
echo "$VENV"
