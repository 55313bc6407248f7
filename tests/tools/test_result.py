"""A tool's answer read once into a ToolResult, and its one wire form."""

from __future__ import annotations

import json

from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    ResponseType,
    TargetType,
    error_result,
)
from addon.tools.result import HELD, ResultTarget, ToolResult

ACTED = {
    "speech": {},
    "response_type": "action_done",
    "data": {
        "targets": [],
        "success": [
            {"name": "Kitchen", "type": "area", "id": "kitchen"},
            {"name": "Lamp", "type": "entity", "id": "light.lamp"},
            {"name": "Plug", "type": "device", "id": "dev1"},
        ],
        "failed": [],
    },
}


def test_a_home_actions_targets_are_read_once() -> None:
    """``data.success`` becomes typed targets, in order, whatever their type."""
    result = ToolResult.of(ACTED)
    assert result.response_type == "action_done"
    assert result.targets == (
        ResultTarget("area", "kitchen", "Kitchen"),
        ResultTarget("entity", "light.lamp", "Lamp"),
        ResultTarget("device", "dev1", "Plug"),
    )


def test_the_outcome_check_sees_entities_and_the_reply_sees_names_of_things() -> None:
    """Entities for the state check; devices and entities by name for "what was done"."""
    result = ToolResult.of(ACTED)
    assert [t.id for t in result.entity_targets()] == ["light.lamp"]
    assert result.named_things() == ["Lamp", "Plug"]


def test_a_partly_done_action_names_its_things_but_is_not_checked() -> None:
    """``partial_action_done`` is said as done so far, but no state is compared for it."""
    result = ToolResult.of({**ACTED, "response_type": "partial_action_done"})
    assert result.entity_targets() == []
    assert result.named_things() == ["Lamp", "Plug"]


def test_an_answer_of_another_shape_is_left_unread() -> None:
    """A custom tool's body with odd ``data`` reads as no targets, not as an error."""
    result = ToolResult.of({"data": {"success": "yes"}, "response_type": 3})
    assert result.targets == ()
    assert result.response_type is None
    assert result.succeeded


def test_a_failure_is_the_error_object_the_model_reads() -> None:
    """``failure`` renders as ``{"error", "error_text"}`` and carries its text."""
    result = ToolResult.failure("ToolError", "the echo broke")
    assert result.for_model() == {"error": "ToolError", "error_text": "the echo broke"}
    assert result.error_text == "the echo broke"


def test_a_declined_answer_did_not_succeed() -> None:
    """``"success": false`` marks the call as not done, though it ran."""
    assert not ToolResult.of({"success": False, "error_text": "no"}).succeeded
    assert not ToolResult.of({"response_type": "error"}).succeeded


def test_the_text_is_cut_with_a_note_over_its_limit() -> None:
    """The model's text is the JSON, cut where the budget says, with the full length noted."""
    result = ToolResult.of({"value": "x" * 500})
    whole = result.text()
    assert json.loads(whole) == {"value": "x" * 500}
    cut = result.text(100)
    assert cut.startswith(whole[:100])
    assert f"[cut: the result was {len(whole)} characters, the first 100 shown]" in cut


def test_a_held_call_tells_the_model_nothing_was_done() -> None:
    """What the model reads of a held call."""
    assert HELD.for_model()["held_for_confirmation"] is True


def test_an_intents_record_reads_as_its_json_form_would() -> None:
    """Read from the record's fields, an intent's answer says what its JSON form says."""
    acted = IntentResult(
        "HassTurnOn",
        ResponseType.ACTION_DONE,
        success=(
            IntentTarget("Kitchen", TargetType.AREA, "kitchen"),
            IntentTarget("Lamp", TargetType.ENTITY, "light.lamp"),
            IntentTarget("Plug", TargetType.DEVICE),
        ),
    )
    failed = error_result("HassTurnOn", ErrorCode.NO_VALID_TARGETS, "no Lamp here")
    for record in (acted, failed):
        read = ToolResult.of_intent(record)
        from_json = ToolResult.of(record.for_model())
        assert read.content is record
        assert read.response_type == from_json.response_type
        assert read.targets == from_json.targets
        assert (read.declined, read.error_text) == (from_json.declined, from_json.error_text)
        assert read.for_model() == record.for_model()
        assert json.loads(read.text()) == record.for_model()
    assert ToolResult.of_intent(failed).error_text == "no Lamp here"


def test_a_failures_code_is_read_once() -> None:
    """``{"error": code}`` is read into ``error_code``; an intent's error is in its record."""
    assert ToolResult.failure("ToolError", "the echo broke").error_code == "ToolError"
    assert ToolResult.of({"error": 3}).error_code is None
