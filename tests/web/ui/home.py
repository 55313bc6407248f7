"""The captured real demo home, served over the Home Assistant WebSocket protocol.

The app's own client and home sync connect to :class:`FakeHomeAssistant` and build their model
from what Home Assistant 2025.4.4's demo really answered (``tests/data/demo_home.json``), so the
pages that show entities read them the way they will in production. One entity is renamed to
hostile markup, since names in Home Assistant are typed by whoever set the home up.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant

DEMO_HOME = Path(__file__).resolve().parents[2] / "data" / "demo_home.json"
XSS_SCRIPT = "<script>alert(1)</script>"
XSS_IMG = "<img src=x onerror=alert(1)>"
XSS = XSS_SCRIPT + XSS_IMG
HOSTILE_ENTITY = "light.bed_light"


def demo_home() -> dict[str, Any]:
    """The captured demo, with one exposed light named and aliased with markup."""
    data: dict[str, Any] = json.loads(DEMO_HOME.read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    data["states"][HOSTILE_ENTITY]["a"]["friendly_name"] = f"Bed {XSS}"
    data["entity_details"][HOSTILE_ENTITY]["aliases"] = [XSS_IMG]
    return data


def serve_home(fake: FakeHomeAssistant, data: dict[str, Any]) -> None:
    """Answer the home sync's commands on ``fake`` from ``data`` (``HomeModel.build`` shapes)."""
    answers: dict[str, Any] = {
        "get_config": data["config"],
        "config/area_registry/list": data["areas"],
        "config/floor_registry/list": data["floors"],
        "config/device_registry/list": data["devices"],
        "config/entity_registry/list": data["entities"],
        "config/entity_registry/get_entries": data["entity_details"],
        "homeassistant/expose_entity/list": {"exposed_entities": data["exposure"]},
    }

    def answer(result: Any) -> Any:
        async def handle(connection: FakeConnection, message: dict[str, Any]) -> None:
            await connection.result(message["id"], result)

        return handle

    for command, result in answers.items():
        fake.handlers[command] = answer(result)

    async def expose_new(connection: FakeConnection, message: dict[str, Any]) -> None:
        enabled = data["expose_new"].get(message.get("assistant"), False)
        await connection.result(message["id"], {"expose_new": enabled})

    async def subscribe_entities(connection: FakeConnection, message: dict[str, Any]) -> None:
        connection.subscriptions[message["id"]] = message
        await connection.send(
            [
                {"id": message["id"], "type": "result", "success": True, "result": None},
                {"id": message["id"], "type": "event", "event": {"a": data["states"]}},
            ]
        )

    fake.handlers["homeassistant/expose_new_entities/get"] = expose_new
    fake.handlers["subscribe_entities"] = subscribe_entities
