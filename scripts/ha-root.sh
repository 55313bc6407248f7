#!/usr/bin/env bash
# Builds (once) a real Home Assistant Core that needs a newer Python than pyenv has here
# (2026.11.0 needs Python >= 3.14.2): a minimal Debian sid root with its python3.14, Home
# Assistant in a venv at /ha inside it, and the requirements of the components the tests load.
# Cached outside the clone, keyed by version, like scripts/ha-venv.sh's venv.
# Contract: the root's path on stdout, every message on stderr, exit 1 with a reason on failure.
# devtools/home_assistant.py runs it as `unshare -m ... chroot ROOT /ha/bin/hass` (run-in-root.sh).
set -euo pipefail
HA_VERSION="${HA_VERSION:-2026.11.0}"
FRONTEND_VERSION="${HA_FRONTEND_VERSION:-20261028.4}"
CACHE="${HOME_AGENT_CACHE:-$HOME/.cache/home-agent}"
ROOT="$CACHE/ha-root-$HA_VERSION"
# Bump RECIPE when what goes into the root changes, so a cached root is rebuilt.
RECIPE=2
MARKER="$ROOT/.complete-$HA_VERSION-$FRONTEND_VERSION-$RECIPE"
# Debian's own mirror, as this machine's apt sources name it.
MIRROR="${HA_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
# The integrations the tests, the demo and the side-by-side harness load; their manifests'
# requirements (and their dependencies', recursively) are installed, since hass runs --skip-pip.
# The demo's platforms and what onboarding and the frontend set up are listed too: their
# requirements are not in the demo's manifest.
COMPONENTS="${HA_COMPONENTS:-ai_task analytics api assist_pipeline automation camera config conversation demo frontend hassio history http image_processing infrared intent mcp_server radio_frequency recorder scene script shopping_list stream todo tts websocket_api wyoming}"

if [ -f "$MARKER" ]; then
  echo "$ROOT"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ha-root: building and running Home Assistant $HA_VERSION needs root (debootstrap, chroot); run as root" >&2
  exit 1
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/ha-root-$HA_VERSION.lock"
if ! flock --nonblock 9; then
  echo "ha-root: another build of Home Assistant $HA_VERSION is running; waiting for it" >&2
  flock 9
fi
if [ -f "$MARKER" ]; then
  echo "$ROOT"
  exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1; then
  echo "ha-root: installing debootstrap" >&2
  apt-get install -y -qq debootstrap >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
fi

echo "ha-root: building Home Assistant $HA_VERSION in $ROOT (Debian sid, Python 3.14; about 2 minutes, once)" >&2
# The Debian root is kept when only the Python packages failed (a registry hiccup): a second run
# starts from the venv.
if [ ! -f "$ROOT/.debootstrap-complete" ]; then
  rm -rf "$ROOT"
  debootstrap --variant=minbase \
    --include=python3.14,python3.14-venv,python3.14-dev,g++,ca-certificates \
    sid "$ROOT" "$MIRROR" >"$CACHE/ha-root-$HA_VERSION.debootstrap.log" 2>&1 \
    || { echo "ha-root: debootstrap failed; see $CACHE/ha-root-$HA_VERSION.debootstrap.log" >&2; exit 1; }
  touch "$ROOT/.debootstrap-complete"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The host's CA bundle in place of the root's: it holds whatever authority this machine's network
# needs to reach the registry (the environment's SSL_CERT_FILE and PIP_CERT name this path).
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"

# pip inside the root: no host configuration (its constraints and wheel folders are for the host's
# Python).
in_root() {
  env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 chroot "$ROOT" "$@"
}
# An existing venv is kept (a rebuild after a failure, or for more components): pip only adds.
[ -x "$ROOT/ha/bin/python" ] || in_root python3.14 -m venv /ha
in_root /ha/bin/pip install --quiet "homeassistant==$HA_VERSION" >&2
# The components' requirements, read from their manifests in the installed package.
in_root /ha/bin/python - "$COMPONENTS" >"$ROOT/ha-requirements.txt" <<'PY'
import json
import sys
from pathlib import Path

import homeassistant.components as components

base = Path(components.__path__[0])
todo, seen, requirements = sys.argv[1].split(), set(), set()
while todo:
    name = todo.pop()
    if name in seen or not (base / name / "manifest.json").exists():
        continue
    seen.add(name)
    manifest = json.loads((base / name / "manifest.json").read_text())
    requirements.update(manifest.get("requirements", []))
    todo.extend(manifest.get("dependencies", []) + manifest.get("after_dependencies", []))
print("\n".join(sorted(requirements)))
PY
echo "home-assistant-frontend==$FRONTEND_VERSION" >>"$ROOT/ha-requirements.txt"
in_root /ha/bin/pip install --quiet -r /ha-requirements.txt >&2
touch "$MARKER"
echo "$ROOT"
