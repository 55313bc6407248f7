"""Questions answered locally from the real Home Assistant demo home, in two languages.

No model is configured: every answer comes from the local path (Home Assistant's sentences or
ours) and the live home. Each test sets the states it reads first (idempotently), so the
module's tests share one Home Assistant.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from addon import keys
from addon.agent.conversation import ConversationRequest, ConversationResult
from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.app import MakeApp, MakeSettings

# Our local answers, read from a real home: on the release people run (docs/DECISIONS.md).
pytestmark = [pytest.mark.homeassistant, pytest.mark.newest_ha_only]

BATTERY = "sensor.motion_sensor_battery"
WINDOW = "binary_sensor.bedroom_window"
EXPOSED = (
    "weather.demo_weather_south",
    "calendar.calendar_1",
    "calendar.calendar_2",
    "todo.shopping_list",
    BATTERY,
    WINDOW,
)
ITEMS = ("milk", "eggs")


async def _shopping_list(home: HomeAssistantProcess) -> None:
    """The shopping list integration's to-do list, added once through its config flow."""
    entries = await home.request("GET", "/api/config/config_entries/entry?domain=shopping_list")
    if entries:
        return
    flows = "/api/config/config_entries/flow"
    flow = await home.request("POST", flows, {"handler": "shopping_list"})
    if flow["type"] == "form":
        await home.request("POST", f"{flows}/{flow['flow_id']}", {})


async def _bathroom(home: HomeAssistantProcess) -> None:
    """An area "Bathroom" holding the demo's humidity sensor."""
    areas = await home.websocket_command({"type": "config/area_registry/list"})
    area = next((a for a in areas if a["name"] == "Bathroom"), None)
    if area is None:
        area = await home.websocket_command(
            {"type": "config/area_registry/create", "name": "Bathroom"}
        )
    await home.put_in_area("sensor.outside_humidity", area["area_id"])


async def _todo_items(home: HomeAssistantProcess) -> list[str]:
    """The shopping list's open items, as Home Assistant reads them."""
    answer = await home.request(
        "POST",
        "/api/services/todo/get_items?return_response",
        {"entity_id": "todo.shopping_list", "status": "needs_action"},
    )
    return [item["summary"] for item in answer["service_response"]["todo.shopping_list"]["items"]]


async def prepare(home: HomeAssistantProcess) -> None:
    """The demo home plus what the questions read: a battery, a window, a bathroom, a list."""
    await _shopping_list(home)
    await _bathroom(home)
    await home.request(
        "POST",
        f"/api/states/{BATTERY}",
        {
            "state": "87",
            "attributes": {
                "friendly_name": "Motion Sensor Battery",
                "device_class": "battery",
                "unit_of_measurement": "%",
            },
        },
    )
    await home.request(
        "POST",
        f"/api/states/{WINDOW}",
        {
            "state": "on",
            "attributes": {"friendly_name": "Bedroom Window", "device_class": "window"},
        },
    )
    await home.expose_entities(EXPOSED)
    await home.request(
        "POST", "/api/services/cover/close_cover", {"entity_id": "cover.garage_door"}
    )
    await home.request(
        "POST", "/api/services/media_player/media_play", {"entity_id": "media_player.walkman"}
    )
    missing = [item for item in ITEMS if item not in await _todo_items(home)]
    for item in missing:
        await home.request(
            "POST", "/api/services/todo/add_item", {"entity_id": "todo.shopping_list", "item": item}
        )


@pytest.fixture
async def ask(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    module_home_assistant: HomeAssistantProcess,
) -> Callable[[str, str], Any]:
    """Ask Home Agent (no model) a question in a language, once the home is prepared."""
    home = module_home_assistant
    await prepare(home)
    client: TestClient[Any, Any] = await aiohttp_client(
        make_app(make_settings(ha_url=home.url, ha_token=home.token))
    )
    await client.server.app[keys.HOME_SYNC].wait_ready(20.0)
    agent = client.server.app[keys.AGENT]

    async def question(text: str, language: str) -> ConversationResult:
        result: ConversationResult = await agent.process(
            ConversationRequest(text, source="http", language=language)
        )
        return result

    return question


def words(reply: str) -> set[str]:
    """The whole words of a reply, case-folded (numbers keep their decimal mark)."""
    return set(re.findall(r"\w+(?:[.,]\d+)?", reply.casefold()))


