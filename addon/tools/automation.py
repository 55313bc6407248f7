"""``draft_automation``: the model drafts a Home Assistant automation; a person approves it.

Extended OpenAI Conversation and Home Generative Agent let the model create automations
directly. Here the model only drafts one: the configuration Home Assistant stores (alias,
triggers, conditions, actions), on exposed entities only, judged through the call's gate by
what each of its actions will do (:func:`judge`), validated by Home Assistant, and kept as a
draft. Nothing is created until a person approves it: on the Automations page, or by a spoken
"yes" (or the PIN) where the confirmation rules allow it. The spoken approval is an action held
for confirmation like any other (:class:`~addon.home.actions.confirmation.HeldAction`, replayed
on the answer), so only the person's own next words approve it, never a tool call.

The gate judges the automation's actions as if they were called now, with the turn's policy,
exposure and whatever rules it carries for the person and the satellite: an action the gate
refuses (a forbidden action, an unexposed entity, a group the user never named) refuses the
draft outright; one it would hold for confirmation (unlocking, disarming, opening a garage)
marks the draft as covered, which only the PIN of the covering entry or the panel approves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from addon.errors import ActorRefusedError, AutomationDraftInvalid, ToolError
from addon.home.actions.confirmation import HeldAction
from addon.home.actions.gate import Decision, Gate, walk_targets
from addon.text import JsonArray, JsonObject, JsonValue
from addon.tools.base import ToolContext, ToolReply

ConfirmBy = Literal["yes", "pin", "panel"]
"""How a draft may be approved besides the panel: a spoken yes, the PIN, or the panel only."""

DRAFT_TOOL = "draft_automation"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri")
HOME_AGENT_MARK = "Created by Home Agent"
"""How an approved automation's description begins in Home Assistant."""

_ACTION_KEYS = ("action", "service")
_NOT_TARGETS = frozenset({*_ACTION_KEYS, "alias", "description", "trigger", "platform"})
"""Keys whose values name what runs, not what it runs on (``action: light.turn_on``)."""


@dataclass(frozen=True, slots=True)
class AutomationCall:
    """One action an automation will call, as the gate judges it."""

    action: str
    entity_ids: tuple[str, ...]
    data: Mapping[str, JsonValue]
    groups: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the gate says of a drafted automation as a whole."""

    entities: tuple[str, ...]
    """Every entity its triggers, conditions and actions name, in the order they appear."""
    refused: str | None
    """Why the gate refuses it (then it is never offered), else None."""
    covered: str | None
    """The covered action in words (``lock.unlock on lock.front_door``), else None."""
    confirm_by: ConfirmBy
    pin_hash: str | None
    """The covering entry's PIN hash, when the PIN approves it."""
    decisions: tuple[Decision, ...]
    refusal: ActorRefusedError | None = None
    """The actor's rule forbids an action it will call: refused outright, in their words."""


def automation_calls(actions: JsonValue) -> Iterator[AutomationCall]:
    """Every Home Assistant action in an action sequence, at any depth (choose, if, repeat...)."""
    if isinstance(actions, Mapping):
        named = next((actions[key] for key in _ACTION_KEYS if key in actions), None)
        if isinstance(named, str) and "." in named:
            yield _call(named, actions)
        elif isinstance(actions.get("scene"), str):
            yield AutomationCall("scene.turn_on", (str(actions["scene"]),), {}, {})
        for key, value in actions.items():
            if key not in _NOT_TARGETS:
                yield from automation_calls(value)
    elif isinstance(actions, list | tuple):
        for item in actions:
            yield from automation_calls(item)


def _call(action: str, step: Mapping[str, JsonValue]) -> AutomationCall:
    entity_ids: list[str] = []
    groups: dict[str, list[str]] = {}
    data = step.get("data")
    if not isinstance(data, Mapping):
        data = {}
    for source in (step.get("target"), data, {"entity_id": step.get("entity_id")}):
        for key, value in walk_targets(source or {}):
            if key == "entity_id":
                entity_ids.append(value)
            else:
                groups.setdefault(key, []).append(value)
    kept: JsonObject = {key: value for key, value in data.items() if key != "entity_id"}
    return AutomationCall(
        action.strip().lower(),
        tuple(dict.fromkeys(entity_ids)),
        kept,
        {key: tuple(values) for key, values in groups.items()},
    )


def without_action_names(value: JsonValue) -> JsonValue:
    """``value`` without the keys that name what runs, so only targets are left to check."""
    if isinstance(value, Mapping):
        return {
            key: without_action_names(item)
            for key, item in value.items()
            if key not in _NOT_TARGETS
        }
    if isinstance(value, list | tuple):
        return [without_action_names(item) for item in value]
    return value


