"""Settings for running the whole add-on standalone on loopback, as tests, benches and tools do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import SecretStr

from addon.config.load import DEFAULT_WEBUI_DIR, home_assistant_urls
from addon.config.settings import Options, Settings

NOWHERE = "http://127.0.0.1:9"
"""A Home Assistant address where nothing answers (the discard port)."""


def standalone_settings(
    options: Options,
    data_dir: Path,
    *,
    ha_url: str = NOWHERE,
    ha_token: str = "unused",
    **fields: Any,
) -> Settings:
    """Standalone settings on loopback ports the system picks, with Home Assistant at ``ha_url``.

    ``fields`` sets the other settings (``trusted_proxies``: who counts as the ingress proxy).
    """
    ws_url, rest_url = home_assistant_urls(ha_url)
    return Settings(
        mode="standalone",
        options=options,
        data_dir=data_dir,
        http_host="127.0.0.1",
        http_port=0,
        wyoming_host="127.0.0.1",
        wyoming_port=0,
        ha_websocket_url=ws_url,
        ha_rest_url=rest_url,
        ha_token=SecretStr(ha_token),
        webui_dir=DEFAULT_WEBUI_DIR,
        **fields,
    )
