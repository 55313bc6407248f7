"""Reading Home Assistant's answers: the shape a command promises, or a refusal naming it.

A command's ``result`` is JSON of any shape on the wire; each reader here checks the one shape
its command documents (an object, a list of objects) and raises
:class:`~addon.errors.HomeAssistantCommandError` naming the command otherwise, so an answer we
cannot read stops the snapshot with a reason instead of a ``TypeError`` deep inside a parser.
"""

from __future__ import annotations

import json

from addon.errors import HomeAssistantCommandError
from addon.ha.protocol import excerpt
from addon.text import JsonObject, JsonValue

UNEXPECTED_ANSWER = "unexpected_answer"


def answer_object(answer: JsonValue, command: str) -> JsonObject:
    """``answer`` when it is an object, as ``command`` promises."""
    if isinstance(answer, dict):
        return answer
    raise _unexpected(answer, command, "an object")


def answer_objects(answer: JsonValue, command: str) -> list[JsonObject]:
    """``answer`` when it is a list of objects (a registry list), as ``command`` promises."""
    if isinstance(answer, list):
        objects = [item for item in answer if isinstance(item, dict)]
        if len(objects) == len(answer):
            return objects
    raise _unexpected(answer, command, "a list of objects")


def _unexpected(answer: JsonValue, command: str, shape: str) -> HomeAssistantCommandError:
    return HomeAssistantCommandError(
        UNEXPECTED_ANSWER,
        f"'{command}' answered {excerpt(json.dumps(answer))}, not {shape}",
    )