def automation_entities(config: Mapping[str, JsonValue]) -> tuple[str, ...]:
    """Every entity a configuration names (triggers, conditions, actions), each once."""
    parts: JsonArray = [config.get(key) for key in ("triggers", "conditions", "actions")]
    found = (
        value for key, value in walk_targets(without_action_names(parts)) if key == "entity_id"
    )
    return tuple(dict.fromkeys(found))


def judge(config: Mapping[str, JsonValue], gate: Gate) -> Judgement:
    """The gate's verdict on an automation, judged by each action it will call.

    Asks a copy of ``gate`` (same exposure, policy and rules, none of its decisions or holds),
    so judging holds nothing of the turn: the actions run later, when the automation fires.
    An action the turn's actor may not do (their rule) refuses the draft outright: approving
    it in the panel must not be a way round the rule.
    """
    holds = gate.holds
    scratch = dataclasses.replace(
        gate,
        decisions=[],
        holds=dataclasses.replace(holds, held=[], refused=[]) if holds is not None else None,
    )
    refusal: ActorRefusedError | None = None
    entities = automation_entities(config)
    parts: JsonObject = {
        key: config.get(key) or [] for key in ("triggers", "conditions", "actions")
    }
    refused: str | None = None
    for key, values in parts.items():
        decision = scratch.targets(key, without_action_names(values), frozenset())
        if not decision.allowed:
            refused = decision.reason
            break
    covered: list[HeldAction] = []
    for call in automation_calls(parts["actions"]) if refused is None else ():
        for decision in (
            scratch.action(call.action),
            scratch.reaches(call.action, call.entity_ids, call.data, call.groups),
        ):
            if decision.verdict == "refuse":
                refused = decision.reason
                break
        if refused is not None:
            break
        before = len(scratch.holds.held) if scratch.holds is not None else 0
        try:
            decision = scratch.confirm(call.action, call.entity_ids, call.data, groups=call.groups)
        except ActorRefusedError as err:  # the gate recorded it; the draft is never kept
            refused, refusal = err.spoken, err
            break
        if decision.verdict == "refuse":
            refused = decision.reason
            break
        if decision.verdict == "confirm" and scratch.holds is not None:
            covered.extend(scratch.holds.held[before:])
    confirm_by, pin_hash = _approval(covered)
    why = "; ".join(dict.fromkeys(held.why or held.action for held in covered)) or None
    return Judgement(
        entities, refused, why, confirm_by, pin_hash, tuple(scratch.decisions), refusal
    )


def _approval(covered: Sequence[HeldAction]) -> tuple[ConfirmBy, str | None]:
    """A spoken yes approves an automation of nothing covered; a covered one needs the PIN.

    A yes now is not a yes each time it fires: an automation that unlocks a door acts later,
    unattended, so it takes the PIN of the entry covering it, or the panel where that entry is
    confirmed by a plain yes (or two PINs cover it).
    """
    if not covered:
        return "yes", None
    hashes = {held.pin_hash for held in covered}
    if all(held.method == "pin" for held in covered) and len(hashes) == 1:
        return "pin", hashes.pop()
    return "panel", None


@dataclass(frozen=True, slots=True)
class DraftOffer:
    """A draft kept for approval: its number and how it may be approved."""

    id: int
    confirm_by: ConfirmBy


@dataclass(frozen=True, slots=True)
class Draft:
    """A validated draft to keep: its configuration, what it does in words, the gate's verdict."""

    config: Mapping[str, JsonValue]
    summary: str
    judged: Judgement
    conversation_id: str | None = None
    """The conversation it was drafted in (none for an evaluation run's)."""


class Drafting(Protocol):
    """Where drafts go (the agent's :class:`~addon.agent.automations.AutomationDrafts`)."""

    async def problems(self, config: Mapping[str, JsonValue]) -> tuple[str, ...]:
        """What Home Assistant finds wrong with the configuration (nothing: it is valid)."""

    async def keep(self, draft: Draft) -> DraftOffer:
        """Keep a validated draft, unapproved."""

    def approver(self, draft_id: int, by: str) -> Callable[[], Awaitable[object]]:
        """What approves the draft when the person's answer confirms it."""


PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "alias": {"type": "string", "description": "A short name for the automation."},
        "summary": {
            "type": "string",
            "description": (
                "One or two plain sentences in the user's language saying what the automation "
                "will do, e.g. 'Every weekday at 7:00 it turns on the kitchen lights.'"
            ),
        },
        "triggers": {
            "type": "array",
            "items": {"type": "object"},
            "description": (
                "Home Assistant triggers, e.g. {'trigger': 'time', 'at': '07:00:00'} or "
                "{'trigger': 'state', 'entity_id': 'binary_sensor.door', 'to': 'on'}."
            ),
        },
        "conditions": {
            "type": "array",
            "items": {"type": "object"},
            "description": (
                "Home Assistant conditions, e.g. {'condition': 'time', 'weekday': "
                "['mon', 'tue', 'wed', 'thu', 'fri']}."
            ),
        },
        "actions": {
            "type": "array",
            "items": {"type": "object"},
            "description": (
                "Home Assistant actions, e.g. {'action': 'light.turn_on', 'target': "
                "{'entity_id': 'light.kitchen'}}. Only exposed entities, by entity id."
            ),
        },
    },
    "required": ["alias", "summary", "triggers", "actions"],
}


@dataclass(frozen=True, slots=True)
class DraftAutomationTool:
    """The model's way to propose an automation; a person approves it before it exists."""

    drafting: Drafting | None
    """None where drafts cannot be kept (then the draft is only judged: evaluation)."""
    name: str = DRAFT_TOOL
    description: str = (
        "Draft a Home Assistant automation (triggers, optional conditions, actions) on exposed "
        "entities. Nothing is created: the draft waits for the user's approval. Use it when "
        "the user asks for something to happen automatically, at a time or on an event."
    )
    kind: str = "builtin"

    @property
    def parameters(self) -> JsonObject:
        """Alias, summary, triggers, conditions, actions."""
        return PARAMETERS

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject | ToolReply:
        """Judge, validate and keep the draft; a spoken approval is held like an action."""
        gate = context.gate
        if gate is None or context.home is None:
            raise ToolError("Home Assistant is not connected right now; try again in a moment")
        summary = " ".join(str(arguments.get("summary", "")).split())
        config = automation_config(arguments)
        judged = judge(config, gate)
        gate.decisions.extend(judged.decisions)
        if judged.refusal is not None:
            raise judged.refusal  # in the person's words, as any refusal by their rule
        if judged.refused is not None:
            raise ToolError(f"This automation is refused: {judged.refused}")
        if self.drafting is None:
            return _drafted(None, judged)
        try:
            problems = await self.drafting.problems(config)
        except AutomationDraftInvalid as err:
            raise ToolError(str(err)) from err
        if problems:
            raise ToolError("Home Assistant rejects the draft: " + "; ".join(problems))
        offer = await self.drafting.keep(Draft(config, summary, judged, context.conversation_id))
        if offer.confirm_by != "panel" and context.holds is not None:
            context.holds.held.append(
                HeldAction(
                    "automation",
                    "create",
                    judged.entities,
                    {"draft_id": offer.id},
                    (summary or str(config["alias"]),),
                    offer.confirm_by,
                    judged.pin_hash,
                    replay=self.drafting.approver(offer.id, f"spoken {offer.confirm_by}"),
                    why=f"draft #{offer.id}",
                )
            )
        return _drafted(offer.id, judged)


def automation_config(arguments: Mapping[str, JsonValue]) -> JsonObject:
    """The configuration Home Assistant stores, from the tool's arguments."""
    summary = " ".join(str(arguments.get("summary", "")).split())
    return {
        "alias": str(arguments.get("alias") or summary[:60] or "Home Agent automation"),
        "description": summary,
        "triggers": json_list(arguments.get("triggers")),
        "conditions": json_list(arguments.get("conditions")),
        "actions": json_list(arguments.get("actions")),
        "mode": "single",
    }


def json_list(value: JsonValue) -> JsonArray:
    """A copy of a list part of a configuration (the schema makes it one); none when not given."""
    return list(value) if isinstance(value, list) else []


def _drafted(draft_id: int | None, judged: Judgement) -> JsonObject:
    """What the model reads of a kept draft (a held one is replaced by the question)."""
    answer: JsonObject = {"success": True, "draft_id": draft_id, "approval": judged.confirm_by}
    if judged.covered:
        answer["covered"] = judged.covered
    if judged.confirm_by == "panel":
        answer["speech"] = (
            "Drafted, not created: it waits for approval on the Automations page of Home "
            "Agent. Tell the user in one or two plain sentences what it will do"
            + (
                f"; it includes {judged.covered}, which only the panel approves"
                * bool(judged.covered)
            )
            + "."
        )
    else:
        answer["speech"] = "Drafted, not created: it waits for the user's approval."
    return answer
