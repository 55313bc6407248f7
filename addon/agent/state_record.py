"""The states of the entities a turn acted on, before and after, for "Save as test".

A test made from a turn needs the home as it was before the sentence (its ``setup``) and the
changes that followed (its ``expect``). The live home model is updated in place as Home
Assistant reports changes, so the states before cannot be read back later: they are read from
the home model the turn started from (the live mirror: no request to Home Assistant on the
reply's path) just before the first call on each entity. "After" is read back only from a
virtual executor, which changes at once and in memory; for the live home the outcome check's
reading a few seconds later is the "after".

Only the state and the attributes a task file compares are kept, for at most
:data:`MAX_ENTITIES` entities, so "turn off every light" in a large home stays a small record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from addon.home.actions.executor import Executor, ForwardingExecutor, ServiceCall
from addon.home.actions.slots import SlotValue
from addon.home.model.live import HomeModel
from addon.text import JsonObject, JsonValue

MAX_ENTITIES = 50
KEPT_ATTRIBUTES = (
    "brightness",
    "color_temp_kelvin",
    "rgb_color",
    "current_position",
    "percentage",
    "volume_level",
    "is_volume_muted",
    "temperature",
)


class RecordingExecutor(ForwardingExecutor):
    """An :class:`Executor` that passes every call on and notes the states it touched.

    What a script touches is not known beforehand, and Home Assistant's agent (a handed-over
    sentence) acts on no entity we could note: both are passed on unnoted.
    """

    __slots__ = ("_home", "after", "before")

    def __init__(self, inner: Executor, home: HomeModel) -> None:
        super().__init__(inner)
        self._home = home
        self.before: JsonObject = {}
        self.after: JsonObject = {}
        """Each entity's kept state (``_kept``), by entity id: JSON, as the turn stores it."""

    def states(self) -> JsonObject | None:
        """What the turn stores: ``{"before": {...}, "after": {...}}``, None if nothing acted."""
        if not self.before:
            return None
        return {"before": self.before, "after": self.after}

    async def call_service(self, call: ServiceCall, *, wait: float | None = None) -> None:
        """Note the states before the first call on each entity, call, then note them after."""
        for entity_id in call.entity_ids:
            state = self._home.state(entity_id)
            if entity_id not in self.before and state and len(self.before) < MAX_ENTITIES:
                self.before[entity_id] = _kept(state.state, state.attributes)
        await self._inner.call_service(call, wait=wait)
        await self._note_after(call.entity_ids)

    async def handle_intent(self, intent: str, slots: Mapping[str, SlotValue]) -> tuple[str, ...]:
        """Passed on; the entities acted on are noted after only."""
        acted = await self._inner.handle_intent(intent, slots)
        await self._note_after(acted)
        return acted

    async def _note_after(self, entity_ids: Sequence[str]) -> None:
        if self._inner.name != "virtual":
            return
        for entity_id in entity_ids:
            if entity_id in self.before and (read := await self._inner.state(entity_id)):
                self.after[entity_id] = _kept(read.state, read.attributes)


def _kept(state: str, attributes: Mapping[str, JsonValue]) -> JsonObject:
    kept: JsonObject = {
        key: attributes[key] for key in KEPT_ATTRIBUTES if attributes.get(key) is not None
    }
    return {"state": state, **({"attributes": kept} if kept else {})}
