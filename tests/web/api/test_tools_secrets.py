"""A secret used by a custom tool never shows: not in an answer, a page, a trace, a log or an event.

The whole app runs against the scripted Home Assistant (which records the events it is sent) and
the scripted model. The secret is set through the API and sent by a ``rest`` tool in a header and
a query parameter to a local API that echoes both back, in its body and its headers; the tool is
then tried through the API and called by the model in a turn. Afterwards every place the secret
could have reached is searched for it, in each form a request or a JSON body gives it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
import yarl
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import select

from addon import keys
from addon.store.models import Base
from devtools.scripted_llm import ScriptedLLM
from tests.ha.fake_ws_server import FakeHomeAssistant

# Characters a URL, a query string and JSON each write differently.
SECRET = "k3y/With+plus and:space@?~x"
FORMS = {
    SECRET,
    quote(SECRET, safe=""),
    quote_plus(SECRET),
    quote(SECRET),
    json.dumps(SECRET)[1:-1],
    # As yarl writes it in a query string, and in a path.
    yarl.URL("http://h/").with_query({"k": SECRET}).raw_query_string.removeprefix("k="),
    yarl.URL("http://h/").joinpath(SECRET).raw_path.removeprefix("/"),
}


@pytest.fixture
async def echo(aiohttp_server: Callable[..., Any]) -> TestServer:
    """An API that echoes the key it was sent, in its body and in a header (or a 500 with it)."""

    async def handle(request: web.Request) -> web.Response:
        key = request.headers.get("X-Api-Key", "")
        body = {"key": key, "query": dict(request.query), "url": str(request.url)}
        status = 500 if request.path == "/fail" else 200
        return web.json_response(body, status=status, headers={"X-Echo": key})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    # The endpoint stands for someone else's API: its own access log is not the add-on's.
    server: TestServer = await aiohttp_server(app, access_log=None)
    return server


@pytest.fixture
def app(ha_app: TestClient[Any, Any]) -> TestClient[Any, Any]:
    """The connected app, checking a turn's outcome at once."""
    ha_app.app[keys.AGENT].outcome_delay = 0.0
    return ha_app


def leaky(name: str, port: int, path: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": "Calls an API that repeats its key.",
        "kind": "rest",
        "rest": {
            "url": f"http://127.0.0.1:{port}/{path}",
            "headers": {"X-Api-Key": "{{ secrets.api_key }}"},
            "query": {"key": "{{ secrets.api_key }}"},
        },
    }


def leaks(text: str) -> list[str]:
    """The forms of the secret found in ``text``."""
    return sorted(form for form in FORMS if form in text)


async def test_a_secret_never_appears_anywhere(
    app: TestClient[Any, Any],
    fake_ha: FakeHomeAssistant,
    scripted_llm: ScriptedLLM,
    echo: TestServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Answers, stored trace rows, pages, export, logs and events hold no form of the secret."""
    caplog.set_level(logging.DEBUG)
    answers: list[str] = []

    async def call(method: str, path: str, **kwargs: Any) -> Any:
        response = await app.request(method, path, **kwargs)
        answers.append(f"{method} {path} {response.status} {dict(response.headers)}")
        answers.append(await response.text())
        assert response.status < 300, answers[-1]
        return json.loads(answers[-1]) if "json" in response.content_type else answers[-1]

    await call("PUT", "/api/secrets/api_key", json={"value": SECRET})
    tool = await call("POST", "/api/tools", json={"definition": leaky("echo_key", echo.port, "x")})
    await call("POST", "/api/tools", json={"definition": leaky("fail_key", echo.port, "fail")})
    tried = await call("POST", f"/api/tools/{tool['id']}/try", json={"arguments": {}})
    assert tried["response"]["status"] == 200  # the key went out and came back
    await call("POST", "/api/tools/try", json={"definition": leaky("unsaved", echo.port, "y")})

    scripted_llm.tool_calls(("echo_key", {}), ("fail_key", {})).reply("Done.")
    turn = await call("POST", "/api/conversation", json={"text": "Call the API"})
    await app.app[keys.AGENT].drain()
    await app.app[keys.STORE].writer.flush()

    for path in ("/api/tools", f"/api/tools/{tool['id']}", f"/api/tools/{tool['id']}/versions"):
        await call("GET", path)
    await call("GET", "/api/tools/export")
    await call("GET", "/api/secrets")
    for page in ("/", "/conversations", f"/conversations/{turn['conversation_id']}", "/settings"):
        await call("GET", page)

    stored: list[str] = []
    async with app.app[keys.STORE].sessionmaker() as session:
        for table in Base.metadata.sorted_tables:
            if table.name != "secrets":
                rows = (await session.execute(select(table))).all()
                stored.append(f"{table.name}: {[tuple(row) for row in rows]!r}")
    assert any("tool_calls" in text and "echo_key" in text for text in stored)

    events = [
        json.dumps(message, default=str)
        for connection in fake_ha.connections
        for message in connection.received
        if message.get("type") == "fire_event"
    ]
    assert any("home_agent_tool_executed" in event for event in events)
    logs = [record.getMessage() + (record.exc_text or "") for record in caplog.records]
    model = [json.dumps(request.body) for request in scripted_llm.chat_requests]

    assert {
        "answers": leaks("\n".join(answers)),
        "stored": leaks("\n".join(stored)),
        "events": leaks("\n".join(events)),
        "logs": leaks("\n".join(logs)),
        "model": leaks("\n".join(model)),
    } == {"answers": [], "stored": [], "events": [], "logs": [], "model": []}
