"""The ``service`` kind: a Home Assistant action with templated data and target.

The gate (:mod:`addon.home.actions.gate`) decides: entities the user wrote in the definition may be
any; entities that come from the model's arguments (anything a template produced, under any key
of the data or the target) must be exposed to Assist, like everything else the agent touches.
Area, device, floor and label targets act on entities we cannot check one by one, so only the
user may write them. A forbidden action (``hassio.*``...) is never called.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from addon.custom_tools.context import (
    ActedOn,
    RecordedResponse,
    RenderedRequest,
    StepContext,
    StepResult,
)
from addon.custom_tools.definition import ServiceSettings, has_template
from addon.custom_tools.kinds.shaping import shape
from addon.errors import CustomToolCallError, HomeAgentError, ToolError
from addon.home.actions.gate import walk_targets
from addon.text import JsonValue

NOT_SENT = "dry run: the action was recorded, not called"
HELD = "held: the user is asked to confirm before the action is called"


async def run(settings: ServiceSettings, context: StepContext) -> StepResult:
    """Render, pass the gate, call (unless a dry run holds it back) and shape the answer."""
    renderer, variables, field = context.renderer, context.variables, context.field
    data = renderer.render_tree(settings.data, variables, f"{field}.data")
    target = renderer.render_tree(settings.target, variables, f"{field}.target")
    if not isinstance(data, dict) or not isinstance(target, dict):  # pragma: no cover - mappings
        raise ToolError(f"{field}: data and target must be mappings")
    refused = context.gate.action(settings.action)
    if not refused.allowed:
        raise ToolError(f"{field}.action: {refused.reason}")
    if context.port is None:
        raise ToolError("Home Assistant is not connected right now; try again in a moment")
    literal = literal_targets([settings.target, settings.data])
    refused = context.gate.targets(settings.action, [target, data], literal)
    if not refused.allowed:
        raise ToolError(refused.reason)
    entity_ids = entity_list(target.get("entity_id")) + entity_list(data.get("entity_id"))
    if "entity_id" in target:
        target["entity_id"] = [*entity_list(target["entity_id"])]
    request = RenderedRequest(
        "ACTION",
        settings.action,
        {},
        {"data": data, "target": target, "return_response": settings.return_response},
    )
    plain = {key: value for key, value in data.items() if key != "entity_id"}
    domain, service = settings.action.split(".", 1)
    port = context.port

    async def replay() -> None:
        await port.call_service(domain, service, data, target or None, settings.return_response)

    groups = group_targets(target, data)
    refused = context.gate.reaches(settings.action, entity_ids, plain, groups)
    if not refused.allowed:
        raise ToolError(f"{field}.action: {refused.reason}")
    # A group, or an action that acts through other entities, is made again exactly as called.
    again = bool(groups) or domain in REPLAYED_DOMAINS
    held = context.gate.confirm(
        settings.action, entity_ids, plain, groups=groups, replay=replay if again else None
    )
    if not held.allowed:
        return StepResult(HELD, request=request, sent=False)
    if not context.send:
        return StepResult(NOT_SENT, request=request, sent=False)
    try:
        answer = await context.port.call_service(
            domain, service, data, target or None, settings.return_response
        )
    except HomeAgentError as err:
        raise CustomToolCallError(f"{settings.action} failed: {err}", request=request) from err
    response_value = answer.get("response") if isinstance(answer, Mapping) else None
    text = json.dumps(response_value, ensure_ascii=False, default=str)
    response = RecordedResponse(None, {}, text)
    acted = tuple(ActedOn(settings.action, entity_id) for entity_id in entity_ids)
    if settings.result is None and not settings.return_response:
        return StepResult(f"{settings.action} done", request, response, acted=acted)
    try:
        result = shape(settings.result, text, response_value, context)
    except ToolError as err:
        raise CustomToolCallError(str(err), request=request, response=response) from err
    return StepResult(result, request, response, acted=acted)


def entity_list(value: JsonValue) -> list[str]:
    """Entity ids from a rendered value: a list, or one string, perhaps comma-separated."""
    if value is None:
        return []
    items: Iterable[JsonValue] = value if isinstance(value, list | tuple) else [value]
    ids: list[str] = []
    for item in items:
        ids.extend(part.strip() for part in str(item).split(",") if part.strip())
    return ids


REPLAYED_DOMAINS = frozenset({"homeassistant", "scene", "script", "automation"})
"""Domains whose actions act through other entities: a confirmed call is sent again as it was."""

GROUP_KEYS = ("area_id", "device_id", "floor_id", "label_id")
"""Target keys that name a group of entities Home Assistant resolves, not the entities."""


def group_targets(*sources: Mapping[str, JsonValue]) -> dict[str, list[str]]:
    """Each area, device, floor or label the call names, by key (``area_id`` → ids)."""
    found: dict[str, list[str]] = {}
    for source in sources:
        for key in GROUP_KEYS:
            values = entity_list(source.get(key))
            if values:
                found.setdefault(key, []).extend(values)
    return found


def literal_targets(sources: list[JsonValue]) -> frozenset[str]:
    """The targets (entities, areas, devices, floors, labels) written out in the definition."""
    return frozenset(value for _key, value in walk_targets(sources) if not has_template(value))
