"""The live executor hands a sentence to Home Assistant's own agent, with who heard it."""

from __future__ import annotations

from typing import Any

import pytest

from addon.errors import ToolError
from addon.ha.client import HomeAssistantClient
from addon.home.actions.executor import HandedSentence
from addon.home.actions.live import LiveExecutor
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant

STARTED = {
    "response": {
        "speech": {"plain": {"speech": "Timer set for 5 minutes", "extra_data": None}},
        "card": {},
        "language": "en",
        "response_type": "action_done",
        "data": {"targets": [], "success": [], "failed": []},
    },
    "conversation_id": "01J",
    "continue_conversation": False,
}


def answering(
    answer: dict[str, Any], asked: list[dict[str, Any]], *, schema_2025_4: bool = False
) -> Any:
    """``conversation/process`` as Home Assistant answers it; 2025.4 refuses device ids."""

    async def handle(connection: FakeConnection, message: dict[str, Any]) -> None:
        asked.append({key: value for key, value in message.items() if key != "id"})
        if schema_2025_4 and "device_id" in message:
            await connection.error(
                message["id"], "invalid_format", "extra keys not allowed @ data['device_id']"
            )
            return
        await connection.result(message["id"], answer)

    return handle


SENTENCE = HandedSentence("set a timer for 5 minutes", "en", "satellite-hall", "assist_1")


async def test_the_sentence_goes_with_its_device_and_the_answer_is_home_assistants(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The timer runs on the satellite that heard it; its speech is what the person hears."""
    asked: list[dict[str, Any]] = []
    fake_ha.handlers["conversation/process"] = answering(STARTED, asked)
    answer = await LiveExecutor(client).hand_over(SENTENCE)
    assert asked == [
        {
            "type": "conversation/process",
            "text": "set a timer for 5 minutes",
            "language": "en",
            "agent_id": "conversation.home_assistant",
            "device_id": "satellite-hall",
            "satellite_id": "assist_1",
        }
    ]
    assert (answer.speech, answer.failed, answer.handed) == ("Timer set for 5 minutes", False, True)


async def test_a_release_that_takes_no_device_id_is_asked_without_one(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Home Assistant 2025.4's command has no device id: asked again without, it says why."""
    unsupported = {
        "response": {
            "speech": {"plain": {"speech": "Sorry, timers are not supported on this device"}},
            "response_type": "error",
            "data": {"code": "failed_to_handle"},
        }
    }
    asked: list[dict[str, Any]] = []
    fake_ha.handlers["conversation/process"] = answering(unsupported, asked, schema_2025_4=True)
    answer = await LiveExecutor(client).hand_over(SENTENCE)
    assert [("device_id" in message) for message in asked] == [True, False]
    assert answer.failed
    assert answer.error_code == "failed_to_handle"
    assert answer.speech == "Sorry, timers are not supported on this device"


async def test_a_refusal_is_a_tool_error(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Home Assistant refusing the command (not an admin token) is said, never swallowed."""

    async def refuse(connection: FakeConnection, message: dict[str, Any]) -> None:
        await connection.error(message["id"], "unauthorized", "Unauthorized")

    fake_ha.handlers["conversation/process"] = refuse
    with pytest.raises(ToolError, match="could not be asked"):
        await LiveExecutor(client).hand_over(SENTENCE)
