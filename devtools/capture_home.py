"""Capture a running Home Assistant's registries and states as ``HomeModel.build`` arguments.

``tests/data/demo_home.json`` was made this way from the real Home Assistant 2025.4.4 demo, so
tests that need a realistic home without booting one (the agent, benchmarks) use exactly what a
real instance returns. Run: ``.venv/bin/python -m devtools.capture_home OUT.json`` (boots a fresh
demo Home Assistant from the rig) or with ``--url`` and ``--token`` for a running one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import aiohttp

from devtools.home_assistant import HomeAssistantProcess

KNOWN_ASSISTANTS = ("cloud.alexa", "cloud.google_assistant", "conversation")


async def capture(websocket_url: str, token: str) -> dict[str, Any]:
    """Every WebSocket result the home sync builds its model from, in one dict."""
    async with aiohttp.ClientSession() as session, session.ws_connect(websocket_url) as ws:
        await ws.receive_json()
        await ws.send_json({"type": "auth", "access_token": token})
        if (await ws.receive_json()).get("type") != "auth_ok":
            raise SystemExit("token refused")
        ids = iter(range(1, 1000))

        async def command(message: dict[str, Any]) -> Any:
            ident = next(ids)
            await ws.send_json({"id": ident, **message})
            while True:
                reply = await ws.receive_json()
                if reply.get("id") == ident and reply.get("type") == "result":
                    return reply["result"]
                if reply.get("id") == ident and reply.get("type") == "event":
                    return reply["event"]

        result: dict[str, Any] = {
            "config": await command({"type": "get_config"}),
            "areas": await command({"type": "config/area_registry/list"}),
            "floors": await command({"type": "config/floor_registry/list"}),
            "devices": await command({"type": "config/device_registry/list"}),
            "entities": await command({"type": "config/entity_registry/list"}),
            "exposure": (await command({"type": "homeassistant/expose_entity/list"}))[
                "exposed_entities"
            ],
            "scripts": (await command({"type": "get_services"})).get("script", {}),
        }
        result["entity_details"] = await command(
            {
                "type": "config/entity_registry/get_entries",
                "entity_ids": [entry["entity_id"] for entry in result["entities"]],
            }
        )
        result["expose_new"] = {
            name: bool(
                (
                    await command(
                        {"type": "homeassistant/expose_new_entities/get", "assistant": name}
                    )
                ).get("expose_new")
            )
            for name in KNOWN_ASSISTANTS
        }
        # subscribe_entities answers with a result, then the snapshot event.
        ident = next(ids)
        await ws.send_json({"id": ident, "type": "subscribe_entities"})
        while True:
            message = await ws.receive_json()
            if message.get("type") == "event" and message.get("id") == ident:
                result["states"] = message["event"]["a"]
                break
    return result


def main() -> None:
    """Capture to the file named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--url")
    parser.add_argument("--token")
    args = parser.parse_args()
    if args.url and args.token:
        websocket_url = args.url.replace("http", "ws", 1).rstrip("/") + "/api/websocket"
        data = asyncio.run(capture(websocket_url, args.token))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            home = HomeAssistantProcess(Path(tmp) / "ha", shopping_list=True)
            with home:
                data = asyncio.run(capture(home.websocket_url, home.token))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
