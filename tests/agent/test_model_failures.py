"""Each way the model can fail has its own spoken reply and its own error kind in the trace."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import pytest

from addon.errors import ErrorKind
from addon.home.model.live import HomeModel
from addon.i18n.translations import DE, EN
from addon.store.database import Store
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ask, stored_turn

QUESTION = "tell me a joke"


def closed_port_url() -> str:
    """A loopback URL nobody listens on: the port was free a moment ago and is closed again."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def timing_out(llm: ScriptedLLM) -> dict[str, Any]:
    llm.reply("too late", delay=5.0)
    return {"llm": llm, "llm_timeout": 0.3}


def wrong_key(llm: ScriptedLLM) -> dict[str, Any]:
    llm.error(401)
    return {"llm": llm}


def unknown_model(llm: ScriptedLLM) -> dict[str, Any]:
    llm.error(
        404,
        "The model `scripted-model` does not exist or you do not have access to it.",
        code="model_not_found",
    )
    return {"llm": llm}


def unreachable(_llm: ScriptedLLM) -> dict[str, Any]:
    return {"llm": closed_port_url()}


def rate_limited(llm: ScriptedLLM) -> dict[str, Any]:
    # The client retries a 429 twice (honouring Retry-After) before the turn gives up.
    for _ in range(3):
        llm.error(429, headers={"retry-after-ms": "1"})
    return {"llm": llm, "llm_retries": 2}


Failure = Callable[[ScriptedLLM], dict[str, Any]]
FAILURES: dict[str, tuple[Failure, ErrorKind, str]] = {
    "timeout": (timing_out, ErrorKind.LLM_TIMEOUT, EN.llm_timeout),
    "wrong key": (wrong_key, ErrorKind.LLM_AUTH, EN.llm_auth),
    "unknown model": (unknown_model, ErrorKind.LLM_MODEL_NOT_FOUND, EN.llm_model_not_found),
    "unreachable": (unreachable, ErrorKind.LLM_UNREACHABLE, EN.llm_unreachable),
    "rate limited": (rate_limited, ErrorKind.LLM_RATE_LIMITED, EN.llm_rate_limited),
}


@pytest.mark.parametrize(("failure", "kind", "reply"), FAILURES.values(), ids=FAILURES.keys())
async def test_each_model_failure_has_its_own_reply_and_kind(
    make_agent: MakeAgent,
    scripted_llm: ScriptedLLM,
    store: Store,
    failure: Failure,
    kind: ErrorKind,
    reply: str,
) -> None:
    """The reply names what went wrong, and the stored turn says which kind of failure it was."""
    result = await make_agent(**failure(scripted_llm)).process(ask(QUESTION))
    turn = await stored_turn(store, result.turn_id)
    assert (result.reply, result.handled_by, result.error_kind) == (reply, "failed", kind)
    assert (turn.error_kind, turn.reply_text) == (kind.value, reply)
    assert turn.error is not None


def test_every_failure_is_worded_differently() -> None:
    """No two of the five failures share a reply, in English or in German."""
    for words in (EN, DE):
        replies = {words.for_error(kind) for _, kind, _ in FAILURES.values()}
        assert len(replies) == len(FAILURES)


async def test_a_rate_limited_endpoint_is_retried_before_giving_up(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The rate-limited reply comes only after the client's own retries were used."""
    await make_agent(**rate_limited(scripted_llm)).process(ask(QUESTION))
    assert len(scripted_llm.chat_requests) == 3


async def test_a_failure_is_spoken_in_the_requests_language(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A German request hears the German reason."""
    scripted_llm.error(401)
    result = await make_agent(llm=scripted_llm).process(ask("erzähl mir einen Witz", language="de"))
    assert result.reply == DE.llm_auth


async def test_the_iteration_limit_says_what_was_done(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, demo_model: HomeModel, store: Store
) -> None:
    """A model that keeps calling tools is stopped, and the reply lists what it did so far."""
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen Lights"}))
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Bed Light"}))
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Ceiling Lights"}))
    agent = make_agent(llm=scripted_llm, max_tool_iterations=3)
    result = await agent.process(ask("set up the house for the evening"))
    assert result.reply == (
        "I turned on Kitchen Lights and Ceiling Lights and turned off Bed Light, "
        "but I couldn't finish the rest; it needed too many steps."
    )
    assert result.error_kind is ErrorKind.ITERATION_LIMIT
    assert demo_model.state("light.ceiling_lights").state == "on"  # type: ignore[union-attr]
    turn = await stored_turn(store, result.turn_id)
    assert turn.error_kind == "iteration_limit"


async def test_the_iteration_limit_is_told_in_the_requests_language(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The summary at the limit is German for a German request."""
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights"}))
    scripted_llm.tool_calls(("GetDateTime", {}))
    agent = make_agent(llm=scripted_llm, max_tool_iterations=2)
    result = await agent.process(ask("mach alles für den Abend fertig", language="de"))
    assert result.reply == (
        "Ich habe Kitchen Lights ausgeschaltet, konnte den Rest aber nicht abschließen, "
        "weil dafür zu viele Schritte nötig waren."
    )


async def test_the_iteration_limit_with_nothing_done_apologises(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A turn stopped before any action succeeded says only that it could not finish."""
    scripted_llm.tool_calls(("GetDateTime", {}))
    scripted_llm.tool_calls(("HassTurnOn", {"name": "No Such Lamp"}))
    agent = make_agent(llm=scripted_llm, max_tool_iterations=2)
    result = await agent.process(ask("do something clever"))
    assert result.reply == EN.iteration_limit
