"""A to-do list that takes items only through Home Assistant's intent (issue 13's trader joe's)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from addon.ha.client import HomeAssistantClient
from addon.home.actions.handlers import handle_intent
from addon.home.actions.live import LiveExecutor
from addon.home.model.live import HomeModel
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.local.conftest import home_dicts

LIST_ID = "todo.trader_joe_s"


def lists_home(features: int, *, twin: bool = False) -> HomeModel:
    """The test home with a "Trader Joe's" list declaring ``features``.

    ``twin`` adds a list of the same name that Assist does not see.
    """
    extra = {LIST_ID: ("kitchen", "Trader Joe's", [], "0", {"supported_features": features})}
    if twin:
        extra["todo.trader_joe_s_2"] = ("office", "Trader Joe's", [], "0", {})
    dicts = home_dicts(extra)
    if twin:
        dicts["entity_details"]["todo.trader_joe_s_2"] = {
            "aliases": [],
            "options": {"conversation": {"should_expose": False}},
        }
    return HomeModel.build(**dicts)


async def refuse_unsupported(connection: FakeConnection, message: dict[str, Any]) -> None:
    """``todo.add_item`` refused as Home Assistant refuses a list without CREATE_TODO_ITEM."""
    await connection.error(
        message["id"],
        "service_validation_error",
        f"Entity {LIST_ID} does not support action todo.add_item",
    )


def intent_done(entity_id: str) -> dict[str, Any]:
    """``/api/intent/handle``'s answer for HassListAddItem on ``entity_id``."""
    return {
        "speech": {},
        "response_type": "action_done",
        "data": {
            "targets": [],
            "success": [{"name": "Trader Joe's", "type": "entity", "id": entity_id}],
            "failed": [],
        },
        "language": "en",
    }


async def add_apples(client: HomeAssistantClient, model: HomeModel) -> Any:
    return await handle_intent(
        "HassListAddItem",
        {"item": "apples", "name": "trader joe's"},
        model=model,
        executor=LiveExecutor(client),
        language="en",
        now=datetime.now(UTC),
    )


async def test_a_list_refusing_the_service_gets_the_item_through_the_intent(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """As Home Assistant's HassListAddItem, which adds directly: the item is added, no error."""
    fake_ha.handlers["call_service"] = refuse_unsupported
    fake_ha.rest_answer = (200, intent_done(LIST_ID))

    result = await add_apples(client, lists_home(features=0))

    assert not result.is_error, result.message
    posts = [(path, body) for method, path, _h, body in fake_ha.rest_requests if method == "POST"]
    assert posts == [
        (
            "/api/intent/handle",
            {"name": "HassListAddItem", "data": {"item": "apples", "name": "Trader Joe's"}},
        )
    ]


async def test_a_shared_list_name_never_goes_through_the_intent(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The intent finds a list by name among all; with a hidden twin the refusal is reported."""
    fake_ha.handlers["call_service"] = refuse_unsupported

    result = await add_apples(client, lists_home(features=0, twin=True))

    assert result.is_error
    assert "does not support" in (result.message or "")
    assert not fake_ha.rest_requests


async def test_an_intent_that_acts_elsewhere_is_a_failure(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """An answer naming another list is not taken as success."""
    fake_ha.handlers["call_service"] = refuse_unsupported
    fake_ha.rest_answer = (200, intent_done("todo.other"))

    result = await add_apples(client, lists_home(features=0))

    assert result.is_error
