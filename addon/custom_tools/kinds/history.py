"""The ``history`` kind: recorded states or long-term statistics of exposed entities, summarised.

A day of a power sensor is thousands of rows; the model needs a few numbers. Numeric histories
become first, last, min, max and mean; others the number of changes and the last few of them;
statistics (hourly mean/min/max from the recorder) become the same summary over the hours.
Every entity must be exposed to Assist, whoever wrote it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from addon.custom_tools.context import RecordedResponse, RenderedRequest, StepContext, StepResult
from addon.custom_tools.definition import MAX_PERIOD_S, HistorySettings
from addon.custom_tools.kinds.service import entity_list
from addon.errors import CustomToolCallError, HomeAgentError, ToolError
from addon.text import JsonObject, JsonValue

MAX_CHANGES = 20
"""State changes listed per non-numeric entity (the latest ones)."""
_NOT_VALUES = frozenset({"unavailable", "unknown", ""})


async def run(settings: HistorySettings, context: StepContext) -> StepResult:
    """Fetch the period's history of the rendered entities and summarise it per entity."""
    renderer, variables, field = context.renderer, context.variables, context.field
    entity_ids: list[str] = []
    for index, source in enumerate(settings.entity_ids):
        rendered = renderer.render(source, variables, f"{field}.entity_ids.{index}")
        entity_ids.extend(e for e in entity_list(rendered) if e not in entity_ids)
    if not entity_ids:
        raise ToolError(f"{field}.entity_ids: no entity to read")
    start, end = _window(settings, context)
    if context.port is None:
        raise ToolError("Home Assistant is not connected right now; try again in a moment")
    for entity_id in entity_ids:
        refused = context.gate.entity(entity_id)  # read only what is exposed, whoever wrote it
        if not refused.allowed:
            raise ToolError(refused.reason)
    request = RenderedRequest(
        "HISTORY",
        "statistics" if settings.statistics else "states",
        {},
        {"entity_ids": [*entity_ids], "start": start.isoformat(), "end": end.isoformat()},
    )
    try:
        raw = await context.port.history(entity_ids, start, end, settings.statistics)
    except HomeAgentError as err:
        raise CustomToolCallError(f"reading the history failed: {err}", request=request) from err
    raw = raw if isinstance(raw, dict) else {}
    summary: list[JsonValue] = [
        summarise_statistics(entity_id, _rows(raw.get(entity_id), entity_id, request))
        if settings.statistics
        else summarise_states(entity_id, _rows(raw.get(entity_id), entity_id, request))
        for entity_id in entity_ids
    ]
    body = json.dumps(raw, ensure_ascii=False, default=str)
    response = RecordedResponse(None, {}, body[:100_000], truncated=len(body) > 100_000)
    result: JsonObject = {"from": _stamp(start), "to": _stamp(end), "entities": summary}
    return StepResult(result, request, response)


def _window(settings: HistorySettings, context: StepContext) -> tuple[datetime, datetime]:
    """The period to read: ``start`` to ``end`` as rendered, or the defaults.

    A ``start`` or ``end`` that renders empty counts as not given (an optional argument the model
    left out, ``{{ start_time | default('', true) }}``): the start is then the lookback before
    now, the end the lookback after the start (never past now), as Extended OpenAI's
    ``get_history`` fills them in. No ``end`` at all is now, as before.
    """
    now = context.now()
    lookback = timedelta(seconds=settings.lookback)
    if settings.start is None:
        return now - lookback, now
    field = context.field
    start_text = context.renderer.render(settings.start, context.variables, f"{field}.start")
    start = _parse_time(start_text, f"{field}.start") if start_text.strip() else now - lookback
    end = now
    if settings.end is not None:
        end_text = context.renderer.render(settings.end, context.variables, f"{field}.end")
        given = end_text.strip()
        end = _parse_time(end_text, f"{field}.end") if given else min(start + lookback, now)
    if end <= start:
        raise ToolError(f"{field}: the end of the period is not after its start")
    if (end - start).total_seconds() > MAX_PERIOD_S:
        # Bounded like ``period``: a model's start in 1970 would read the whole recorder.
        raise ToolError(f"{field}: the period from start to end is longer than a year")
    return start, end


