"""Trying a custom tool through the API against a real local HTTP API: what the model would get."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from addon.config.settings import Settings
from tests.custom_tools.servers import TOKEN, Api, api_app
from tests.web.api.conftest import AppClient, StartApp
from tests.web.api.test_tools import create


@pytest.fixture
def seen() -> Api:
    return Api()


@pytest.fixture
async def endpoint(seen: Api, aiohttp_server: Any) -> TestServer:
    server: TestServer = await aiohttp_server(api_app(seen))
    return server


def weather(port: int) -> dict[str, Any]:
    return {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "required": ["city", "days"],
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        },
        "kind": "rest",
        "rest": {
            "url": f"http://127.0.0.1:{port}/weather/{{{{ city | urlencode }}}}",
            "query": {"days": "{{ days }}"},
            "headers": {"Authorization": "Bearer {{ secrets.token }}"},
            "result": {"template": "{{ value_json.temp }} and {{ value_json.sky }}"},
        },
    }


def poster(port: int) -> dict[str, Any]:
    return {
        "name": "post_note",
        "description": "Posts a note.",
        "parameters": {"type": "object", "properties": {"note": {"type": "string"}}},
        "kind": "rest",
        "rest": {
            "method": "POST",
            "url": f"http://127.0.0.1:{port}/echo",
            "body": {"type": "json", "content": {"note": "{{ note }}"}},
        },
    }


async def test_trying_a_saved_tool_shows_request_response_and_result(
    api: AppClient, endpoint: TestServer
) -> None:
    """The answer holds the rendered request, the response, the model's result and a duration."""
    await api.put("/api/secrets/token", json={"value": TOKEN})
    tool = await create(api, weather(endpoint.port))
    response = await api.post(
        f"/api/tools/{tool['id']}/try", json={"arguments": {"city": "Utrecht", "days": 2}}
    )
    body = await response.json()
    assert response.status == 200, body
    assert body["request"]["method"] == "GET"
    assert body["request"]["url"].endswith("/weather/Utrecht?days=2")
    assert body["response"]["status"] == 200
    assert "application/json" in body["response"]["headers"]["Content-Type"]
    assert '"temp": 21.5' in body["response"]["body"]
    assert body["result"] == {"success": True, "result": "21.5 and clear"}
    assert (body["error"], body["sent"], body["dry_run"]) == (None, True, False)
    assert body["duration_ms"] > 0


