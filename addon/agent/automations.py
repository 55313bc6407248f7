"""Drafted automations, from the draft to Home Assistant: kept, approved, discarded, deleted.

The one place that changes a draft's state, for the ``draft_automation`` tool
(:mod:`addon.tools.automation`, through its :class:`~addon.tools.automation.Drafting` face), for a
spoken approval (the held action's replay) and for the Automations page. Home Assistant is reached
through the :class:`AutomationPort` (``addon.ha.automations`` implements it: ``validate_config``
over the WebSocket, the config API over REST); each change is stored (``automation_drafts``),
logged and fired as a ``home_agent_automation_*`` event.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Protocol

from addon.agent.events import (
    AUTOMATION_APPROVED,
    AUTOMATION_DELETED,
    AUTOMATION_DISABLED,
    AUTOMATION_DISCARDED,
    AUTOMATION_DRAFTED,
    EventOutbox,
)
from addon.errors import AutomationDraftInvalid, AutomationDraftState
from addon.home.actions.gate import Gate
from addon.store.automations import DraftRecords, StoredDraft
from addon.text import JsonObject, JsonValue
from addon.tools.automation import (
    HOME_AGENT_MARK,
    Draft,
    DraftAutomationTool,
    DraftOffer,
    automation_entities,
    json_list,
    judge,
)
from addon.tools.base import Tool

_LOGGER = logging.getLogger(__name__)


class AutomationPort(Protocol):
    """What drafts ask of Home Assistant (``addon.ha.automations.HomeAssistantAutomations``)."""

    async def validate(
        self,
        triggers: Sequence[JsonValue],
        conditions: Sequence[JsonValue],
        actions: Sequence[JsonValue],
    ) -> tuple[str, ...]:
        """Home Assistant's objections to the parts (none: valid)."""

    async def create(self, automation_id: str, config: Mapping[str, JsonValue]) -> None:
        """Create (or replace) the automation ``automation_id`` through the config API."""

    async def delete(self, automation_id: str) -> None:
        """Delete the automation ``automation_id`` through the config API."""

    async def turn_off(self, entity_id: str) -> None:
        """Disable the automation entity ``entity_id``."""


def automation_id_of(draft_id: int) -> str:
    """The id an approved draft is created with in Home Assistant."""
    return f"home_agent_draft_{draft_id}"


def draft_event(draft: StoredDraft, by: str | None = None) -> JsonObject:
    """``home_agent_automation_*``: which draft, what it does, its state, and who changed it."""
    return {
        "draft_id": draft.id,
        "alias": str(draft.config.get("alias", "")),
        "summary": draft.summary,
        "entities": list(draft.entities),
        "state": draft.state,
        "automation_id": draft.automation_id,
        "covered": draft.covered,
        "by": by,
    }


