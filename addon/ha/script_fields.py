"""The scripts' descriptions and fields for a snapshot, read even when ``get_services`` fails.

``get_services`` describes every service of every integration in one answer, so one
integration's broken ``services.yaml`` can make Home Assistant refuse all of it with
``unknown_error`` (seen on 2025.4.4 and 2026.11.0: a field ``filter`` naming a member that is not
an enum, such as ``light.DOMAIN.x``, raises a ``TypeError`` its loader does not catch; a
``!!binary`` value loads but cannot be sent as JSON). Each script's own config
(``script/config``) still holds what the script registers as its service description: its
``alias``, ``description`` and ``fields``. So when ``get_services`` fails, the scripts' fields
come from there, one command per script, and the rest of the home never depends on either.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping

from addon.errors import HomeAssistantCommandError
from addon.ha.client import HomeAssistantClient
from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)

SCRIPT_DOMAIN = "script"
_UNAVAILABLE = "unavailable"
"""The state of a script whose config Home Assistant rejected: it registers no service."""


async def read_services(client: HomeAssistantClient) -> JsonObject | HomeAssistantCommandError:
    """``get_services``' answer, or Home Assistant's refusal of it (a dropped link raises)."""
    try:
        services = await client.command({"type": "get_services"})
    except HomeAssistantCommandError as err:
        return err
    return services if isinstance(services, dict) else {}


class ScriptFieldsReader:
    """Reads the scripts' service descriptions at each snapshot; says once what it could not.

    Snapshots come at every reconnect and registry change, so a problem that lasts (a broken
    custom integration stays broken until someone updates it) is logged when it appears or
    changes, not at every snapshot, and once more when it is gone.
    """

    def __init__(self) -> None:
        self._reported: str | None = None

    async def scripts(
        self,
        client: HomeAssistantClient,
        services: JsonObject | HomeAssistantCommandError,
        entities: Iterable[Mapping[str, JsonValue]],
        states: Mapping[str, Mapping[str, JsonValue]],
    ) -> JsonObject:
        """``get_services``' ``script`` domain, or the same built from each script's config.

        ``entities`` is the entity registry list and ``states`` the snapshot's ``a`` map: the
        scripts asked about are the registry's script entities that Home Assistant runs.
        """
        if not isinstance(services, HomeAssistantCommandError):
            self._report(None)
            listed = services.get(SCRIPT_DOMAIN)
            return listed if isinstance(listed, dict) else {}
        wanted = [
            entry
            for entry in entities
            if entry.get("platform") == SCRIPT_DOMAIN
            and isinstance(entry.get("unique_id"), str)
            and str(entry.get("entity_id")) in states
            and states[str(entry.get("entity_id"))].get("s") != _UNAVAILABLE
        ]
        answers = await asyncio.gather(*(_script_config(client, entry) for entry in wanted))
        scripts: JsonObject = {}
        unread: list[str] = []
        for entry, answer in zip(wanted, answers, strict=True):
            if answer is None:
                unread.append(str(entry["entity_id"]))
            else:
                scripts[str(entry["unique_id"])] = answer
        problem = (
            f"Home Assistant refused get_services ({services}), as it does when one"
            " integration's services.yaml is broken (its log names the integration);"
            f" {len(scripts)} script(s) took their fields from their own config instead"
        )
        if unread:
            problem += f"; no fields for {', '.join(sorted(unread))}"
        self._report(problem)
        return scripts

    def _report(self, problem: str | None) -> None:
        """Log ``problem`` if it is news; log the recovery when a reported problem is gone."""
        if problem == self._reported:
            if problem is not None:
                _LOGGER.debug("Still: %s", problem)
            return
        if problem is None:
            _LOGGER.info("Home Assistant describes its services again (get_services answers)")
        else:
            _LOGGER.warning("%s", problem)
        self._reported = problem


async def _script_config(
    client: HomeAssistantClient, entry: Mapping[str, JsonValue]
) -> JsonObject | None:
    """One script's service description from its config, as ``get_services`` would give it.

    The script registers ``name`` (the registry's name, else its alias, else its key),
    ``description`` and ``fields``; None when Home Assistant would not say.
    """
    try:
        answer = await client.command(
            {"type": "script/config", "entity_id": str(entry["entity_id"])}
        )
    except HomeAssistantCommandError as err:
        _LOGGER.debug("script/config for %s: %s", entry["entity_id"], err)
        return None
    config = answer.get("config") if isinstance(answer, dict) else None
    if not isinstance(config, dict):
        return None
    fields = config.get("fields")
    return {
        "name": entry.get("name") or config.get("alias") or entry["unique_id"],
        "description": config.get("description") or "",
        "fields": fields if isinstance(fields, dict) else {},
    }
