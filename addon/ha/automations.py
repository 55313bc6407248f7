"""Automations in Home Assistant, for drafts: validated, created, deleted, switched off.

Structural: it matches :class:`addon.agent.automations.AutomationPort` without importing it, so
``addon.ha`` stays below the agent. Validation is the WebSocket command ``validate_config``
(triggers, conditions and actions, each checked by Home Assistant's own schema and
validators; on 2025.4 and 2026.11 alike); creating and deleting go through the config API
(``/api/config/automation/config/<id>``), which writes ``automations.yaml`` and reloads, as
Home Assistant's own automation editor does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote

from addon.ha.client import HomeAssistantClient
from addon.text import JsonValue

_PARTS = ("triggers", "conditions", "actions")


class HomeAssistantAutomations:
    """What drafted automations ask of Home Assistant, through the add-on's one link."""

    def __init__(self, client: HomeAssistantClient) -> None:
        self._client = client

    async def validate(
        self,
        triggers: Sequence[JsonValue],
        conditions: Sequence[JsonValue],
        actions: Sequence[JsonValue],
    ) -> tuple[str, ...]:
        """Home Assistant's objection to each invalid part, as ``"<part>: <error>"``."""
        answer = await self._client.command(
            {
                "type": "validate_config",
                "triggers": list(triggers),
                "conditions": list(conditions),
                "actions": list(actions),
            }
        )
        problems: list[str] = []
        for part in _PARTS:
            verdict = answer.get(part) if isinstance(answer, Mapping) else None
            if isinstance(verdict, Mapping) and not verdict.get("valid", False):
                problems.append(f"{part}: {verdict.get('error') or 'invalid'}")
        return tuple(problems)

    async def create(self, automation_id: str, config: Mapping[str, JsonValue]) -> None:
        """Create (or replace) the automation; Home Assistant reloads its automations."""
        await self._client.rest_post(_path(automation_id), dict(config))

    async def delete(self, automation_id: str) -> None:
        """Delete the automation; Home Assistant removes its entity and reloads."""
        await self._client.rest_delete(_path(automation_id))

    async def turn_off(self, entity_id: str) -> None:
        """Switch the automation off (it stays, and can be switched on in Home Assistant)."""
        await self._client.call_service("automation", "turn_off", target={"entity_id": entity_id})


def _path(automation_id: str) -> str:
    return f"/config/automation/config/{quote(automation_id, safe='')}"
