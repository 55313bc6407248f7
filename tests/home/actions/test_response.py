"""IntentResult: Home Assistant's IntentResponse.as_dict() shape, and what a model sees."""

from __future__ import annotations

from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    ResponseType,
    StateReport,
    TargetType,
    error_result,
)


def test_action_done_has_home_assistants_shape() -> None:
    """An action answer is exactly HA's as_dict(): empty speech, targets/success/failed."""
    result = IntentResult(
        intent="HassTurnOn",
        response_type=ResponseType.ACTION_DONE,
        success=(IntentTarget("Kettle", TargetType.ENTITY, "switch.kettle"),),
    )
    assert result.as_dict() == {
        "speech": {},
        "card": {},
        "language": "en",
        "response_type": "action_done",
        "data": {
            "targets": [],
            "success": [{"name": "Kettle", "type": "entity", "id": "switch.kettle"}],
            "failed": [],
        },
    }


def test_error_has_only_a_code() -> None:
    """An error answer speaks its message and carries only the code in data."""
    result = error_result("HassTurnOn", ErrorCode.NO_VALID_TARGETS, "No light named X.")
    assert result.as_dict()["data"] == {"code": "no_valid_targets"}
    assert result.as_dict()["speech"]["plain"]["speech"] == "No light named X."


def test_model_view_drops_language_and_card_and_adds_error_text() -> None:
    """for_model() is HA's LLM tool shape plus error_text."""
    shown = error_result("HassTurnOn", ErrorCode.INVALID_SLOTS, "bad slot").for_model()
    assert "language" not in shown
    assert "card" not in shown
    assert shown["error_text"] == "bad slot"


def test_model_view_adds_matched_states() -> None:
    """A query shows the model the states it asked for, with the telling attributes."""
    result = IntentResult(
        intent="HassGetState",
        response_type=ResponseType.QUERY_ANSWER,
        matched_states=(
            StateReport("fan.f", "Fan", "on", {"percentage": 50, "friendly_name": "Fan"}),
        ),
    )
    assert result.for_model()["data"]["matched_states"] == [
        {"entity_id": "fan.f", "name": "Fan", "state": "on", "attributes": {"percentage": 50}}
    ]
