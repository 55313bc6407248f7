"""Entry point: read settings, configure logging, build the app and run it until SIGTERM."""

from __future__ import annotations

import logging
import sys

from aiohttp import web

from addon.app import create_app
from addon.config.load import environment, load_settings
from addon.errors import ConfigError, StoreError
from addon.logs import configure_logging

_LOGGER = logging.getLogger("addon")
SHUTDOWN_TIMEOUT_S = 10.0


def main(argv: list[str] | None = None) -> int:
    """Run the service; returns the process exit code."""
    try:
        settings = load_settings(sys.argv[1:] if argv is None else argv, environment())
    except ConfigError as err:
        sys.stderr.write(f"home-agent: {err}\n")
        return 2
    secrets = [
        secret.get_secret_value()
        for secret in (
            settings.ha_token,
            settings.options.llm_api_key,
            settings.options.fallback_api_key,
            settings.options.expert_api_key,
            settings.options.api_token,
            settings.options.admin_token,
            settings.supervisor_token,
            settings.ingress_secret,
        )
        if secret is not None
    ]
    configure_logging(settings.options.log_level, secrets)
    _LOGGER.info(
        "Starting Home Agent (%s mode, data in %s, HTTP port %d, Wyoming port %d)",
        settings.mode,
        settings.data_dir,
        settings.http_port,
        settings.wyoming_port,
    )
    try:
        web.run_app(
            create_app(settings),
            host=settings.http_host,
            port=settings.http_port,
            shutdown_timeout=SHUTDOWN_TIMEOUT_S,
            print=None,
            access_log=None,
        )
    except StoreError as err:
        _LOGGER.error("Cannot start: %s", err)
        return 3
    except OSError as err:
        _LOGGER.error("Cannot start: %s", err)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
