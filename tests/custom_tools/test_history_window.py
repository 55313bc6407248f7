"""A history tool's ``start``/``end`` span is bounded like its ``period`` (issue 20.5)."""

from __future__ import annotations

from datetime import datetime

import pytest

from addon.custom_tools.definition import ToolDefinition, parse_definition
from addon.custom_tools.runner import Runner
from addon.home.actions.gate import RenderedTemplate
from addon.text import JsonArray, JsonObject, JsonValue


def history_tool() -> ToolDefinition:
    return parse_definition(
        {
            "name": "temps",
            "description": "Temperatures between two times.",
            "parameters": {
                "type": "object",
                "properties": {"start": {"type": "string"}, "end": {"type": "string"}},
            },
            "kind": "history",
            "history": {
                "entity_ids": ["sensor.outside_temperature"],
                "start": "{{ start }}",
                "end": "{{ end }}",
            },
        },
        reserved=(),
    )


async def test_a_span_longer_than_a_year_is_refused(runner: Runner) -> None:
    """A model's ``start`` in 1970 is an error, before Home Assistant is asked for anything."""
    run = await runner.run(
        history_tool(),
        {"start": "1970-01-01T00:00:00+00:00", "end": "2026-01-01T00:00:00+00:00"},
        dry_run=False,
        secrets={},
    )
    assert run.error == "history: the period from start to end is longer than a year"


async def test_a_span_within_a_year_passes_the_window_check(runner: Runner) -> None:
    """A week is fine: the call goes on (here to find Home Assistant not connected)."""
    run = await runner.run(
        history_tool(),
        {"start": "2026-01-01T00:00:00+00:00", "end": "2026-01-08T00:00:00+00:00"},
        dry_run=False,
        secrets={},
    )
    assert run.error is not None
    assert "not connected" in run.error


class HistoryAnswer:
    """Home Assistant's side of the port, answering every history read with one fixed value."""

    def __init__(self, answer: JsonValue) -> None:
        self.answer = answer

    async def call_service(self, *arguments: object) -> JsonValue:
        raise AssertionError("a history tool calls no action")

    async def render_template(self, *arguments: object) -> RenderedTemplate:
        raise AssertionError("a history tool renders no Home Assistant template")

    async def history(
        self, entity_ids: list[str], start: datetime, end: datetime, statistics: bool
    ) -> JsonValue:
        return self.answer

    def exposed(self, entity_id: str) -> bool:
        return True


@pytest.mark.parametrize(
    "rows", ["not rows", {"s": "20"}, [["20", 1.0]]], ids=["text", "object", "arrays"]
)
async def test_history_rows_of_another_shape_are_refused(rows: JsonValue) -> None:
    """An answer whose rows are not objects is an error naming the entity, not a crash."""
    answer: JsonObject = {"sensor.outside_temperature": rows}
    runner = Runner(session=None, port=HistoryAnswer(answer))
    run = await runner.run(
        history_tool(),
        {"start": "2026-01-01T00:00:00+00:00", "end": "2026-01-02T00:00:00+00:00"},
        dry_run=False,
        secrets={},
    )
    assert run.error == (
        "Home Assistant's history of sensor.outside_temperature is not a list of rows"
    )


async def test_history_rows_are_summarised() -> None:
    """Rows of the right shape are summarised per entity."""
    rows: JsonArray = [{"s": "20", "lu": 1767225600.0}, {"s": "22", "lu": 1767229200.0}]
    runner = Runner(session=None, port=HistoryAnswer({"sensor.outside_temperature": rows}))
    run = await runner.run(
        history_tool(),
        {"start": "2026-01-01T00:00:00+00:00", "end": "2026-01-02T00:00:00+00:00"},
        dry_run=False,
        secrets={},
    )
    assert run.error is None
    assert isinstance(run.result, dict)
    assert run.result["entities"] == [
        {
            "entity_id": "sensor.outside_temperature",
            "samples": 2,
            "first": 20.0,
            "last": 22.0,
            "min": 20.0,
            "max": 22.0,
            "mean": 21.0,
        }
    ]
