"""A secret goes only into its own tool's request, and comes back out of nothing (issue 20.3)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from addon.custom_tools.definition import ToolDefinition, parse_definition
from addon.custom_tools.runner import Runner
from addon.errors import CustomToolInvalid

KEY = "k3y-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
OTHER = "other-secret-0123456789"
SECRETS = {"key": KEY, "other": OTHER}


@pytest.fixture
async def echo(aiohttp_server: Any) -> TestServer:
    """Answers what it was sent: careless APIs echo keys in bodies and error pages."""

    async def echo_json(request: web.Request) -> web.Response:
        return web.json_response({"query": dict(request.query), "path": request.raw_path})

    async def not_found(request: web.Request) -> web.Response:
        return web.Response(status=404, text=f"no route {request.raw_path}")

    async def deep(_request: web.Request) -> web.Response:
        return web.Response(text="[" * 600 + "]" * 600, content_type="application/json")

    async def userinfo(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://user:{KEY}@{request.host}/echo")

    app = web.Application()
    app.router.add_get("/echo", echo_json)
    app.router.add_get("/deep", deep)
    app.router.add_get("/userinfo", userinfo)
    app.router.add_get("/missing/{tail:.*}", not_found)
    server: TestServer = await aiohttp_server(app)
    return server


def tool(server: TestServer, path: str, **fields: Any) -> ToolDefinition:
    rest = fields.pop("rest", {})
    data: dict[str, Any] = {
        "name": "api",
        "description": "Test API.",
        "parameters": {
            "type": "object",
            "properties": {"p": {"type": "string"}, "which": {"type": "string"}},
        },
        "kind": "rest",
        "rest": {"url": f"http://127.0.0.1:{server.port}{path}", **rest},
        **fields,
    }
    return parse_definition(data, reserved=())


def everything(run: Any) -> str:
    return json.dumps(run.as_dict()) + json.dumps(run.for_model())


def test_a_result_template_cannot_name_a_secret(echo: TestServer) -> None:
    """``{{ secrets.x | reverse }}`` in a result template is refused when the tool is parsed."""
    with pytest.raises(CustomToolInvalid) as caught:
        tool(echo, "/echo", rest={"result": {"template": "{{ secrets.key | reverse }}"}})
    assert caught.value.problems[0][0] == "rest.result.template"


def test_a_secret_outside_a_rest_request_is_refused() -> None:
    """A service's data may not carry a secret: only a rest request's URL, headers and body."""
    with pytest.raises(CustomToolInvalid) as caught:
        parse_definition(
            {
                "name": "svc",
                "description": "d",
                "kind": "service",
                "service": {"action": "notify.x", "data": {"message": "{{ secrets.key }}"}},
            },
            reserved=(),
        )
    assert caught.value.problems[0][0] == "service.data.message"


def test_a_declared_tool_may_not_name_an_undeclared_secret(echo: TestServer) -> None:
    """With ``secrets: [key]`` a header naming ``secrets.other`` is a problem at its path."""
    with pytest.raises(CustomToolInvalid) as caught:
        tool(echo, "/echo", secrets=["key"], rest={"headers": {"X": "{{ secrets.other }}"}})
    assert caught.value.problems[0][0] == "rest.headers.X"


async def test_a_tool_sees_only_its_declared_secrets(runner: Runner, echo: TestServer) -> None:
    """A request reaching for another secret by a computed name finds nothing there."""
    definition = tool(echo, "/echo", secrets=["key"], rest={"query": {"k": "{{ secrets[which] }}"}})
    run = await runner.run(definition, {"which": "other"}, dry_run=False, secrets=SECRETS)
    assert run.error is not None
    assert "other" in run.error
    assert OTHER not in everything(run)


async def test_a_tool_without_a_declaration_uses_the_secrets_its_request_names(
    runner: Runner, echo: TestServer
) -> None:
    """Tools saved before ``secrets:`` existed keep working with the secrets they name."""
    definition = tool(echo, "/echo", rest={"query": {"k": "{{ secrets.key }}"}})
    assert definition.secret_names == {"key"}
    run = await runner.run(definition, {}, dry_run=False, secrets=SECRETS)
    assert run.ok
    assert KEY not in everything(run)


async def test_an_echoed_secret_is_masked_before_the_result_template_sees_it(
    runner: Runner, echo: TestServer
) -> None:
    """An answer echoing the key is masked on arrival: a template cannot reverse it out."""
    definition = tool(
        echo,
        "/echo",
        rest={
            "query": {"k": "{{ secrets.key }}"},
            "result": {"template": "{{ value_json['query']['k'] | reverse }}"},
        },
    )
    run = await runner.run(definition, {}, dry_run=False, secrets=SECRETS)
    assert KEY[::-1] not in everything(run)
    assert KEY[1:][::-1] not in everything(run)


@pytest.mark.parametrize("pad", [270, 275, 280, 285])
async def test_an_error_body_is_masked_before_it_is_cut(
    runner: Runner, echo: TestServer, pad: int
) -> None:
    """A 404 page echoing the path, cut at 300 characters, never shows part of the key."""
    definition = tool(echo, "/missing/{{ p }}/{{ secrets.key }}")
    run = await runner.run(definition, {"p": "x" * pad}, dry_run=False, secrets=SECRETS)
    assert run.error is not None
    text = everything(run)
    assert all(KEY[:n] not in text for n in range(8, len(KEY) + 1))


async def test_json_nested_600_deep_is_an_error_result(runner: Runner, echo: TestServer) -> None:
    """A pathological answer is a masked error, not an exception out of the runner."""
    run = await runner.run(tool(echo, "/deep"), {}, dry_run=False, secrets=SECRETS)
    assert run.error is not None
    assert "deep" in run.error


async def test_a_redirect_carrying_userinfo_is_an_error_result(
    runner: Runner, echo: TestServer
) -> None:
    """A redirect to ``user:key@host`` is refused, the key masked in the error."""
    run = await runner.run(tool(echo, "/userinfo"), {}, dry_run=False, secrets=SECRETS)
    assert run.error is not None
    assert "credentials" in run.error
    assert KEY not in everything(run)


async def test_a_header_value_with_a_line_break_is_an_error_result(
    runner: Runner, echo: TestServer
) -> None:
    """CR/LF from an argument in a header is refused, not raised by the HTTP client."""
    definition = tool(echo, "/echo", rest={"headers": {"X-City": "{{ p }}"}})
    run = await runner.run(definition, {"p": "a\r\nX-Admin: 1"}, dry_run=False, secrets={})
    assert run.error is not None
    assert "line break" in run.error
