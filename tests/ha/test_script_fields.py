"""ScriptFieldsReader on the scripted server: fields from script/config when get_services fails.

The real Home Assistant case (a broken services.yaml) is tests/ha/test_broken_services_yaml.py;
these cover what it cannot produce on demand: a script whose config is refused, an unavailable
script, a refusal that ends.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from addon.errors import HomeAssistantCommandError
from addon.ha.client import HomeAssistantClient
from addon.ha.script_fields import ScriptFieldsReader
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant

REFUSED = HomeAssistantCommandError("unknown_error", "Unknown error")
WAKE_CONFIG = {
    "alias": "Wake up",
    "description": "Opens the day",
    "fields": {"minutes": {"required": True, "selector": {"number": {"min": 0, "max": 60}}}},
    "sequence": [],
}
# The registry list's entries (as_partial_dict): "renamed" has a name of its own in the
# registry, "broken" failed validation (no service), "gone" was removed while we asked.
ENTRIES = [
    {"entity_id": "script.wake_up", "platform": "script", "unique_id": "wake_up", "name": None},
    {"entity_id": "script.renamed", "platform": "script", "unique_id": "nap", "name": "Siesta"},
    {"entity_id": "script.broken", "platform": "script", "unique_id": "broken", "name": None},
    {"entity_id": "script.gone", "platform": "script", "unique_id": "gone", "name": None},
    {"entity_id": "light.kitchen", "platform": "demo", "unique_id": "k1", "name": None},
]
STATES = {
    "script.wake_up": {"s": "off"},
    "script.renamed": {"s": "off"},
    "script.broken": {"s": "unavailable"},
    "script.gone": {"s": "off"},
    "light.kitchen": {"s": "on"},
}


@pytest.fixture
def asked(fake_ha: FakeHomeAssistant) -> list[str]:
    """The entity ids script/config was asked about; script.gone's config is refused."""
    seen: list[str] = []

    async def script_config(connection: FakeConnection, message: dict[str, Any]) -> None:
        seen.append(message["entity_id"])
        if message["entity_id"] in ("script.wake_up", "script.renamed"):
            await connection.result(message["id"], {"config": WAKE_CONFIG})
        else:
            await connection.error(message["id"], "not_found", "Entity not found")

    fake_ha.handlers["script/config"] = script_config
    return seen


def _logged(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(record.levelno, record.getMessage()) for record in caplog.records]


async def test_fields_come_from_each_available_scripts_config(
    client: HomeAssistantClient, asked: list[str]
) -> None:
    """Each script Home Assistant runs is asked about; its answer has get_services' shape."""
    scripts = await ScriptFieldsReader().scripts(client, REFUSED, ENTRIES, STATES)
    assert sorted(asked) == ["script.gone", "script.renamed", "script.wake_up"]
    description = {"description": "Opens the day", "fields": WAKE_CONFIG["fields"]}
    assert scripts == {
        "wake_up": {"name": "Wake up", **description},
        "nap": {"name": "Siesta", **description},
    }


async def test_a_lasting_refusal_is_warned_once_and_its_end_noted(
    client: HomeAssistantClient, asked: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """One warning naming the scripts left without fields; the recovery is logged at info."""
    caplog.set_level(logging.INFO, logger="addon.ha.script_fields")
    reader = ScriptFieldsReader()
    await reader.scripts(client, REFUSED, ENTRIES, STATES)
    await reader.scripts(client, REFUSED, ENTRIES, STATES)
    listed = await reader.scripts(client, {"script": {"wake_up": {}}}, ENTRIES, STATES)
    assert listed == {"wake_up": {}}
    assert _logged(caplog) == [
        (
            logging.WARNING,
            "Home Assistant refused get_services (unknown_error: Unknown error), as it does when"
            " one integration's services.yaml is broken (its log names the integration);"
            " 2 script(s) took their fields from their own config instead;"
            " no fields for script.gone",
        ),
        (logging.INFO, "Home Assistant describes its services again (get_services answers)"),
    ]