async def lights_on(home: HomeAssistantProcess) -> int:
    """How many lights of the demo home are on now."""
    return sum(
        state["entity_id"].startswith("light.") and state["state"] == "on"
        for state in await home.states()
    )


@pytest.mark.parametrize(
    ("language", "text"), [("en", "how many lights are on"), ("de", "wie viele Lichter sind an")]
)
async def test_a_count_of_lights_on_is_the_homes(
    ask: Any, module_home_assistant: HomeAssistantProcess, language: str, text: str
) -> None:
    """Asking how many lights are on answers the number Home Assistant shows."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert str(await lights_on(module_home_assistant)) in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "how many windows are open"), ("de", "wie viele Fenster sind offen")],
)
async def test_a_count_of_open_windows_includes_window_sensors(
    ask: Any, language: str, text: str
) -> None:
    """The open bedroom window, a contact sensor, is counted among the open windows."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert "1" in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "what is the battery level of the motion sensor"),
        ("de", "wie ist der Batteriestand vom Motion Sensor"),
    ],
)
async def test_a_sensor_value_by_kind_and_device(ask: Any, language: str, text: str) -> None:
    """The battery level of the motion sensor is its battery sensor's value."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert "87" in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "what's the humidity in the bathroom"),
        ("de", "wie hoch ist die Luftfeuchtigkeit im Bathroom"),
    ],
)
async def test_a_sensor_value_by_kind_and_area(ask: Any, language: str, text: str) -> None:
    """The humidity in the bathroom is the humidity sensor placed there."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert "54" in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text", "yes"),
    [
        ("en", "is the garage door closed, answer yes or no", "yes"),
        ("de", "ist die Garage Door geschlossen? Antworte mit ja oder nein", "ja"),
    ],
)
async def test_a_yes_or_no_question_with_answer_yes_or_no(
    ask: Any, language: str, text: str, yes: str
) -> None:
    """A state question followed by "answer yes or no" still gets the state's yes."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert yes in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text", "yes"),
    [("en", "is the walkman playing", "yes"), ("de", "spielt der Walkman", "ja")],
)
async def test_a_media_players_state(ask: Any, language: str, text: str, yes: str) -> None:
    """Whether the walkman is playing is answered from its state."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert yes in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text", "yes"),
    [("en", "is it sunny today", "yes"), ("de", "ist es heute sonnig", "ja")],
)
async def test_the_weathers_condition(ask: Any, language: str, text: str, yes: str) -> None:
    """The exposed weather entity is sunny: asked whether it is sunny, the answer is yes."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert yes in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text", "value"),
    [
        ("en", "what's the temperature outside", "15.6"),
        ("de", "wie ist die Außentemperatur", "15,6"),
    ],
)
async def test_the_temperature_outside_is_the_outdoor_sensors(
    ask: Any, language: str, text: str, value: str
) -> None:
    """The temperature outside is the outdoor temperature sensor's, in the language's form."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert value in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "what's on my shopping list"), ("de", "was steht auf meiner Shopping List")],
)
async def test_a_to_do_lists_items(ask: Any, language: str, text: str) -> None:
    """The shopping list's open items, read through todo.get_items, are said."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert set(ITEMS) <= words(result.reply)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "how many items are on my shopping list"),
        ("de", "wie viele Einträge stehen auf der Shopping List"),
    ],
)
async def test_a_to_do_lists_count(
    ask: Any, module_home_assistant: HomeAssistantProcess, language: str, text: str
) -> None:
    """How many items are on the shopping list is the count Home Assistant holds."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert str(len(await _todo_items(module_home_assistant))) in words(result.reply)


@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "what's on my calendar today"), ("de", "was steht heute im Kalender")],
)
async def test_todays_calendar_events(ask: Any, language: str, text: str) -> None:
    """The demo calendar's current event is among today's, read through calendar.get_events."""
    result = await ask(text, language)

    assert result.handled_by == "local"
    assert {"current", "event"} <= words(result.reply)


@pytest.mark.parametrize(
    ("language", "text", "answer"),
    [
        ("en", "what is the battery level of the kitchen", "I don't know that."),
        ("de", "wie ist der Batteriestand vom Kitchen", "Das weiß ich nicht."),
    ],
)
async def test_a_question_without_a_certain_answer_is_not_guessed(
    ask: Any, language: str, text: str, answer: str
) -> None:
    """No battery sensor is in the kitchen: without a model the answer is "I don't know that"."""
    result = await ask(text, language)

    assert result.reply == answer
