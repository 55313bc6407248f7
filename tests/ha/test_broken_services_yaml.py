"""One custom integration's broken ``services.yaml`` against the real Home Assistant.

Home Assistant then refuses ``get_services`` to everyone with ``unknown_error``: a field
``filter`` naming a member that is not an enum (``light.DOMAIN.x``) raises a ``TypeError`` that
its services.yaml loader does not catch (it catches only schema errors and YAML errors, which it
logs), and a ``!!binary`` value loads but cannot be sent as JSON. Most malformed files (an
unknown selector type, a field that is not a mapping, YAML that does not parse) are caught and
logged, and ``get_services`` still answers. The home must still load whole, with its scripts'
fields.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.actions.live import LiveExecutor
from addon.home.model.live import HomeModel
from addon.tools.home_tools import build_registry
from devtools.home_assistant import HomeAssistantError, HomeAssistantProcess
from tests.fixtures.homeassistant import running
from tests.ha.waiting import until

pytestmark = pytest.mark.homeassistant

DIM_LIGHT: dict[str, Any] = {
    "alias": "Dim a light",
    "description": "Sets a light to a brightness",
    "fields": {
        "light": {"name": "Light", "required": True, "selector": {"entity": {"domain": "light"}}},
        "level": {
            "name": "Level",
            "description": "Brightness in percent",
            "required": True,
            "selector": {"number": {"min": 1, "max": 100}},
        },
    },
    "sequence": [
        {
            "action": "light.turn_on",
            "target": {"entity_id": "{{ light }}"},
            "data": {"brightness_pct": "{{ level }}"},
        }
    ],
}
# Registered service, so Home Assistant loads the integration's services.yaml to describe it.
INTEGRATION = '''"""Registers one service whose services.yaml is broken."""

from homeassistant.core import HomeAssistant, ServiceCall


async def async_setup(hass: HomeAssistant, config: dict) -> bool:
    async def handle(call: ServiceCall) -> None:
        return None

    hass.services.async_register(__name__.rpartition(".")[2], "do_it", handle)
    return True
'''
BROKEN_SERVICES_YAML = {
    # The filter validator's issubclass() gets a str: TypeError, not a schema error.
    "not_an_enum": "do_it:\n  fields:\n    mode:\n      filter:\n"
    "        supported_features:\n          - light.DOMAIN.x\n",
    # Valid for the schema, but bytes are not JSON.
    "binary_value": "do_it:\n  description: !!binary aGVsbG8=\n",
}


def _add_integration(config_dir: Path, domain: str, services_yaml: str) -> None:
    """A custom integration in ``config_dir`` with this services.yaml."""
    folder = config_dir / "custom_components" / domain
    folder.mkdir(parents=True)
    manifest = {"domain": domain, "name": domain, "version": "1.0.0", "codeowners": []}
    (folder / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    (folder / "__init__.py").write_text(INTEGRATION, "utf-8")
    (folder / "services.yaml").write_text(services_yaml, "utf-8")


@pytest.fixture(scope="module")
def home(
    home_assistant_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HomeAssistantProcess]:
    """A demo home with a script that has fields and two integrations with broken services.yaml."""
    config_dir = tmp_path_factory.mktemp("home-assistant") / "broken-services"
    process = HomeAssistantProcess.from_template(
        home_assistant_template,
        config_dir,
        scripts={"dim_light": DIM_LIGHT},
        extra_config={domain: {} for domain in BROKEN_SERVICES_YAML},
    )
    for domain, text in BROKEN_SERVICES_YAML.items():
        _add_integration(config_dir, domain, text)
    yield from running(process)


@pytest.fixture
async def client(
    session: aiohttp.ClientSession, home: HomeAssistantProcess
) -> AsyncIterator[HomeAssistantClient]:
    """A client on the home, with the script exposed to Assist (scripts are not by default)."""
    await home.expose_entities(["script.dim_light"])
    linked = HomeAssistantClient(session, home.websocket_url, f"{home.url}/api", home.token)
    await linked.start()
    await linked.wait_connected(15.0)
    yield linked
    await linked.stop()


@pytest.fixture
async def sync(
    client: HomeAssistantClient, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[HomeSync]:
    """The add-on's home model, synced from the broken home; its warnings are captured."""
    caplog.set_level(logging.INFO, logger="addon.ha")
    home_sync = HomeSync(client, debounce=0.1)
    await home_sync.start()
    await home_sync.wait_ready(15.0)
    yield home_sync
    await home_sync.stop()