def _parse_time(text: str, field: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError as err:
        raise ToolError(f"{field}: {text.strip()!r} is not an ISO date and time") from err
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def summarise_states(entity_id: str, rows: Sequence[Mapping[str, JsonValue]]) -> JsonObject:
    """Numbers: first, last, min, max, mean; other states: the count and the latest changes.

    Rows are Home Assistant's compressed states (``s`` state, ``lu`` last updated, seconds).
    """
    states = [(str(row.get("s", row.get("state", ""))), _seconds(row)) for row in rows]
    summary: JsonObject = {"entity_id": entity_id, "samples": len(states)}
    if not states:
        return {**summary, "note": "no recorded states in this period"}
    numbers = [value for value in (_number(state) for state, _at in states) if value is not None]
    valued = [s for s, _at in states if s not in _NOT_VALUES]
    if numbers and len(numbers) == len(valued):
        values = numbers
        return {
            **summary,
            "first": values[0],
            "last": values[-1],
            "min": min(values),
            "max": max(values),
            "mean": round(sum(values) / len(values), 3),
        }
    changes: list[JsonValue] = [[_stamp_seconds(at), state] for state, at in states]
    return {
        **summary,
        "last": states[-1][0],
        "changes": len(states) - 1,
        "latest": changes[-MAX_CHANGES:],
    }


def summarise_statistics(entity_id: str, rows: Sequence[Mapping[str, JsonValue]]) -> JsonObject:
    """Hourly statistics as one summary: the overall min, max and mean, and the last hour's mean."""
    summary: JsonObject = {"entity_id": entity_id, "hours": len(rows)}
    means = [v for v in (_number(row.get("mean")) for row in rows) if v is not None]
    lows = [v for v in (_number(row.get("min")) for row in rows) if v is not None]
    highs = [v for v in (_number(row.get("max")) for row in rows) if v is not None]
    if not means and not lows and not highs:
        states = [v for v in (_number(row.get("state")) for row in rows) if v is not None]
        if not states:
            return {**summary, "note": "no statistics in this period"}
        return {**summary, "first": states[0], "last": states[-1]}
    if lows:
        summary["min"] = min(lows)
    if highs:
        summary["max"] = max(highs)
    if means:
        summary["mean"] = round(sum(means) / len(means), 3)
        summary["last_mean"] = round(means[-1], 3)
    return summary


def _rows(value: JsonValue, entity_id: str, request: RenderedRequest) -> list[JsonObject]:
    """One entity's rows of Home Assistant's answer; an answer of another shape is refused.

    No rows (the entity recorded nothing in the period) is an empty list; rows that are not
    objects are not Home Assistant's history, and summarising them would report nonsense.
    """
    if not value:
        return []
    if isinstance(value, list) and all(isinstance(row, dict) for row in value):
        return [row for row in value if isinstance(row, dict)]
    raise CustomToolCallError(
        f"Home Assistant's history of {entity_id} is not a list of rows", request=request
    )


def _number(value: JsonValue) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _seconds(row: Mapping[str, JsonValue]) -> float | None:
    value = row.get("lu", row.get("lc"))
    if isinstance(value, int | float):
        return float(value)
    text = row.get("last_updated") or row.get("last_changed")
    if isinstance(text, str):
        try:
            return datetime.fromisoformat(text).timestamp()
        except ValueError:
            return None
    return None


def _stamp_seconds(seconds: float | None) -> str | None:
    return None if seconds is None else _stamp(datetime.fromtimestamp(seconds, UTC))


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="minutes").replace("+00:00", "Z")
