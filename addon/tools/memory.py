"""The memory tools: what the user asks to be remembered, recalled or forgotten.

"Remember that the cat is called Miso", "what do you know about the garage", "forget that": the
model calls ``remember``, ``recall_memories`` or ``forget_memory``, which go to the
:class:`~addon.memory.service.MemoryService`. Each answer carries a ``speech`` the model can
say as it is, in the turn's language (:mod:`addon.i18n.memory`). The tools are the same objects
every turn with fixed schemas, so the tool list stays byte-identical and a prompt cache holds.

A remembered memory is stored during the turn, before the turn itself is; its id is in the
result, and the agent credits it to the turn once the turn is stored (:func:`told_memory_ids`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from addon.i18n.memory import memory_messages_for
from addon.memory.candidates import MemoryKind
from addon.memory.records import Outcome
from addon.memory.rules import RejectReason
from addon.memory.service import MemoryService
from addon.text import JsonObject, JsonValue
from addon.tools.base import Tool, ToolContext
from addon.tools.registry import ToolOutcome

REMEMBER = "remember"
RECALL = "recall_memories"
FORGET = "forget_memory"
MEMORY_TOOL_NAMES = frozenset({REMEMBER, RECALL, FORGET})
KIND = "memory"
RECALL_LIMIT = 5

_KINDS: list[JsonValue] = [kind.value for kind in MemoryKind]


@dataclass(frozen=True, slots=True)
class RememberTool:
    """Keeps what the user asks to be remembered."""

    service: MemoryService
    name: str = REMEMBER
    description: str = (
        "Keep something for future conversations when the user asks you to remember it "
        '("remember that the cat is called Miso"). Write it as one short, self-contained '
        "sentence in the third person, in the user's language. Never use it for passwords, "
        "codes or PINs. Say the returned speech to confirm."
    )
    parameters: JsonObject = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "What to remember, one sentence."},
                "kind": {
                    "type": "string",
                    "enum": _KINDS,
                    "description": "fact (default), preference, context (for days) or event.",
                },
            },
            "required": ["content"],
        }
    )
    kind: str = KIND

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject:
        """Remember ``content``; a secret is refused with the reason."""
        words = memory_messages_for(context.language)
        kind = arguments.get("kind")
        remembered = await self.service.remember(
            str(arguments.get("content", "")),
            kind=MemoryKind(kind) if isinstance(kind, str) and kind in _KINDS else MemoryKind.FACT,
            dry_run=context.dry_run,
            person_id=context.actor.person_key if context.actor is not None else None,
        )
        if remembered.outcome is Outcome.REFUSED:
            secret = remembered.reason is RejectReason.SECRET
            return {
                "success": False,
                "reason": str(remembered.reason),
                "speech": words.refused_secret if secret else words.nothing_to_remember,
            }
        if context.dry_run:
            # Said plainly, so the model does not confirm a memory that was never kept.
            return {
                "success": True,
                "dry_run": True,
                "stored": False,
                "content": remembered.content,
                "speech": words.dry_run_remembered.format(fact=words.fact(remembered.content)),
            }
        template = words.already_known if remembered.outcome is Outcome.MERGED else words.remembered
        return {
            "success": True,
            "outcome": str(remembered.outcome),
            "memory_id": remembered.memory.id if remembered.memory is not None else None,
            "content": remembered.content,
            "speech": template.format(fact=words.fact(remembered.content)),
        }


@dataclass(frozen=True, slots=True)
class RecallTool:
    """Says what is remembered about something."""

    service: MemoryService
    name: str = RECALL
    description: str = (
        "Look up what you remember from earlier conversations about a person, place, device or "
        'topic ("what do you know about the garage"). Returns the memories with their ids.'
    )
    parameters: JsonObject = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look up, in a few words."}
            },
            "required": ["query"],
        }
    )
    kind: str = KIND

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject:
        """The memories about ``query``, best first."""
        person = context.actor.person_key if context.actor is not None else None
        found = await self.service.search(
            str(arguments.get("query", "")), limit=RECALL_LIMIT, person_id=person
        )
        result: JsonObject = {
            "success": True,
            "memories": [
                {"id": record.id, "content": record.content, "kind": record.kind}
                for record in found
            ],
        }
        if not found:
            result["speech"] = memory_messages_for(context.language).recalled_nothing
        return result


@dataclass(frozen=True, slots=True)
class ForgetTool:
    """Forgets one memory, by its id or by what it is about."""

    service: MemoryService
    name: str = FORGET
    description: str = (
        'Forget a memory when the user asks you to ("forget that"). Pass the memory\'s id from '
        "the memories you were given or from recall_memories; or, without an id, what it is "
        "about. Say the returned speech to confirm."
    )
    parameters: JsonObject = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "memory_id": {"type": "integer", "description": "The memory's id."},
                "about": {
                    "type": "string",
                    "description": "What the memory says, when its id is not known.",
                },
            },
        }
    )
    kind: str = KIND

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject:
        """Delete the memory (the panel can restore it)."""
        words = memory_messages_for(context.language)
        memory_id = arguments.get("memory_id")
        if not isinstance(memory_id, int):
            about = str(arguments.get("about", "")).strip()
            best = await self.service.search(about, limit=1) if about else ()
            memory_id = best[0].id if best else None
        forgotten = (
            await self.service.forget(memory_id, dry_run=context.dry_run)
            if memory_id is not None
            else None
        )
        if forgotten is None:
            return {"success": False, "speech": words.not_found}
        if context.dry_run:
            return {
                "success": True,
                "dry_run": True,
                "deleted": False,
                "memory_id": forgotten.id,
                "content": forgotten.content,
                "speech": words.dry_run_forgotten.format(fact=words.fact(forgotten.content)),
            }
        return {
            "success": True,
            "memory_id": forgotten.id,
            "content": forgotten.content,
            "speech": words.forgotten.format(fact=words.fact(forgotten.content)),
        }


def memory_tools(service: MemoryService) -> list[Tool]:
    """The three memory tools over ``service``, in name order."""
    tools: list[Tool] = [RememberTool(service), RecallTool(service), ForgetTool(service)]
    return sorted(tools, key=lambda tool: tool.name)


def told_memory_ids(outcomes: Iterable[ToolOutcome]) -> tuple[int, ...]:
    """The memories the turn's ``remember`` calls stored, to credit to the turn."""
    ids: dict[int, None] = {}
    for outcome in outcomes:
        content = outcome.result.content
        if outcome.name != REMEMBER or not isinstance(content, Mapping):
            continue
        memory_id = content.get("memory_id")
        if isinstance(memory_id, int) and outcome.ok:
            ids[memory_id] = None
    return tuple(ids)
