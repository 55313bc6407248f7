"""What a turn has done so far, read from its tool results as the intents report them."""

from __future__ import annotations

from typing import Any

from addon.agent.progress import done_so_far
from addon.i18n.messages import Action, Done
from addon.tools.registry import ToolOutcome
from addon.tools.result import ToolResult


def outcome(name: str, result: dict[str, Any], error: str | None = None) -> ToolOutcome:
    return ToolOutcome(name, {}, "{}", ToolResult.of(result), error, 1.0, "virtual")


def acted(*targets: tuple[str, str], kind: str = "action_done") -> dict[str, Any]:
    success = [{"type": kind_, "name": name, "id": name.lower()} for kind_, name in targets]
    return {"response_type": kind, "data": {"success": success, "failed": []}}


def test_entities_acted_on_are_listed_by_action_and_areas_left_out() -> None:
    """Areas name where, not what; each entity appears once under its action."""
    outcomes = [
        outcome("HassTurnOn", acted(("area", "Kitchen"), ("entity", "Kitchen Lights"))),
        outcome("HassLightSet", acted(("entity", "Bed Light"))),
        outcome("HassTurnOn", acted(("entity", "Kitchen Lights"), ("entity", "Porch"))),
        outcome("HassMediaPause", acted(("entity", "Living Room TV"))),
    ]
    assert done_so_far(outcomes) == [
        Done(Action.TURNED_ON, ("Kitchen Lights", "Porch")),
        Done(Action.SET, ("Bed Light",)),
        Done(Action.CONTROLLED, ("Living Room TV",)),
    ]


def test_queries_and_failures_did_nothing() -> None:
    """A state answer, an error result and a failed call are not actions."""
    outcomes = [
        outcome("HassGetState", {"response_type": "query_answer", "data": {"success": []}}),
        outcome("HassTurnOn", {"response_type": "error", "data": {"code": "no_valid_targets"}}),
        outcome("HassTurnOff", acted(("entity", "Porch")), error="ToolError: bad arguments"),
        outcome("GetLiveContext", {"success": True, "result": "..."}),
    ]
    assert done_so_far(outcomes) == []
