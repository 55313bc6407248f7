"""Reads what the home's scripts, automations and scenes do, once per snapshot.

The confirmation policy judges a call by its effect on each entity, and a script, an automation
or a scene reaches entities under its own name (:mod:`addon.home.actions.impact`). Their
configurations are read here, with the rest of a snapshot, so no call waits for Home
Assistant: ``script/config`` and ``automation/config`` over the WebSocket (any script or
automation, YAML or UI), and ``GET /api/config/scene/config/<id>`` for a scene with an ``id``
(one the UI edits, when the ``config`` integration is loaded). A scene without is judged by the
entities its state lists; a script or automation Home Assistant refuses is left out, and held
as unknowable. Editing a script fires ``service_registered``, reloading automations or scenes
``automation_reloaded``/``scene_reloaded``: :class:`~addon.ha.home_sync.HomeSync` takes a new
snapshot on each.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from urllib.parse import quote

from addon.errors import HomeAgentError, HomeAssistantCommandError
from addon.ha.client import HomeAssistantClient
from addon.home.model.routines import Routines
from addon.text import JsonValue

_LOGGER = logging.getLogger(__name__)

CONFIG_COMMANDS = {"script": "script/config", "automation": "automation/config"}
RELOAD_EVENTS = ("automation_reloaded", "scene_reloaded")
"""Events after which what automations and scenes do may have changed."""


async def read_routines(
    client: HomeAssistantClient, states: Mapping[str, Mapping[str, JsonValue]]
) -> Routines:
    """The configurations of every script, automation and scene in ``states`` (compressed)."""
    by_domain: dict[str, list[str]] = {"script": [], "automation": [], "scene": []}
    for entity_id in states:
        domain = entity_id.partition(".")[0]
        if domain in by_domain:
            by_domain[domain].append(entity_id)
    scripts, automations, scenes = await asyncio.gather(
        _configs(client, "script", by_domain["script"]),
        _configs(client, "automation", by_domain["automation"]),
        _scenes(client, {entity_id: states[entity_id] for entity_id in by_domain["scene"]}),
    )
    return Routines.of(scripts, automations, scenes)


async def _configs(
    client: HomeAssistantClient, domain: str, entity_ids: list[str]
) -> dict[str, Mapping[str, JsonValue]]:
    command = CONFIG_COMMANDS[domain]

    async def one(entity_id: str) -> Mapping[str, JsonValue] | None:
        try:
            answer = await client.command({"type": command, "entity_id": entity_id})
        except HomeAssistantCommandError as err:
            _LOGGER.warning("Could not read what %s does (%s): it will ask first", entity_id, err)
            return None
        config = answer.get("config") if isinstance(answer, Mapping) else None
        return config if isinstance(config, Mapping) else None

    found = await asyncio.gather(*(one(entity_id) for entity_id in entity_ids))
    return {
        entity_id: config
        for entity_id, config in zip(entity_ids, found, strict=True)
        if config is not None
    }


async def _scenes(
    client: HomeAssistantClient, states: Mapping[str, Mapping[str, JsonValue]]
) -> dict[str, Mapping[str, JsonValue]]:
    async def one(scene_id: str) -> Mapping[str, JsonValue] | None:
        try:
            answer = await client.rest_get(f"/config/scene/config/{quote(scene_id, safe='')}")
        except HomeAgentError as err:  # REST may be unreachable: the entity list still judges
            _LOGGER.debug(
                "No configuration for scene %s (%s): judged by its entities", scene_id, err
            )
            return None
        entities = answer.get("entities") if isinstance(answer, Mapping) else None
        return entities if isinstance(entities, Mapping) else None

    with_ids: dict[str, str] = {}
    for entity_id, state in states.items():
        attributes = state.get("a")
        scene_id = attributes.get("id") if isinstance(attributes, Mapping) else None
        if scene_id:
            with_ids[entity_id] = str(scene_id)
    found = await asyncio.gather(*(one(scene_id) for scene_id in with_ids.values()))
    return {
        entity_id: entities
        for entity_id, entities in zip(with_ids, found, strict=True)
        if entities is not None
    }
