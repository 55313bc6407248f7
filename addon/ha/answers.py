"""Reading Home Assistant's answers: the shape a command promises, or a refusal naming it.

A command's ``result`` is JSON of any shape on the wire; each reader here checks the one shape
its command documents (an object, a list of objects) and raises ``TypeError`` naming the
command otherwise. That is a fault in what Home Assistant answered, not a refusal (which is a
:class:`~addon.errors.HomeAssistantCommandError`): :class:`~addon.ha.home_sync.HomeSync` logs it
with its traceback and tries again later, as for any snapshot it cannot build.
"""

from __future__ import annotations

import json

from addon.ha.protocol import excerpt
from addon.text import JsonObject, JsonValue


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


def _unexpected(answer: JsonValue, command: str, shape: str) -> TypeError:
    return TypeError(f"'{command}' answered {excerpt(json.dumps(answer))}, not {shape}")