class AutomationDrafts:
    """Drafts kept, judged, validated, approved into Home Assistant, and undone."""

    def __init__(
        self,
        records: DraftRecords,
        port: AutomationPort | None,
        events: EventOutbox,
        gate_now: Callable[[], Awaitable[Gate | None]],
    ) -> None:
        self._records = records
        self._port = port
        self._events = events
        self._gate_now = gate_now
        """The gate a turn starting now would have (exposure, policy, rules): edits are judged."""

    @property
    def records(self) -> DraftRecords:
        """The drafts' rows, for the page's lists."""
        return self._records

    async def problems(self, config: Mapping[str, JsonValue]) -> tuple[str, ...]:
        """Home Assistant's objections to the configuration's triggers, conditions, actions."""
        if self._port is None:
            raise AutomationDraftInvalid("Home Assistant is not connected, so nothing is checked")
        return await self._port.validate(
            json_list(config.get("triggers")),
            json_list(config.get("conditions")),
            json_list(config.get("actions")),
        )

    async def keep(self, draft: Draft) -> DraftOffer:
        """Store a judged, validated draft, unapproved, with its conversation; fire ``_drafted``."""
        judged = draft.judged
        stored = await self._records.add(
            draft.summary,
            draft.config,
            judged.entities,
            covered=judged.covered,
            confirm_by=judged.confirm_by,
            conversation_id=draft.conversation_id,
        )
        _LOGGER.info("Automation draft %s kept: %s", stored.id, draft.summary)
        self._events.emit(AUTOMATION_DRAFTED, draft_event(stored))
        return DraftOffer(stored.id, judged.confirm_by)

    def approver(self, draft_id: int, by: str) -> Callable[[], Awaitable[object]]:
        """The held spoken approval's replay: approve the draft when the answer confirms it."""

        async def approve() -> StoredDraft:
            return await self.approve(draft_id, by)

        return approve

    async def approve(self, draft_id: int, by: str) -> StoredDraft:
        """Create the draft in Home Assistant, with an id and a description naming us."""
        draft = await self._records.get(draft_id)
        if draft.state != "draft":
            raise AutomationDraftState(f"draft {draft_id} is {draft.state}, not waiting")
        if self._port is None:
            raise AutomationDraftInvalid("Home Assistant is not connected")
        automation_id = automation_id_of(draft.id)
        config = dict(draft.config)
        config["description"] = (
            f"{HOME_AGENT_MARK} (draft {draft.id}, approved by {by}). {draft.summary}".strip()
        )
        await self._port.create(automation_id, config)
        approved = await self._records.set_state(
            draft.id, "approved", automation_id=automation_id, approved_by=by
        )
        _LOGGER.info("Automation draft %s approved by %s as %s", draft.id, by, automation_id)
        self._events.emit(AUTOMATION_APPROVED, draft_event(approved, by))
        return approved

    async def discard(self, draft_id: int, by: str) -> StoredDraft:
        """Drop a draft that was never approved."""
        draft = await self._records.get(draft_id)
        if draft.state != "draft":
            raise AutomationDraftState(f"draft {draft_id} is {draft.state}, not waiting")
        discarded = await self._records.set_state(draft.id, "discarded")
        _LOGGER.info("Automation draft %s discarded by %s", draft.id, by)
        self._events.emit(AUTOMATION_DISCARDED, draft_event(discarded, by))
        return discarded

    async def delete(self, draft_id: int, by: str) -> StoredDraft:
        """Delete an approved automation from Home Assistant (the row keeps what it was)."""
        draft = self._approved(await self._records.get(draft_id))
        assert self._port is not None
        assert draft.automation_id is not None
        await self._port.delete(draft.automation_id)
        deleted = await self._records.set_state(draft.id, "deleted")
        _LOGGER.info("Automation %s (draft %s) deleted by %s", draft.automation_id, draft.id, by)
        self._events.emit(AUTOMATION_DELETED, draft_event(deleted, by))
        return deleted

    async def disable(self, draft_id: int, entity_id: str, by: str) -> StoredDraft:
        """Turn an approved automation off (``automation.turn_off`` on its entity)."""
        draft = self._approved(await self._records.get(draft_id))
        assert self._port is not None
        await self._port.turn_off(entity_id)
        _LOGGER.info("Automation %s (draft %s) disabled by %s", entity_id, draft.id, by)
        self._events.emit(AUTOMATION_DISABLED, draft_event(draft, by))
        return draft

    async def revise(self, draft_id: int, config: Mapping[str, JsonValue]) -> StoredDraft:
        """A draft edited on the page: judged by the gate and validated again, then kept."""
        draft = await self._records.get(draft_id)
        if draft.state != "draft":
            raise AutomationDraftState(f"draft {draft_id} is {draft.state}, not waiting")
        for key in ("triggers", "actions"):
            if not isinstance(config.get(key), list) or not config.get(key):
                raise AutomationDraftInvalid(f"an automation needs a list of {key}")
        gate = await self._gate_now()
        if gate is None:
            raise AutomationDraftInvalid("Home Assistant is not connected, so nothing is checked")
        judged = judge(config, gate)
        if judged.refused is not None:
            raise AutomationDraftInvalid(f"refused: {judged.refused}")
        problems = await self.problems(config)
        if problems:
            raise AutomationDraftInvalid("Home Assistant rejects it: " + "; ".join(problems))
        summary = str(config.get("description") or draft.summary)
        revised = await self._records.revise(
            draft.id,
            summary,
            config,
            automation_entities(config),
            covered=judged.covered,
            confirm_by=judged.confirm_by,
        )
        _LOGGER.info("Automation draft %s edited", draft.id)
        return revised

    def _approved(self, draft: StoredDraft) -> StoredDraft:
        if draft.state != "approved" or draft.automation_id is None:
            raise AutomationDraftState(f"draft {draft.id} is {draft.state}, not approved")
        if self._port is None:
            raise AutomationDraftInvalid("Home Assistant is not connected")
        return draft

    async def drain(self) -> None:
        """Fire the events still queued (at shutdown)."""
        await self._events.drain()


class KeptDrafts:
    """Drafts kept in memory, not validated, never created: an evaluation's copy of the home.

    An evaluation runs on a virtual home with no Home Assistant to validate or create
    automations; what the model drafted (and whether the answer approved it) is kept here for
    the scorer (:func:`addon.eval.scoring.automation_problems`).
    """

    def __init__(self) -> None:
        self.kept: list[JsonObject] = []
        self.approved: list[int] = []

    async def problems(self, config: Mapping[str, JsonValue]) -> tuple[str, ...]:
        """Nothing to validate against."""
        return ()

    async def keep(self, draft: Draft) -> DraftOffer:
        """Keep the configuration; its number counts from 1 (a run keeps no conversation)."""
        self.kept.append(dict(draft.config))
        return DraftOffer(len(self.kept), draft.judged.confirm_by)

    def approver(self, draft_id: int, by: str) -> Callable[[], Awaitable[object]]:
        """Note the approval."""

        async def approve() -> None:
            self.approved.append(draft_id)

        return approve


def draft_tools(drafting: AutomationDrafts | KeptDrafts) -> Callable[[], list[Tool]]:
    """The agent's ``extra_tools`` offering ``draft_automation`` over ``drafting``."""
    tools: list[Tool] = [DraftAutomationTool(drafting)]
    return lambda: list(tools)
