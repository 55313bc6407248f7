"""What every turn starts from: the tools' context, with the executor the turn acts through.

The executor is the gate's choice of live or virtual (:func:`addon.home.actions.gate.executor_for`),
wrapped by the confirmation policy's :class:`~addon.home.actions.confirmation.ConfirmingExecutor`
when there is one, and outermost by :class:`~addon.agent.state_record.RecordingExecutor`, so the
states a turn touches are noted whoever holds the call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from addon.agent.state_record import RecordingExecutor
from addon.home.actions.actor import Actor
from addon.home.actions.confirmation import ConfirmationPolicy, ConfirmingExecutor, Holds
from addon.home.actions.executor import Executor
from addon.home.actions.gate import executor_for
from addon.home.actions.impact import ImpactCache
from addon.home.actions.permissions import Access, ActorRules
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.tools.base import ToolContext


@dataclass(frozen=True, slots=True)
class TurnSetup:
    """Builds a turn's :class:`ToolContext`; ``confirmation`` is the policy as it stands."""

    live_executor: Executor | None
    confirmation: Callable[[], ConfirmationPolicy] | None
    impacts: ImpactCache = field(default_factory=ImpactCache)
    """What calls do in the current home, kept while the home model and its revision last."""
    rules: Callable[[], ActorRules] | None = None
    """The persons' and satellites' rules as they stand (the Safety page's); None: none."""

    def context(
        self,
        model: HomeModel | None,
        language: str,
        created_at: datetime,
        device_id: str | None,
        dry_run: bool,
        actor: Actor | None = None,
        conversation_id: str | None = None,
    ) -> ToolContext:
        """The context of a turn from ``device_id`` (None: no particular one) by ``actor``.

        The actor's rules join the turn's ``Holds``: the gate judges every call by them.
        """
        area_id = _device_area(model, device_id)
        executor = self.executor(model, dry_run)
        holds = self.holds(model, actor, language)
        if holds is not None and executor is not None:
            executor = ConfirmingExecutor(executor, holds)
        if executor is not None and model is not None:
            # Outermost, so the states a turn touches are noted whoever holds the call.
            executor = RecordingExecutor(executor, model)
        # Every read of the turn's home, as the gate lets the actor read it (their "none" hidden).
        home = holds.readable(model) if holds is not None and model is not None else model
        return ToolContext(
            home=home,
            executor=executor,
            holds=holds,
            language=language,
            now=_local_time(model, created_at),
            device_id=device_id,
            area_id=area_id,
            floor_id=model.areas[area_id].floor_id if model and area_id else None,
            dry_run=dry_run,
            actor=actor,
            conversation_id=conversation_id,
        )

    def executor(self, model: HomeModel | None, dry_run: bool) -> Executor | None:
        """The turn's plain executor: the gate's choice of live or virtual."""
        if model is None:
            return None
        return executor_for(dry_run, self.live_executor, lambda: VirtualExecutor(model.copy()))

    def holds(
        self, model: HomeModel | None, actor: Actor | None = None, language: str = "en"
    ) -> Holds | None:
        """The turn's confirmation policy and actor's rules, naming entities from the home model.

        None when there is neither. Also what the panel's "Try it" of a custom tool checks its
        calls against, so a try is held exactly where a turn would be.
        """
        access = self.access(model, actor, language)
        if self.confirmation is None and access is None:
            return None

        def describe(entity_id: str) -> tuple[str | None, str]:
            entity = model.entity(entity_id) if model is not None else None
            return (entity.device_class, entity.name) if entity is not None else (None, entity_id)

        def describe_group(kind: str, group_id: str) -> str:
            return group_name(model, kind, group_id)

        policy = self.confirmation() if self.confirmation is not None else ConfirmationPolicy()
        impacts = self.impacts.of(model)
        return Holds(policy, describe, describe_group, impacts=impacts, access=access)

    def access(self, model: HomeModel | None, actor: Actor | None, language: str) -> Access | None:
        """The rules that apply to ``actor`` in this turn (None: none, or no actor known)."""
        if self.rules is None or actor is None:
            return None

        def area_of(entity_id: str) -> str | None:
            entity = model.entity(entity_id) if model is not None else None
            return entity.area_id if entity is not None else None

        return self.rules().access(actor, area_of, language)


def group_name(model: HomeModel | None, kind: str, group_id: str) -> str:
    """What the user calls an area, floor or device (its registry name); else its id in words."""
    name: str | None = None
    if model is not None and kind == "area" and group_id in model.areas:
        name = model.areas[group_id].name
    elif model is not None and kind == "floor" and group_id in model.floors:
        name = model.floors[group_id].name
    elif model is not None and kind == "device" and group_id in model.devices:
        name = model.devices[group_id].name
    return name or group_id.replace("_", " ")


def _device_area(model: HomeModel | None, device_id: str | None) -> str | None:
    if model is None or device_id is None:
        return None
    device = model.devices.get(device_id)
    return device.area_id if device is not None else None


def _local_time(model: HomeModel | None, at: datetime) -> datetime:
    """``at`` in the home's time zone (UTC when it has none or an unknown one)."""
    zone_name = model.config.get("time_zone") if model is not None else None
    try:
        zone = ZoneInfo(zone_name) if isinstance(zone_name, str) else UTC
    except ZoneInfoNotFoundError:
        zone = UTC
    return at.astimezone(zone)