def _model(sync: HomeSync) -> HomeModel:
    assert sync.model is not None
    return sync.model


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Our warnings so far, the sync fixture's first snapshot included."""
    return [
        record.getMessage()
        for record in [*caplog.get_records("setup"), *caplog.records]
        if record.levelno >= logging.WARNING and record.name.startswith("addon.")
    ]


async def test_home_assistant_refuses_get_services_to_everyone(home: HomeAssistantProcess) -> None:
    """What the rest stands on: Home Assistant answers get_services with unknown_error."""
    with pytest.raises(HomeAssistantError, match="unknown_error"):
        await home.websocket_command({"type": "get_services"})


async def test_script_fields_are_read_from_the_script_config(sync: HomeSync) -> None:
    """The script tool still has its description and fields, as get_services would give them."""
    service = _model(sync).script_service("script.dim_light")
    assert service is not None
    assert (service.name, service.description) == ("Dim a light", "Sets a light to a brightness")
    registry = build_registry(_model(sync), [])
    spec = {s["function"]["name"]: s["function"] for s in registry.specs()}["dim_light"]
    assert spec["parameters"]["required"] == ["light", "level"]
    assert spec["parameters"]["properties"]["level"] == {
        "type": "number",
        "minimum": 1.0,
        "maximum": 100.0,
        "description": "Brightness in percent",
    }


async def test_the_rest_of_the_snapshot_is_complete(
    sync: HomeSync, home: HomeAssistantProcess
) -> None:
    """Every entity, area and exposure setting arrives as if nothing were broken."""
    model = _model(sync)
    states = await home.states()
    assert sorted(model.entity_ids()) == sorted(state["entity_id"] for state in states)
    assert model.areas
    assert "script.dim_light" in [entity.entity_id for entity in model.exposed_entities()]


async def test_an_edited_script_brings_its_new_field_and_no_second_warning(
    sync: HomeSync,
    client: HomeAssistantClient,
    home: HomeAssistantProcess,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A later snapshot reads the edited fields too; the lasting refusal is logged only once."""
    transition = {"selector": {"number": {"min": 0, "max": 10}}}
    home.scripts = {
        "dim_light": {**DIM_LIGHT, "fields": {**DIM_LIGHT["fields"], "transition": transition}}
    }
    home.write_configuration()
    await client.call_service("script", "reload")

    def has_transition() -> bool:
        service = _model(sync).script_service("script.dim_light")
        return service is not None and "transition" in [f.key for f in service.fields]

    await until(has_transition)
    assert sync.refreshes >= 2
    warnings = _warnings(caplog)
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("Home Assistant refused get_services (unknown_error: ")
    assert "1 script(s) took their fields from their own config instead" in warnings[0]


async def test_an_action_still_checks_its_service_when_the_list_is_refused(
    client: HomeAssistantClient, caplog: pytest.LogCaptureFixture
) -> None:
    """With get_services refused, a turn-on is still known (Home Assistant's own), an odd one not.

    The live executor asks whether a domain offers ``turn_on`` before a generic on/off call; a
    refused list falls back to the actions Home Assistant's own integrations define, with one
    warning, instead of failing every such command.
    """
    live = LiveExecutor(client)
    with caplog.at_level(logging.WARNING, logger="addon.home"):
        assert await live.has_service("fan", "turn_on")
        assert not await live.has_service("fan", "unlock")
    refused = [r for r in caplog.records if "get_services" in r.getMessage()]
    assert len(refused) == 1
