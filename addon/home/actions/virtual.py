"""The virtual executor: service calls applied to an in-memory copy of the home.

Dry runs, the demo and evaluation need to know what an action *would* do without touching the
real home. :class:`VirtualExecutor` takes a :class:`~addon.home.model.live.HomeModel` (give it a
``copy()``; it changes the model it holds) and applies each call with the rules in
:mod:`addon.home.actions.effects`, which mimic Home Assistant's entity services and demo
platforms. Because intents resolve targets against the same model, a sequence of intents on a
virtual executor sees its own earlier effects, as a live home would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from addon.errors import ToolError
from addon.home.actions import effects
from addon.home.actions.executor import (
    ExecutorName,
    HandedAnswer,
    HandedSentence,
    ReadState,
    ScriptRun,
    ServiceCall,
)
from addon.home.actions.light_effects import Effect, LightMemory
from addon.home.actions.slots import SlotValue
from addon.home.actions.wire import items, objects
from addon.home.model.live import HomeModel
from addon.text import JsonArray, JsonObject, JsonValue


def _utc_now() -> datetime:
    return datetime.now(UTC)


class VirtualExecutor:
    """Carries out service calls on a model instead of a Home Assistant."""

    __slots__ = ("_calls", "_clock", "_handed", "_lights", "_lists", "_model")

    def __init__(self, model: HomeModel, *, clock: Callable[[], datetime] = _utc_now) -> None:
        self._model = model
        self._clock = clock
        self._lights = LightMemory()
        self._lists: dict[str, list[dict[str, str]]] = {}
        self._calls: list[ServiceCall] = []
        self._handed: list[HandedSentence] = []

    @property
    def name(self) -> ExecutorName:
        """Always ``"virtual"``."""
        return "virtual"

    @property
    def model(self) -> HomeModel:
        """The home as the calls so far have left it."""
        return self._model

    @property
    def calls(self) -> tuple[ServiceCall, ...]:
        """Every call that took effect, in order (what a dry run reports)."""
        return tuple(self._calls)

    async def call_service(self, call: ServiceCall, *, wait: float | None = None) -> None:
        """Apply the call to each entity; raise ToolError where Home Assistant would refuse.

        Entities the model has no state for are skipped, as Home Assistant skips (and only
        logs) entity ids it cannot find. ``wait`` is irrelevant here: nothing runs long.
        A script's own service (``script.<key>``, what a script tool calls) is only recorded:
        what a script does is not known here.
        """
        domain, service, entity_ids, data = call.domain, call.service, call.entity_ids, call.data
        # Kept as it was made: a caller's data changed afterwards is not what was done.
        done = ServiceCall(domain, service, tuple(entity_ids), dict(data))
        if domain == "script" and self._model.has_script_service(service):
            self._calls.append(done)
            return
        if not effects.has_service(domain, service):
            effects.check_service(domain, service, "", {})
        now = self._clock()
        for entity_id in entity_ids:
            current = self._model.state(entity_id)
            if current is None:
                continue
            effects.check_service(domain, service, entity_id, current.attributes)
            outcome = effects.apply(
                domain,
                service,
                entity_id,
                current.state,
                current.attributes,
                data,
                memory=self._lights,
                now=now,
            )
            if domain == "todo":
                outcome = self._change_list(entity_id, service, data, outcome)
            if outcome is not None:
                self._model.set_state(
                    entity_id, outcome.state, outcome.attributes, when=now.timestamp()
                )
        self._calls.append(done)

    def _items(self, entity_id: str) -> list[dict[str, str]]:
        """The list's items (uid, summary, status): the fixture's open ones, then changes."""
        if entity_id not in self._lists:
            current = self._model.state(entity_id)
            seeded = items(current.attributes.get("items")) if current is not None else []
            self._lists[entity_id] = [
                {"uid": f"{entity_id}-{index}", "summary": str(name), "status": "needs_action"}
                for index, name in enumerate(seeded)
            ]
        return self._lists[entity_id]

    def _change_list(
        self,
        entity_id: str,
        service: str,
        data: Mapping[str, JsonValue],
        outcome: Effect | None,
    ) -> Effect | None:
        """``todo.add_item``/``update_item``/``remove_item`` on the list's items.

        Items are found as the services find them, by uid or by summary; one that is not on
        the list is refused with Home Assistant's words. The state becomes the open count.
        """
        items = self._items(entity_id)
        if service == "add_item":
            uid = f"{entity_id}-{len(items)}"
            items.append({"uid": uid, "summary": str(data["item"]), "status": "needs_action"})
            return outcome
        asked = data["item"] if service == "remove_item" else [data["item"]]
        wanted = [str(item) for item in (asked if isinstance(asked, list) else [asked])]
        for key in wanted:
            found = next((i for i in items if key in (i["uid"], i["summary"])), None)
            if found is None:
                raise ToolError(f"Unable to find To-do item: {key}")
            if service == "remove_item":
                items.remove(found)
            elif "status" in data:
                found["status"] = str(data["status"])
        current = self._model.state(entity_id)
        attributes: JsonObject = dict(current.attributes) if current is not None else {}
        count = sum(1 for item in items if item["status"] == "needs_action")
        return Effect(str(count), attributes)

    async def run_script(
        self, service: str, variables: Mapping[str, JsonValue], *, wait: float
    ) -> ScriptRun:
        """Record the script's call; there is no response, since nothing here runs a script."""
        await self.call_service(ServiceCall("script", service, (), variables), wait=wait)
        return ScriptRun()

    async def has_service(self, domain: str, service: str) -> bool:
        """True when the virtual home offers ``domain.service``."""
        if domain == "script" and self._model.has_script_service(service):
            return True
        return effects.has_service(domain, service)

    async def handle_intent(self, intent: str, slots: Mapping[str, SlotValue]) -> tuple[str, ...]:
        """Never needed: the virtual home's ``todo.add_item`` adds to any list, as the intent."""
        raise ToolError(f"{intent} runs in Home Assistant only, not in the virtual home")

    async def hand_over(self, sentence: HandedSentence) -> HandedAnswer:
        """Nothing is sent: a dry run starts no timer and plays no broadcast."""
        self._handed.append(sentence)
        return HandedAnswer("", "action_done", handed=False)

    @property
    def handed(self) -> tuple[HandedSentence, ...]:
        """The sentences a live run would have handed to Home Assistant, in order."""
        return tuple(self._handed)

    async def read(self, call: ServiceCall) -> Mapping[str, JsonValue]:
        """What the virtual home knows: a list's items, a calendar's events, as attributes.

        An evaluation fixture gives a to-do list's open items as ``attributes.items`` and a
        calendar's events as ``attributes.events`` (``summary``, ``start``, ``end``); a list's
        items as this executor changed them, with the statuses asked for (default: all).
        ``media_player.search_media`` finds what a player's ``attributes.media_library``
        (``title``, ``media_content_id``, ``media_content_type``, ``media_class``) has whose
        title holds the query. Any other read answers nothing.
        """
        domain, service, data = call.domain, call.service, call.data
        answer: JsonObject = {}
        for entity_id in call.entity_ids:
            current = self._model.state(entity_id)
            if current is None:
                continue
            if (domain, service) == ("todo", "get_items"):
                status = data.get("status")
                statuses = ([status] if isinstance(status, str) else items(status)) or [
                    "needs_action",
                    "completed",
                ]
                listed: JsonArray = [
                    dict[str, JsonValue](item)
                    for item in self._items(entity_id)
                    if item["status"] in statuses
                ]
                answer[entity_id] = {"items": listed}
            elif (domain, service) == ("calendar", "get_events"):
                answer[entity_id] = {"events": _on_days(current.attributes.get("events"), data)}
            elif (domain, service) == ("media_player", "search_media"):
                answer[entity_id] = {"result": _search(current.attributes, data)}
        return answer

    async def state(self, entity_id: str) -> ReadState | None:
        """The entity's state in the virtual home."""
        current = self._model.state(entity_id)
        if current is None:
            return None
        return ReadState(current.entity_id, current.state, dict(current.attributes))


def _search(attributes: Mapping[str, JsonValue], data: Mapping[str, JsonValue]) -> JsonArray:
    """The library items whose title holds the query, of the classes asked for if any."""
    query = str(data.get("search_query") or "").casefold()
    classes = items(data.get("media_filter_classes"))
    return [
        dict(item)
        for item in objects(attributes.get("media_library"))
        if query in str(item.get("title") or "").casefold()
        and (not classes or item.get("media_class") in classes)
    ]


def _on_days(events: JsonValue, data: Mapping[str, JsonValue]) -> JsonArray:
    """The events that start on the days ``data`` asks for (by their ISO dates)."""
    first = str(data.get("start_date_time") or "")[:10]
    last = str(data.get("end_date_time") or "")[:10]
    return [
        dict(event)
        for event in objects(events)
        if not first or first <= str(event.get("start") or "")[:10] < (last or "9999")
    ]
