"""render_speech: Home Assistant's response templates over our intent results."""

from __future__ import annotations

from datetime import datetime

import pytest

from addon.home.actions.handlers import handle_intent
from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    ResponseType,
    TargetType,
    error_result,
)
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.local.matcher import LocalMatch, LocalMatcher, answered_locally
from addon.local.response_templates import ResponseTemplates
from addon.local.responses import render_speech


async def _say(
    matcher: LocalMatcher, home: HomeModel, text: str, *, now: datetime | None = None
) -> str:
    """Recognise ``text``, handle it on a virtual copy of ``home`` and render the speech."""
    match = matcher.recognize(text, home)
    assert match is not None
    model = home.copy()
    result = await handle_intent(
        match.intent,
        match.slots,
        model=model,
        executor=VirtualExecutor(model),
        language=match.language,
        now=now,
    )
    return render_speech(match, result)


@pytest.mark.parametrize(
    ("text", "speech"),
    [
        ("turn on the kitchen lights", "Turned on the light"),
        ("turn on the coffee maker", "Turned on the switch"),
        ("turn off living room lights", "Turned off the lights"),
        ("turn off the lights upstairs", "Turned off the lights"),
        ("set bedroom brightness to 50%", "Brightness set"),
        ("set the kitchen lights to red", "Color set"),
        ("what is the temperature in the office", "21.5 degrees"),
        ("set the office thermostat to 20 degrees", "Temperature set to 20 degrees"),
        ("add milk to the shopping list", "Added milk"),
        ("hello", "Hello from Home Assistant."),
    ],
)
async def test_template_speech(
    matcher: LocalMatcher, home: HomeModel, text: str, speech: str
) -> None:
    """Each command is answered with the sentence Home Assistant's template gives."""
    assert await _say(matcher, home, text) == speech


async def test_nevermind_says_nothing(matcher: LocalMatcher, home: HomeModel) -> None:
    """HassNevermind's empty template is kept, not replaced by a fallback sentence."""
    assert await _say(matcher, home, "nevermind") == ""


async def test_time_template_reads_the_handler_time(matcher: LocalMatcher, home: HomeModel) -> None:
    """The time answer is rendered from the handler's time, in Home Assistant's format."""
    now = datetime(2026, 3, 1, 14, 5).astimezone()

    assert await _say(matcher, home, "what time is it", now=now) == "2:05 PM"


async def test_date_template_reads_the_handler_date(matcher: LocalMatcher, home: HomeModel) -> None:
    """The date answer is rendered from the handler's date."""
    now = datetime(2026, 3, 1, 14, 5).astimezone()

    assert await _say(matcher, home, "what's the date", now=now) == "March 1st, 2026"


def _match(intent: str, response_key: str | None, templates: ResponseTemplates) -> LocalMatch:
    return LocalMatch(
        intent=intent,
        slots={},
        response_key=response_key,
        text="",
        ms=0.0,
        templates=templates,
    )


def _turned_on(*names: str) -> IntentResult:
    return IntentResult(
        intent="HassTurnOn",
        response_type=ResponseType.ACTION_DONE,
        success=tuple(
            IntentTarget(name, TargetType.ENTITY, f"light.{name.lower().replace(' ', '_')}")
            for name in names
        ),
    )


def test_handler_speech_wins_over_the_template() -> None:
    """Speech the handler set is said as it is, as Home Assistant does."""
    templates = ResponseTemplates({"HassTurnOn": {"default": "Turned on"}})
    result = IntentResult("HassTurnOn", ResponseType.ACTION_DONE, speech="Opened the gate")

    assert render_speech(_match("HassTurnOn", "default", templates), result) == "Opened the gate"


def test_missing_template_falls_back_to_plain_words() -> None:
    """Without a template the success list is turned into a sentence."""
    templates = ResponseTemplates({})
    result = _turned_on("Kitchen Lights", "Sofa Light")

    speech = render_speech(_match("HassTurnOn", "default", templates), result)

    assert speech == "Turned on Kitchen Lights and Sofa Light"


def test_failing_template_falls_back_to_plain_words() -> None:
    """A template that needs data the result lacks still gives an answer."""
    templates = ResponseTemplates({"HassTurnOn": {"default": "{{ slots.time.hour + 1 }}"}})

    speech = render_speech(_match("HassTurnOn", "default", templates), _turned_on("Bed Light"))

    assert speech == "Turned on Bed Light"


def test_error_speaks_home_assistants_error_sentence() -> None:
    """An error result is answered with Home Assistant's error sentence, not its message."""
    templates = ResponseTemplates(
        {"HassTurnOn": {"default": "Turned on"}},
        {"handle_error": "An unexpected error occurred"},
    )
    result = error_result("HassTurnOn", ErrorCode.FAILED_TO_HANDLE, "The lock is jammed")

    speech = render_speech(_match("HassTurnOn", "default", templates), result)

    assert speech == "An unexpected error occurred"


def test_matching_errors_go_back_to_the_model() -> None:
    """A result that found no target is not answered locally; a failed action is."""
    no_target = error_result("HassTurnOn", ErrorCode.NO_VALID_TARGETS, "No device called X")
    failed = error_result("HassTurnOn", ErrorCode.FAILED_TO_HANDLE, "Jammed")

    assert (answered_locally(no_target), answered_locally(failed)) == (False, True)
