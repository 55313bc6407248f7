"""One snapshot of the home: registries, exposure, scripts, states and routines, fetched at once.

What :class:`~addon.ha.home_sync.HomeSync` builds a new model from, on every (re)connect and
after registry changes it cannot patch in.
"""

from __future__ import annotations

import asyncio

from addon.errors import HomeAssistantCommandError
from addon.ha.answers import answer_object, answer_objects
from addon.ha.client import HomeAssistantClient
from addon.ha.entity_feed import EntityFeed
from addon.ha.routines import read_routines
from addon.ha.script_fields import ScriptFieldsReader, read_services
from addon.home.model.exposure import KNOWN_ASSISTANTS
from addon.home.model.live import HomeModel
from addon.text import JsonObject, JsonValue


async def build_model(
    client: HomeAssistantClient,
    feed: EntityFeed,
    snapshot_timeout: float,
    script_fields: ScriptFieldsReader,
) -> HomeModel:
    """Fetch everything concurrently with the snapshot and build a model.

    The scripts' fields only refine the script tools, so Home Assistant refusing them
    (``get_services``) must not keep the home from loading the way a missing registry does:
    ``script_fields`` reads them another way and says what it could not read.
    """
    command = client.command
    (
        (config, areas, floors, devices, entities, exposure),
        services,
        expose_new,
    ) = await asyncio.gather(
        asyncio.gather(
            command({"type": "get_config"}),
            command({"type": "config/area_registry/list"}),
            command({"type": "config/floor_registry/list"}),
            command({"type": "config/device_registry/list"}),
            command({"type": "config/entity_registry/list"}),
            command({"type": "homeassistant/expose_entity/list"}),
        ),
        read_services(client),
        asyncio.gather(
            *(
                command({"type": "homeassistant/expose_new_entities/get", "assistant": name})
                for name in KNOWN_ASSISTANTS
            )
        ),
    )
    entity_list = answer_objects(entities, "config/entity_registry/list")
    details = answer_object(
        await command(
            {
                "type": "config/entity_registry/get_entries",
                "entity_ids": [entry["entity_id"] for entry in entity_list],
            }
        ),
        "config/entity_registry/get_entries",
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
    states = _objects(snapshot.get("a"))
    scripts, routines = await asyncio.gather(
        script_fields.scripts(client, services, entity_list, states),
        read_routines(client, states),
    )
    return HomeModel.build(
        config=answer_object(config, "get_config"),
        areas=answer_objects(areas, "config/area_registry/list"),
        floors=answer_objects(floors, "config/floor_registry/list"),
        devices=answer_objects(devices, "config/device_registry/list"),
        entities=entity_list,
        entity_details={
            entity_id: entry if isinstance(entry, dict) else None
            for entity_id, entry in details.items()
        },
        exposure=exposed_entities(exposure),
        states=states,
        expose_new={
            name: bool(answer_object(answer, "expose_new_entities/get").get("expose_new"))
            for name, answer in zip(KNOWN_ASSISTANTS, expose_new, strict=True)
        },
        scripts=_objects(scripts),
        routines=routines,
        services=service_names(services),
    )


def exposed_entities(listed: JsonValue) -> dict[str, JsonObject]:
    """``expose_entity/list``'s ``exposed_entities``: each entity's setting per assistant."""
    return _objects(answer_object(listed, "expose_entity/list").get("exposed_entities"))


def service_names(services: JsonObject | HomeAssistantCommandError) -> dict[str, list[str]] | None:
    """Each domain's service names from ``get_services``' answer (None when it was refused)."""
    if isinstance(services, HomeAssistantCommandError):
        return None
    return {
        str(domain): [str(name) for name in described]
        for domain, described in services.items()
        if isinstance(described, dict)
    }


def _objects(raw: JsonValue) -> dict[str, JsonObject]:
    """An object of objects as Home Assistant sends one (states by entity id); others dropped."""
    if not isinstance(raw, dict):
        return {}
    return {key: value for key, value in raw.items() if isinstance(value, dict)}
