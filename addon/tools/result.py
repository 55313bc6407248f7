"""What a tool call answered, read once into a typed record, and rendered for the wire once.

A tool answers with a JSON object for the model (``content``): a query's states, a custom tool's
shaped body, an error as ``{"error", "error_text"}`` (as Home Assistant's ``chat_log`` does);
an intent answers with its typed :class:`~addon.home.actions.response.IntentResult`, kept as it
is until the wire. :meth:`ToolResult.of` reads a JSON answer once, and :meth:`ToolResult.of_intent`
an intent's record, where the registry (or the local path) makes the result, into what the
agent needs of it: a home action's response type and the targets it reports it acted on
(``data.success``), whether the tool declined (``"success": false``) and the error text. The
agent's readers (the answer's action summary, the outcome check, the stopped turn's "what was
done so far", memory's learning) use those fields and never parse the object again; each picks
what it needs (:meth:`ToolResult.entity_targets`, :meth:`ToolResult.named_things`).

The wire forms are made here and only here: :meth:`ToolResult.for_model` (the object) and
:meth:`ToolResult.text` (its JSON text, cut where the model's budget says); an intent's record
becomes JSON (Home Assistant's LLM shape, :meth:`IntentResult.for_model`) only there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from addon.home.actions.response import IntentResult, IntentTarget, ResponseType
from addon.text import JsonObject, JsonValue

ACTION_DONE: Final = "action_done"
PARTIAL_ACTION_DONE: Final = "partial_action_done"
ERROR_RESPONSE: Final = "error"
_ACTED = frozenset({ACTION_DONE, PARTIAL_ACTION_DONE})
_THINGS = frozenset({"entity", "device"})


@dataclass(frozen=True, slots=True)
class ResultTarget:
    """One entry of a home action's ``data.success``: an area, floor, device or entity."""

    type: str
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One tool call's answer: the object the model reads, and what the agent reads of it."""

    content: Mapping[str, JsonValue] | IntentResult
    """What the tool answered, never changed once answered (so not copied): a JSON object, or
    an intent's typed record; :meth:`for_model` renders either."""
    response_type: str | None = None
    """A home action's response type (``action_done``, ``query_answer``, ``error``...)."""
    targets: tuple[ResultTarget, ...] = ()
    """What a home action reports it acted on or answered about (``data.success``)."""
    declined: bool = False
    """The tool answered ``"success": false``: it ran, but did not do what was asked."""
    error_text: str | None = None
    """Why the call failed, in the words the model reads (``error_text``)."""
    error_code: str | None = None
    """The code of a failed call's ``{"error": code}`` (an intent's error is in its record)."""

    @classmethod
    def of(cls, content: Mapping[str, JsonValue]) -> ToolResult:
        """Read a tool's answer once; anything not in the expected shape is left unread.

        Plain ``dict`` checks, not ``Mapping``: the answer is parsed JSON or built as a dict,
        and this runs for every tool call.
        """
        response_type = content.get("response_type")
        data = content.get("data")
        success = data.get("success") if type(data) is dict else None
        error_text = content.get("error_text")
        error_code = content.get("error")
        return cls(
            content,
            response_type if type(response_type) is str else None,
            tuple(_target(entry) for entry in success if type(entry) is dict)
            if type(success) is list
            else (),
            content.get("success", True) is False,
            error_text if type(error_text) is str else None,
            error_code if type(error_code) is str else None,
        )

    @classmethod
    def of_intent(cls, result: IntentResult) -> ToolResult:
        """An intent's answer, read from its record's fields: no JSON is made for it here.

        The same reading :meth:`of` makes of the record's JSON form (``data.success`` for an
        answer that is not an error, ``error_text`` for one that is), without making it.
        """
        is_error = result.response_type is ResponseType.ERROR
        return cls(
            result,
            result.response_type.value,
            () if is_error else tuple(map(_intent_target, result.success)),
            error_text=result.message if is_error else None,
        )

    @classmethod
    def failure(cls, code: str, text: str) -> ToolResult:
        """A call that failed before or inside the tool: ``{"error": code, "error_text": text}``."""
        return cls.of({"error": code, "error_text": text})

    @property
    def succeeded(self) -> bool:
        """Whether the answer says it worked (no error response, not declined)."""
        return self.response_type != ERROR_RESPONSE and not self.declined

    def entity_targets(self) -> list[ResultTarget]:
        """The entities a completed home action (``action_done``) reports it acted on.

        What the outcome check compares with the states reported; an entity id always names a
        domain (``light.kitchen``).
        """
        if self.response_type != ACTION_DONE:
            return []
        return [t for t in self.targets if t.type == "entity" and "." in t.id]

    def named_things(self) -> list[str]:
        """The names of the devices and entities an action (fully or partly) acted on.

        Areas and floors come first in ``data.success`` and name where, not what: left out.
        """
        if self.response_type not in _ACTED:
            return []
        return [t.name for t in self.targets if t.type in _THINGS and t.name]

    def for_model(self) -> JsonObject:
        """The object as the model reads it (and the store keeps it): a plain JSON object."""
        content = self.content
        if isinstance(content, IntentResult):
            return content.for_model()
        return dict(content)

    def text(self, limit: int | None = None) -> str:
        """The JSON text the model reads; over ``limit`` characters it is cut, with a note."""
        content = self.content
        if isinstance(content, IntentResult):
            content = content.for_model()
        elif not isinstance(content, dict):
            content = dict(content)
        text = json.dumps(content, ensure_ascii=False, default=str)
        return text if limit is None else cut(text, limit)


def cut(text: str, limit: int) -> str:
    """``text`` (a result's :meth:`ToolResult.text`) cut at ``limit`` characters, with a note."""
    if len(text) <= limit:
        return text
    return (
        text[:limit] + f" … [cut: the result was {len(text)} characters, the first {limit} shown]"
    )


HELD: Final = ToolResult.of(
    {
        "held_for_confirmation": True,
        "speech": "Nothing was done yet: the user is asked to confirm first.",
    }
)
"""What the model reads of a call the confirmation policy held."""


def _intent_target(target: IntentTarget) -> ResultTarget:
    return ResultTarget(target.type.value, target.id if target.id is not None else "", target.name)


def _target(entry: JsonObject) -> ResultTarget:
    kind, target_id, name = entry.get("type"), entry.get("id", ""), entry.get("name")
    return ResultTarget(
        type=kind if isinstance(kind, str) else "",
        id=target_id if isinstance(target_id, str) else "" if target_id is None else str(target_id),
        name=name if isinstance(name, str) else "",
    )
