"""Custom tools' way into Home Assistant: the runner's ``HomeAssistantPort`` over our client.

Structural: it matches :class:`addon.custom_tools.context.HomeAssistantPort` without importing
it, so ``addon.ha`` stays below the feature. Templates render over Home Assistant's
``render_template`` subscription (its first event is the result); history comes from the
recorder's WebSocket commands; exposure is read from the live home model.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping
from datetime import datetime

from addon.errors import HomeAssistantCommandError
from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.actions.gate import RenderedTemplate
from addon.text import JsonValue

STATISTIC_TYPES = ["mean", "min", "max", "state"]
_GRACE_S = 1.0
"""Seconds beyond the render timeout we wait for Home Assistant's answer to arrive."""


class HomeAssistantToolPort:
    """What custom tools ask of Home Assistant, through the add-on's one link."""

    def __init__(self, client: HomeAssistantClient, sync: HomeSync) -> None:
        self._client = client
        self._sync = sync

    async def call_service(
        self,
        domain: str,
        service: str,
        data: Mapping[str, JsonValue],
        target: Mapping[str, JsonValue] | None,
        return_response: bool,
    ) -> JsonValue:
        """Call the action; no command timeout of its own, the tool's timeout bounds it.

        A script is called by its own service, which follows a renamed entity's ``unique_id``
        as exposed scripts do (:meth:`addon.home.model.live.HomeModel.script_service_name`).
        """
        model = self._sync.model
        if domain == "script" and model is not None and model.entity(f"script.{service}"):
            service = model.script_service_name(f"script.{service}")
        return await self._client.call_service(
            domain,
            service,
            service_data=dict(data) if data else None,
            target=dict(target) if target else None,
            return_response=return_response,
            timeout=math.inf,
        )

    async def render_template(
        self,
        template: str,
        variables: Mapping[str, JsonValue],
        timeout: float,  # noqa: ASYNC109 - Home Assistant's own render timeout
    ) -> RenderedTemplate:
        """The first result of a ``render_template`` subscription, which then ends.

        Home Assistant sends the ``listeners`` (the entities and domains the render read, or
        ``all``) with the result; the gate checks them against exposure.
        """
        answer: asyncio.Future[JsonValue] = asyncio.get_running_loop().create_future()

        def on_event(event: JsonValue) -> None:
            if not answer.done():
                answer.set_result(event)

        subscription = await self._client.subscribe(
            {
                "type": "render_template",
                "template": template,
                "variables": dict(variables),
                "timeout": timeout,
                "strict": True,
                "report_errors": True,
            },
            on_event,
            resubscribe=False,
        )
        try:
            async with asyncio.timeout(timeout + _GRACE_S):
                event = await answer
        finally:
            await subscription.unsubscribe()
        if isinstance(event, Mapping) and "error" in event:
            raise HomeAssistantCommandError("template_error", str(event["error"]))
        result = event.get("result") if isinstance(event, Mapping) else event
        listeners = event.get("listeners") if isinstance(event, Mapping) else None
        text = result if isinstance(result, str) else json.dumps(result, default=str)
        return RenderedTemplate(text, listeners if isinstance(listeners, Mapping) else None)

    async def history(
        self, entity_ids: list[str], start: datetime, end: datetime, statistics: bool
    ) -> JsonValue:
        """Recorded states (compressed, no attributes) or hourly statistics of the period."""
        if statistics:
            return await self._client.command(
                {
                    "type": "recorder/statistics_during_period",
                    "start_time": start.isoformat(),
                    "end_time": end.isoformat(),
                    "statistic_ids": list(entity_ids),
                    "period": "hour",
                    "types": list(STATISTIC_TYPES),
                }
            )
        return await self._client.command(
            {
                "type": "history/history_during_period",
                "start_time": start.isoformat(),
                "end_time": end.isoformat(),
                "entity_ids": list(entity_ids),
                "minimal_response": True,
                "no_attributes": True,
                "significant_changes_only": False,
            }
        )

    def exposed(self, entity_id: str) -> bool:
        """Whether the entity is exposed to Assist in the current home model."""
        model = self._sync.model
        return model is not None and model.is_exposed(entity_id)
