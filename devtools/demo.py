"""``make demo``: the real demo Home Assistant plus the add-on on loopback, until Ctrl-C.

Home Assistant lives in ``.demo/homeassistant`` and is onboarded on the first run only, so the
login printed below keeps working and the add-on's data in ``./data`` keeps pointing at the same
home. The add-on inherits the environment, so ``HOME_AGENT_LLM_BASE_URL``,
``HOME_AGENT_LLM_API_KEY`` and ``HOME_AGENT_LLM_MODEL`` (any ``HOME_AGENT_*``) reach it unchanged.
``--check`` starts both, prints ``/health`` and stops again: proof that ``make demo`` works.

As under Supervisor, the panel is reached through an ingress proxy (``devtools/ingress_proxy.py``
on its own port), the only peer the add-on trusts: it connects from 127.0.0.2 and, since any
local process could connect from there too, sends a secret made afresh for each run that the
demo hands the add-on and the proxy in their environments (``HOME_AGENT_INGRESS_SECRET``); a
request from 127.0.0.2 without it is treated like any other. The add-on's own port behaves as in
production: ``/health`` is open,
everything else asks for ``api_token`` or ``admin_token`` (``HOME_AGENT_API_TOKEN``,
``HOME_AGENT_ADMIN_TOKEN``), so a wrong or missing bearer is refused.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType

from devtools.home_assistant import (
    NEWEST_VERSION,
    OLDEST_VERSION,
    REPO_ROOT,
    SUPPORTED_VERSIONS,
    HomeAssistantError,
    HomeAssistantProcess,
    recorded_version,
)
from devtools.ingress_proxy import PREFIX, SECRET_ENV

HEALTH_TIMEOUT_S = 60.0
PROXY_SOURCE = "127.0.0.2"
"""The address the demo's ingress proxy connects from: the one peer the add-on trusts."""
ADDON_STOP_TIMEOUT_S = 15.0


class DemoError(RuntimeError):
    """The add-on did not come up; the message says why."""


