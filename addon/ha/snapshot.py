"""One snapshot of the home: registries, exposure, scripts, states and routines, fetched at once.

What :class:`~addon.ha.home_sync.HomeSync` builds a new model from, on every (re)connect and
after registry changes it cannot patch in.
"""

from __future__ import annotations

import asyncio
import logging

from addon.errors import HomeAssistantCommandError
from addon.ha.client import HomeAssistantClient
from addon.ha.entity_feed import EntityFeed
from addon.ha.routines import read_routines
from addon.home.model.exposure import KNOWN_ASSISTANTS
from addon.home.model.live import HomeModel
from addon.text import JsonObject

_LOGGER = logging.getLogger(__name__)

SCRIPT_DOMAIN = "script"


async def build_model(
    client: HomeAssistantClient, feed: EntityFeed, snapshot_timeout: float
) -> HomeModel:
    """Fetch everything concurrently with the snapshot and build a model."""
    command = client.command
    (
        config,
        areas,
        floors,
        devices,
        entities,
        exposure,
        scripts,
        *expose_new,
    ) = await asyncio.gather(
        command({"type": "get_config"}),
        command({"type": "config/area_registry/list"}),
        command({"type": "config/floor_registry/list"}),
        command({"type": "config/device_registry/list"}),
        command({"type": "config/entity_registry/list"}),
        command({"type": "homeassistant/expose_entity/list"}),
        _script_services(client),
        *(
            command({"type": "homeassistant/expose_new_entities/get", "assistant": name})
            for name in KNOWN_ASSISTANTS
        ),
    )
    details = await command(
        {
            "type": "config/entity_registry/get_entries",
            "entity_ids": [entry["entity_id"] for entry in entities],
        }
    )
    try:
        async with asyncio.timeout(snapshot_timeout):
            snapshot = await feed.snapshot
    except TimeoutError:
        # The link answers commands but the snapshot never came: worth retrying, unlike a
        # dropped link (which reconnecting fixes), so not an "unavailable" error.
        raise HomeAssistantCommandError(
            "snapshot_timeout",
            f"no subscribe_entities snapshot within {snapshot_timeout:g} s",
        ) from None
    states = snapshot.get("a", {})
    routines = await read_routines(client, states)
    return HomeModel.build(
        config=config,
        areas=areas,
        floors=floors,
        devices=devices,
        entities=entities,
        entity_details=details,
        exposure=exposure.get("exposed_entities", {}),
        states=states,
        expose_new={
            name: bool(answer.get("expose_new"))
            for name, answer in zip(KNOWN_ASSISTANTS, expose_new, strict=True)
        },
        scripts=scripts,
        routines=routines,
    )


async def _script_services(client: HomeAssistantClient) -> JsonObject:
    """``get_services``' scripts; if Home Assistant refuses, scripts are offered without fields.

    Fields only refine the script tools, so a refusal here must not keep the whole home
    from loading the way a missing registry does.
    """
    try:
        services = await client.command({"type": "get_services"})
    except HomeAssistantCommandError as err:
        _LOGGER.warning("Could not read the scripts' fields from Home Assistant: %s", err)
        return {}
    scripts = services.get(SCRIPT_DOMAIN) if isinstance(services, dict) else None
    return scripts if isinstance(scripts, dict) else {}


def changed_states(old: HomeModel | None, new: HomeModel) -> list[str]:
    """Entity ids whose state differs between two models (all of them if there was none)."""
    if old is None:
        return new.entity_ids()
    ids = dict.fromkeys([*old.entity_ids(), *new.entity_ids()])
    return [entity_id for entity_id in ids if old.state(entity_id) != new.state(entity_id)]