async def test_the_secret_is_masked_in_the_try_answer(
    api: AppClient, endpoint: TestServer, seen: Api
) -> None:
    """The endpoint got the real token; the answer shows it masked, echo included."""
    await api.put("/api/secrets/token", json={"value": TOKEN})
    tool = await create(api, weather(endpoint.port))
    response = await api.post(
        f"/api/tools/{tool['id']}/try", json={"arguments": {"city": "Utrecht", "days": 1}}
    )
    text = await response.text()
    assert seen.seen[-1].headers["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in text
    assert (await response.json())["request"]["headers"]["Authorization"].startswith("Bearer ••")


async def test_arguments_are_repaired_as_for_the_model(
    api: AppClient, endpoint: TestServer
) -> None:
    """Argument text with a trailing comma and a number as a string is repaired, then run."""
    await api.put("/api/secrets/token", json={"value": TOKEN})
    tool = await create(api, weather(endpoint.port))
    response = await api.post(
        f"/api/tools/{tool['id']}/try", json={"arguments": '{"city": "Utrecht", "days": "3",}'}
    )
    body = await response.json()
    assert (body["arguments"], body["repaired"]) == ({"city": "Utrecht", "days": 3}, True)
    assert body["request"]["url"].endswith("?days=3")


async def test_invalid_arguments_are_the_error_the_model_would_read(
    api: AppClient, endpoint: TestServer, seen: Api
) -> None:
    """A missing required argument runs nothing and answers with the model's error result."""
    tool = await create(api, weather(endpoint.port))
    response = await api.post(f"/api/tools/{tool['id']}/try", json={"arguments": {"days": 1}})
    body = await response.json()
    assert response.status == 200
    assert "'city' is a required property" in body["error"]
    assert body["result"]["error"] == "ToolError"
    assert (body["request"], body["sent"], seen.seen) == (None, False, [])


async def test_a_dry_run_renders_an_acting_request_without_sending_it(
    api: AppClient, endpoint: TestServer, seen: Api
) -> None:
    """dry_run: true records the POST with its body; the endpoint never hears of it."""
    tool = await create(api, poster(endpoint.port))
    response = await api.post(
        f"/api/tools/{tool['id']}/try", json={"arguments": {"note": "hi"}, "dry_run": True}
    )
    body = await response.json()
    assert (body["dry_run"], body["sent"], body["response"]) == (True, False, None)
    assert body["request"]["body"] == {"note": "hi"}
    assert body["result"]["dry_run"] is True
    assert seen.seen == []


async def test_the_dry_run_option_forces_a_dry_try(
    start_app: StartApp, agent_settings: Settings, endpoint: TestServer, seen: Api
) -> None:
    """With the add-on's dry_run option on, asking for a real try still sends nothing."""
    settings = agent_settings.model_copy(
        update={"options": agent_settings.options.model_copy(update={"dry_run": True})}
    )
    client: AppClient = await start_app(settings)
    tool = await create(client, poster(endpoint.port))
    response = await client.post(
        f"/api/tools/{tool['id']}/try", json={"arguments": {"note": "hi"}, "dry_run": False}
    )
    body = await response.json()
    assert (body["dry_run"], body["sent"], seen.seen) == (True, False, [])


async def test_an_unsaved_definition_can_be_tried(api: AppClient, endpoint: TestServer) -> None:
    """POST /api/tools/try runs the editor's YAML without saving it."""
    source = f"""
name: post_note
description: Posts a note.
kind: rest
rest:
  method: POST
  url: http://127.0.0.1:{endpoint.port}/echo
  body: {{type: json, content: {{note: "{{{{ note }}}}"}}}}
parameters: {{type: object, properties: {{note: {{type: string}}}}}}
"""
    response = await api.post("/api/tools/try", json={"source": source, "arguments": {"note": "x"}})
    body = await response.json()
    assert body["result"] == {"success": True, "result": {"got": {"note": "x"}}}
    assert (await (await api.get("/api/tools")).json())["tools"] == []


async def test_an_unsaved_invalid_definition_is_a_422_with_fields(api: AppClient) -> None:
    """The parser's problems come back as for a save."""
    response = await api.post(
        "/api/tools/try",
        json={"definition": {"name": "x", "description": "d", "kind": "rest", "rest": {}}},
    )
    body = await response.json()
    assert response.status == 422
    assert "rest.url" in str(body)


async def test_an_endpoint_error_shows_its_status_and_body(
    api: AppClient, endpoint: TestServer
) -> None:
    """A 500 from the endpoint is the call's error, with the response recorded."""
    definition = {
        "name": "broken",
        "description": "Always fails.",
        "kind": "rest",
        "rest": {"url": f"http://127.0.0.1:{endpoint.port}/status/500"},
    }
    body = await (await api.post("/api/tools/try", json={"definition": definition})).json()
    assert body["response"]["status"] == 500
    assert body["response"]["body"] == "failure 500"
    assert "HTTP 500" in body["error"]
    assert body["result"]["error"] == "CustomToolError"


async def test_arguments_must_be_an_object_or_text(api: AppClient) -> None:
    """A list for arguments is a 422 naming the field."""
    definition = {
        "name": "t",
        "description": "d",
        "kind": "template",
        "template": {"template": "x"},
    }
    response = await api.post("/api/tools/try", json={"definition": definition, "arguments": [1]})
    assert response.status == 422
    assert (await response.json())["field"] == "arguments"


async def test_a_result_template_cannot_read_a_secret_back(
    api: AppClient, endpoint: TestServer
) -> None:
    """``{{ secrets.token | reverse }}`` as a result template is refused; no value returns."""
    await api.put("/api/secrets/token", json={"value": TOKEN})
    definition = weather(endpoint.port)
    definition["rest"]["result"] = {"template": "{{ secrets.token | reverse }}"}
    response = await api.post(
        "/api/tools/try", json={"definition": definition, "arguments": {"city": "x", "days": 1}}
    )
    text = await response.text()
    assert response.status == 422
    assert "rest.result.template" in text
    assert TOKEN[::-1] not in text
    assert TOKEN not in text
