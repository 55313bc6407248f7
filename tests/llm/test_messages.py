"""Chat messages as records, and their one OpenAI form."""

from __future__ import annotations

from addon.llm.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    UserMessage,
    from_wire,
    wire_messages,
)

TURN = [
    SystemMessage("You are a test."),
    UserMessage("lights on"),
    AssistantMessage(None, (ToolCallRequest("call_1", "HassTurnOn", '{"name": "Lamp"}'),)),
    ToolMessage("call_1", '{"success": true}'),
    AssistantMessage("Done."),
]


def test_messages_render_in_openais_chat_format() -> None:
    """Each record becomes the dict the OpenAI protocol names, keys in its order."""
    assert wire_messages(TURN) == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "lights on"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "HassTurnOn", "arguments": '{"name": "Lamp"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"success": true}'},
        {"role": "assistant", "content": "Done."},
    ]


def test_a_stored_turn_reads_back_as_the_same_records() -> None:
    """What the store keeps (the wire form) reads back unchanged."""
    assert from_wire(wire_messages(TURN)) == TURN


def test_a_message_no_turn_of_ours_writes_is_left_out() -> None:
    """An unknown role or non-text content is skipped rather than sent on."""
    stored = [{"role": "function", "content": "x"}, {"role": "user", "content": ["parts"]}]
    assert from_wire(stored) == []
