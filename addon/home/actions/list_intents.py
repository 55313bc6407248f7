"""Completing, removing and shopping-list items, through the ``todo`` services.

Ports of Home Assistant 2026.11's ``ListCompleteItemIntentHandler`` and
``ListRemoveItemIntentHandler`` (``components/todo/intent.py``) and the shopping list's
``AddItemIntent`` and ``CompleteItemIntent`` (``components/shopping_list/intent.py``). Home
Assistant's handlers change the list entity (or the shopping list's data) directly; we read the
items with ``todo.get_items`` and change them with ``todo.update_item``/``todo.remove_item``/
``todo.add_item`` on the matched list, so each change goes through the turn's executor (exposure,
dry run, confirmation) and names the entity it changes. The item is named by its ``uid``, so the
item changed is the one the handler chose, whatever other items share its summary.

The shopping list intents name no list: they act on the shopping list integration's to-do
entity (its registry platform is ``shopping_list``), which must be exposed like any other.
"""

from __future__ import annotations

from collections.abc import Mapping

from addon.errors import ToolError
from addon.home.actions.executor import Executor, ServiceCall
from addon.home.actions.intents import ASSISTANT
from addon.home.actions.request import IntentRequest
from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    TargetType,
)
from addon.home.actions.wire import as_object, objects
from addon.home.model.live import HomeModel
from addon.home.model.records import EntityState
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints
from addon.text import JsonArray, JsonValue

NEEDS_ACTION = "needs_action"
COMPLETED = "completed"
SHOPPING_LIST_PLATFORM = "shopping_list"


async def change_list_item(request: IntentRequest) -> IntentResult:
    """HassListCompleteItem / HassListRemoveItem: the first matching item of the named list.

    Completing looks only at open items; removing at every item. An item matches by its uid or
    by its summary up to case (2026.11's rule), after the spoken item is stripped.
    """
    list_name = str(request.slots["name"])
    item = str(request.slots["item"]).strip()
    constraints = MatchTargetsConstraints(name=list_name, domains={"todo"}, assistant=ASSISTANT)
    result = match_targets(request.model, constraints)
    if not result.is_match:
        return request.no_match(result, constraints)
    todo = result.states[0]
    complete = request.intent == "HassListCompleteItem"
    try:
        items = await _items(request.executor, todo.entity_id)
        found = next(
            (
                entry
                for entry in items
                if (item == entry.get("uid") or item.casefold() == _summary(entry).casefold())
                and (not complete or entry.get("status") == NEEDS_ACTION)
            ),
            None,
        )
        if found is None or not found.get("uid"):
            message = f"Item '{item}' not found on list"
            return request.error(ErrorCode.FAILED_TO_HANDLE, message)
        uid = str(found["uid"])
        if complete:
            call = ServiceCall(
                "todo", "update_item", (todo.entity_id,), {"item": uid, "status": COMPLETED}
            )
        else:
            call = ServiceCall("todo", "remove_item", (todo.entity_id,), {"item": [uid]})
        await request.perform(call)
    except ToolError as err:
        return request.error(ErrorCode.FAILED_TO_HANDLE, str(err))
    return request.done(
        (call,),
        # Home Assistant names the target with the list name the caller said.
        success=(IntentTarget(list_name, TargetType.ENTITY, todo.entity_id),),
    )


async def shopping_list_add(request: IntentRequest) -> IntentResult:
    """HassShoppingListAddItem: add the item, unless it is already there.

    As the shopping list does: an open item of that name (up to case) leaves the list as it
    is; a completed one is opened again; otherwise the item is added.
    """
    item = str(request.slots["item"]).strip()
    todo = _shopping_list(request.model)
    if todo is None:
        return _no_shopping_list(request)
    try:
        items = await _items(request.executor, todo.entity_id)
        same = [entry for entry in items if _summary(entry).casefold() == item.casefold()]
        calls: tuple[ServiceCall, ...] = ()
        if not any(entry.get("status") == NEEDS_ACTION for entry in same):
            done = next((entry for entry in same if entry.get("uid")), None)
            call = (
                ServiceCall(
                    "todo",
                    "update_item",
                    (todo.entity_id,),
                    {"item": str(done["uid"]), "status": NEEDS_ACTION},
                )
                if done is not None
                else ServiceCall("todo", "add_item", (todo.entity_id,), {"item": item})
            )
            await request.perform(call)
            calls = (call,)
    except ToolError as err:
        return request.error(ErrorCode.FAILED_TO_HANDLE, str(err))
    return request.done(
        calls,
    )


async def shopping_list_complete(request: IntentRequest) -> IntentResult:
    """HassShoppingListCompleteItem: complete every open item of exactly that name.

    The shopping list compares names exactly; none matching is no error (Home Assistant
    answers as if it had checked the item off).
    """
    item = str(request.slots["item"]).strip()
    todo = _shopping_list(request.model)
    if todo is None:
        return _no_shopping_list(request)
    calls: list[ServiceCall] = []
    try:
        items = await _items(request.executor, todo.entity_id)
        for entry in items:
            if _summary(entry) == item and entry.get("status") == NEEDS_ACTION and entry.get("uid"):
                call = ServiceCall(
                    "todo",
                    "update_item",
                    (todo.entity_id,),
                    {"item": str(entry["uid"]), "status": COMPLETED},
                )
                await request.perform(call)
                calls.append(call)
    except ToolError as err:
        return request.error(ErrorCode.FAILED_TO_HANDLE, str(err))
    completed: JsonArray = [{"name": item, "complete": True} for _call in calls]
    return request.done(
        tuple(calls),
        speech_slots={"completed_items": completed},
    )


async def _items(executor: Executor, entity_id: str) -> list[Mapping[str, JsonValue]]:
    """The list's items (open and completed) as ``todo.get_items`` answers."""
    answer = await executor.read(
        ServiceCall("todo", "get_items", (entity_id,), {"status": [NEEDS_ACTION, COMPLETED]})
    )
    return list(objects(as_object(answer.get(entity_id)).get("items")))


def _summary(item: Mapping[str, JsonValue]) -> str:
    """An item's summary as text ("" when it has none)."""
    return str(item.get("summary") or "")


def _shopping_list(model: HomeModel) -> EntityState | None:
    """The shopping list integration's to-do entity, if it is exposed."""
    for entity_id in model.index.by_domain.get("todo", ()):
        entity = model.entity(entity_id)
        if entity is None or not model.is_exposed(entity_id):
            continue
        platform = entity.entry.platform if entity.entry is not None else None
        if platform == SHOPPING_LIST_PLATFORM or (
            platform is None and entity_id == "todo.shopping_list"
        ):
            return model.state(entity_id)
    return None


def _no_shopping_list(request: IntentRequest) -> IntentResult:
    """The answer when no exposed shopping list exists."""
    message = "No exposed shopping list: add the Shopping list integration and expose its list"
    return request.error(ErrorCode.FAILED_TO_HANDLE, message)
