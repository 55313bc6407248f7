"""Build :class:`Settings` from where the add-on runs.

Under Supervisor the options come from ``/data/options.json`` and Home Assistant is reached
through the Supervisor proxy with ``SUPERVISOR_TOKEN``. Standalone (``make demo``, development)
they come from an optional JSON file, ``HOME_AGENT_*`` environment variables and command-line
flags, in that order of precedence, plus a Home Assistant URL and long-lived token, and (the
demo) the secret its ingress proxy must send, in ``HOME_AGENT_INGRESS_SECRET``.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import SecretStr, ValidationError

from addon.config.settings import (
    INGRESS_PROXY_ADDRESS,
    INGRESS_SECRET_ENV,
    Options,
    Settings,
)
from addon.errors import ConfigError
from addon.text import JsonObject, JsonValue

SUPERVISOR_URL = "http://supervisor"
SUPERVISOR_WEBSOCKET_URL = "ws://supervisor/core/websocket"
SUPERVISOR_REST_URL = "http://supervisor/core/api"
ENV_PREFIX = "HOME_AGENT_"
DEFAULT_WEBUI_DIR = Path(__file__).resolve().parents[2] / "webui"


def build_parser() -> argparse.ArgumentParser:
    """Flags for where the service runs, plus one flag per add-on option."""
    parser = argparse.ArgumentParser(prog="python -m addon", description=__doc__)
    parser.add_argument("--options", type=Path, help="JSON file of add-on options")
    parser.add_argument("--data-dir", type=Path, help="where the database lives (default /data)")
    parser.add_argument("--ha-url", help="Home Assistant base URL, standalone only")
    parser.add_argument("--ha-token", help="Home Assistant long-lived access token (or HA_TOKEN)")
    parser.add_argument("--http-host", default="0.0.0.0")
    parser.add_argument("--http-port", type=int, default=8099)
    parser.add_argument("--wyoming-host", default="0.0.0.0")
    parser.add_argument("--wyoming-port", type=int, default=10800)
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        help=f"address whose requests count as ingress (default {INGRESS_PROXY_ADDRESS})",
    )
    parser.add_argument("--webui-dir", type=Path, default=DEFAULT_WEBUI_DIR)
    for name in Options.model_fields:
        parser.add_argument(f"--{name.replace('_', '-')}", dest=f"opt_{name}", default=None)
    return parser


def load_settings(argv: Sequence[str], environ: Mapping[str, str]) -> Settings:
    """Parse flags and environment into settings, or raise :class:`ConfigError`."""
    args = build_parser().parse_args(list(argv))
    supervisor_token = environ.get("SUPERVISOR_TOKEN", "")
    options_path: Path | None = args.options
    if options_path is None and supervisor_token:
        options_path = Path("/data/options.json")

    raw: JsonObject = read_options_file(options_path) if options_path else {}
    for name in Options.model_fields:
        env_value = environ.get(ENV_PREFIX + name.upper())
        if env_value is not None:
            raw[name] = env_value
        flag_value = getattr(args, f"opt_{name}")
        if flag_value is not None:
            raw[name] = flag_value
    options = validate_options(raw)

    ingress_secret: SecretStr | None = None
    if supervisor_token:
        mode = "supervisor"
        ws_url, rest_url = SUPERVISOR_WEBSOCKET_URL, SUPERVISOR_REST_URL
        token = supervisor_token
        data_dir = args.data_dir or Path("/data")
    else:
        # Only standalone: Supervisor's proxy, the one peer trusted there, sends no such secret.
        secret = environ.get(INGRESS_SECRET_ENV, "")
        if secret and len(secret) < 16:
            raise ConfigError(INGRESS_SECRET_ENV, "must be empty or at least 16 characters")
        if secret:
            ingress_secret = SecretStr(secret)
        mode = "standalone"
        base = args.ha_url or environ.get("HA_URL", "")
        token = args.ha_token or environ.get("HA_TOKEN", "")
        if not base:
            raise ConfigError("ha_url", "standalone runs need --ha-url or HA_URL")
        if not token:
            raise ConfigError("ha_token", "standalone runs need --ha-token or HA_TOKEN")
        ws_url, rest_url = home_assistant_urls(base)
        data_dir = args.data_dir or Path(environ.get(ENV_PREFIX + "DATA_DIR", "data"))

    try:
        return Settings(
            mode=mode,
            options=options,
            data_dir=data_dir.resolve(),
            http_host=args.http_host,
            http_port=args.http_port,
            wyoming_host=args.wyoming_host,
            wyoming_port=args.wyoming_port,
            ha_websocket_url=ws_url,
            ha_rest_url=rest_url,
            ha_token=SecretStr(token),
            supervisor_url=SUPERVISOR_URL if supervisor_token else None,
            supervisor_token=SecretStr(supervisor_token) if supervisor_token else None,
            trusted_proxies=tuple(args.trusted_proxy or (INGRESS_PROXY_ADDRESS,)),
            ingress_secret=ingress_secret,
            webui_dir=args.webui_dir,
        )
    except ValidationError as err:
        raise _config_error(err) from None


def read_options_file(path: Path) -> JsonObject:
    """Read the Supervisor's options JSON; a missing or broken file is a clear ConfigError."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError("options", f"cannot read {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ConfigError(
            "options", f"{path} is not valid JSON ({err.msg}, line {err.lineno})"
        ) from None
    if not isinstance(loaded, dict):
        raise ConfigError("options", f"{path} must hold a JSON object")
    return loaded


def validate_options(raw: Mapping[str, JsonValue]) -> Options:
    """Validate raw option values; the first problem becomes one ConfigError line."""
    try:
        return Options.model_validate(dict(raw))
    except ValidationError as err:
        raise _config_error(err) from None


def home_assistant_urls(base_url: str) -> tuple[str, str]:
    """Derive the WebSocket and REST URLs from a Home Assistant base URL."""
    base = base_url.strip().rstrip("/")
    if base.startswith("https://"):
        ws = "wss://" + base.removeprefix("https://")
    elif base.startswith("http://"):
        ws = "ws://" + base.removeprefix("http://")
    else:
        raise ConfigError("ha_url", f"must start with http:// or https://, got {base!r}")
    return f"{ws}/api/websocket", f"{base}/api"


def _config_error(err: ValidationError) -> ConfigError:
    first = err.errors(include_url=False, include_input=False)[0]
    option = ".".join(str(part) for part in first["loc"]) or "options"
    if first["type"] == "extra_forbidden":
        return ConfigError(option, "unknown option")
    return ConfigError(option, first["msg"].removeprefix("Value error, "))


def environment() -> dict[str, str]:
    """A copy of the process environment, so callers never read ``os.environ`` directly."""
    return dict(os.environ)