def build_parser() -> argparse.ArgumentParser:
    """Flags with the defaults ``make demo`` relies on."""
    parser = argparse.ArgumentParser(prog="python -m devtools.demo", description=__doc__)
    parser.add_argument("--check", action="store_true", help="start, print /health, stop, exit")
    parser.add_argument("--ha-dir", type=Path, default=REPO_ROOT / ".demo" / "homeassistant")
    parser.add_argument("--ha-port", type=int, default=8123)
    parser.add_argument(
        "--ha-version",
        choices=SUPPORTED_VERSIONS,
        default=os.environ.get("HOME_AGENT_HA_VERSION") or None,
        help="the Home Assistant release to run (default: the one --ha-dir was made with, else"
        f" {OLDEST_VERSION}; {NEWEST_VERSION} runs in a Debian root and needs root)",
    )
    parser.add_argument("--data-dir", type=Path, default=REPO_ROOT / "data")
    parser.add_argument("--http-port", type=int, default=8099)
    parser.add_argument("--wyoming-port", type=int, default=10800)
    parser.add_argument("--ingress-port", type=int, default=8098)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the demo; returns the exit code (0 after Ctrl-C, or after a healthy ``--check``)."""
    args = build_parser().parse_args(argv)
    # SIGTERM (CI, `kill`) takes the same orderly way out as Ctrl-C; SIGINT is set explicitly
    # because a shell that starts us in the background hands it down ignored.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    made_with = recorded_version(args.ha_dir)
    if args.ha_version and made_with and args.ha_version != made_with:
        sys.stderr.write(
            f"demo: {args.ha_dir} was made with Home Assistant {made_with}; delete it to run"
            f" {args.ha_version}\n"
        )
        return 1
    home = HomeAssistantProcess(args.ha_dir, port=args.ha_port, version=args.ha_version)
    try:
        _say(f"Starting Home Assistant {home.version} in {home.config_dir} ...")
        _say(f"(its log: {home.log_path})")
        home.start()
        login = home.credentials
        _say(f"Home Assistant: {home.url}  (log in as {login.username} / {login.password})")
        return _run_addon(home, args)
    except (HomeAssistantError, DemoError) as err:
        sys.stderr.write(f"demo: {err}\n")
        return 1
    except KeyboardInterrupt:
        _say("Stopping ...")
        return 0
    finally:
        home.stop()


def addon_command(home_url: str, args: argparse.Namespace) -> list[str]:
    """The add-on's command line: on loopback, trusting only the demo's ingress proxy."""
    return [
        sys.executable,
        "-m",
        "addon",
        "--ha-url",
        home_url,
        "--data-dir",
        str(args.data_dir),
        "--http-host",
        "127.0.0.1",
        "--http-port",
        str(args.http_port),
        "--wyoming-host",
        "127.0.0.1",
        "--wyoming-port",
        str(args.wyoming_port),
        "--trusted-proxy",
        PROXY_SOURCE,
    ]


def proxy_command(args: argparse.Namespace) -> list[str]:
    """The ingress proxy's command line: the browser's port, connecting from ``PROXY_SOURCE``."""
    return [
        sys.executable,
        "-m",
        "devtools.ingress_proxy",
        "--upstream",
        f"http://127.0.0.1:{args.http_port}",
        "--port",
        str(args.ingress_port),
        "--source",
        PROXY_SOURCE,
    ]


def proxy_environment(secret: str) -> dict[str, str]:
    """The proxy's environment, holding the secret it shows the add-on besides its address.

    The add-on's has it too. An environment, not a flag, so ``ps`` does not show it; made afresh
    for each run.
    """
    return {**os.environ, SECRET_ENV: secret}


def _run_addon(home: HomeAssistantProcess, args: argparse.Namespace) -> int:
    secret = secrets.token_urlsafe(32)
    # The token goes through HA_TOKEN, which the add-on reads too, so `ps` does not show it.
    addon_environment = {**proxy_environment(secret), "HA_TOKEN": home.token}
    # Own sessions: Ctrl-C reaches only this script, which stops them, then Home Assistant.
    addon = subprocess.Popen(
        addon_command(home.url, args), cwd=REPO_ROOT, env=addon_environment, start_new_session=True
    )
    proxy = subprocess.Popen(
        proxy_command(args), cwd=REPO_ROOT, env=proxy_environment(secret), start_new_session=True
    )
    try:
        base = f"http://127.0.0.1:{args.http_port}"
        status, body = _wait_for_health(addon, f"{base}/health")
        _say(f"Add-on /health ({status}): {body}")
        if args.check:
            return 0 if status == 200 else 1
        panel = f"http://127.0.0.1:{args.ingress_port}{PREFIX}/"
        _say(f"Panel (through the ingress proxy): {panel}")
        _say(f"Add-on port: {base}  (/health; the API needs api_token or admin_token)")
        _say(f"Wyoming: tcp://127.0.0.1:{args.wyoming_port}   Ctrl-C stops everything.")
        return addon.wait()
    finally:
        _stop(proxy)
        _stop(addon)


def _wait_for_health(addon: subprocess.Popen[bytes], url: str) -> tuple[int, str]:
    """Poll ``/health`` until it answers (200, or 503 with the failing resource in its JSON)."""
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while True:
        if addon.poll() is not None:
            raise DemoError(f"the add-on exited with code {addon.returncode}; its log is above")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.status, json.dumps(json.load(response))
        except urllib.error.HTTPError as err:
            with err:
                return err.code, err.read().decode("utf-8", errors="replace")
        except OSError:
            pass  # not listening yet
        if time.monotonic() > deadline:
            raise DemoError(f"{url} did not answer within {HEALTH_TIMEOUT_S:.0f} s")
        time.sleep(0.2)


def _stop(addon: subprocess.Popen[bytes]) -> None:
    if addon.poll() is None:
        addon.send_signal(signal.SIGTERM)
        try:
            addon.wait(ADDON_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            addon.kill()
            addon.wait()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
