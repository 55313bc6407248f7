"""A history tool's ``start``/``end`` span is bounded like its ``period`` (issue 20.5)."""

from __future__ import annotations

from addon.custom_tools.definition import ToolDefinition, parse_definition
from addon.custom_tools.runner import Runner


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
