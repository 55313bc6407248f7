"""The rest kind against a real local HTTP server."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestServer

from addon.custom_tools.definition import ToolDefinition, parse_definition
from addon.custom_tools.runner import Runner
from tests.custom_tools.servers import TOKEN, Api

SECRETS = {"token": TOKEN}


def rest_tool(server: TestServer, path: str, **rest: Any) -> ToolDefinition:
    base = f"http://127.0.0.1:{server.port}"
    data: dict[str, Any] = {
        "name": "api",
        "description": "Test API.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        "kind": "rest",
        "timeout": rest.pop("timeout", 10),
        "rest": {"url": base + path, **rest},
    }
    return parse_definition(data, reserved=())


async def test_auth_header_and_a_json_answer_shaped_by_a_template(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """The secret goes out in the header; value_json shapes the model's result."""
    tool = rest_tool(
        api_server,
        "/weather/{{ city | urlencode }}",
        headers={"Authorization": "Bearer {{ secrets.token }}"},
        result={"template": "{{ value_json.temp }} °C, {{ value_json.sky }}"},
    )
    run = await runner.run(tool, {"city": "Den Haag"}, dry_run=False, secrets=SECRETS)
    assert run.error is None
    assert run.result == "21.5 °C, clear"
    assert api.seen[0].path == "/weather/Den%20Haag"
    assert run.response is not None
    assert run.response.status == 200


async def test_a_json_pointer_picks_the_result(runner: Runner, api_server: TestServer) -> None:
    """``pointer: /sky`` hands the model one value."""
    tool = rest_tool(
        api_server,
        "/weather/x",
        headers={"Authorization": "Bearer {{ secrets.token }}"},
        result={"pointer": "/sky"},
    )
    run = await runner.run(tool, {}, dry_run=False, secrets=SECRETS)
    assert run.result == "clear"


async def test_secrets_are_masked_everywhere_in_the_run(
    runner: Runner, api_server: TestServer
) -> None:
    """The header, the echoed body and the model's result never show the token."""
    tool = rest_tool(
        api_server, "/weather/x", headers={"Authorization": "Bearer {{ secrets.token }}"}
    )
    run = await runner.run(tool, {}, dry_run=False, secrets=SECRETS)
    assert run.ok
    dumped = json.dumps(run.as_dict()) + json.dumps(run.for_model())
    assert TOKEN not in dumped
    assert run.request is not None
    assert run.request.headers["Authorization"].startswith("Bearer ••")


async def test_a_text_answer_is_the_result(runner: Runner, api_server: TestServer) -> None:
    """Without a result spec, text that is not JSON is passed on as it is."""
    run = await runner.run(rest_tool(api_server, "/text"), {}, dry_run=False, secrets={})
    assert run.result == "plain answer"


async def test_a_4xx_answer_is_an_error_with_the_response(
    runner: Runner, api_server: TestServer
) -> None:
    """404: the model reads the status and the body; the trace keeps the response."""
    run = await runner.run(rest_tool(api_server, "/status/404"), {}, dry_run=False, secrets={})
    assert run.error is not None
    assert "HTTP 404" in run.error
    assert "failure 404" in run.error
    assert run.response is not None
    assert run.response.status == 404
    assert run.for_model()["error_text"] == run.error


async def test_a_5xx_answer_is_an_error(runner: Runner, api_server: TestServer) -> None:
    """503 is reported the same way."""
    run = await runner.run(rest_tool(api_server, "/status/503"), {}, dry_run=False, secrets={})
    assert run.error is not None
    assert "HTTP 503" in run.error


async def test_a_missing_credential_is_the_apis_401(runner: Runner, api_server: TestServer) -> None:
    """Without the header the API refuses, and the tool says so."""
    run = await runner.run(rest_tool(api_server, "/weather/x"), {}, dry_run=False, secrets={})
    assert run.error is not None
    assert "HTTP 401" in run.error


async def test_a_silent_server_times_out(runner: Runner, api_server: TestServer) -> None:
    """The tool's timeout ends a request that gets no answer."""
    run = await runner.run(
        rest_tool(api_server, "/slow", timeout=0.2), {}, dry_run=False, secrets={}
    )
    assert run.error is not None
    assert "within 0.2 s" in run.error


async def test_a_redirect_loop_stops_after_three(runner: Runner, api_server: TestServer) -> None:
    """At most three redirects are followed."""
    run = await runner.run(rest_tool(api_server, "/loop"), {}, dry_run=False, secrets={})
    assert run.error is not None
    assert "more than 3 times" in run.error


async def test_a_redirect_within_the_origin_is_followed(
    runner: Runner, api_server: TestServer
) -> None:
    """A redirect to another path of the same server is fine."""
    run = await runner.run(rest_tool(api_server, "/moved"), {}, dry_run=False, secrets={})
    assert run.result == "plain answer"


async def test_a_redirect_to_another_host_is_refused(
    runner: Runner, api_server: TestServer
) -> None:
    """Credentials never follow a redirect off the definition's host."""
    run = await runner.run(rest_tool(api_server, "/elsewhere"), {}, dry_run=False, secrets={})
    assert run.error is not None
    assert "another origin" in run.error


async def test_an_oversized_body_stops_at_the_cap(runner: Runner, api_server: TestServer) -> None:
    """Reading stops at max_bytes with a clear error; what was read is kept, marked truncated."""
    run = await runner.run(
        rest_tool(api_server, "/big", max_bytes=100_000), {}, dry_run=False, secrets={}
    )
    assert run.error is not None
    assert "larger than 100000 bytes" in run.error
    assert run.response is not None
    assert run.response.truncated
    assert len(run.response.body) == 100_000


async def test_an_argument_cannot_change_the_host(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """A URL given as an argument only lands in the path of the definition's host."""
    tool = rest_tool(api_server, "/{{ city }}")
    run = await runner.run(tool, {"city": "http://evil.invalid/steal"}, dry_run=False, secrets={})
    assert run.request is not None
    assert run.request.url.startswith(f"http://127.0.0.1:{api_server.port}/")
    assert len(api.seen) == 1  # it reached this server, nowhere else


async def test_a_dry_run_records_an_acting_request_without_sending_it(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """A POST in a dry run is rendered in full and not sent."""
    tool = rest_tool(
        api_server,
        "/echo",
        method="POST",
        headers={"Authorization": "Bearer {{ secrets.token }}"},
        body={"type": "json", "content": {"city": "{{ city }}", "n": "{{ 2 + 3 }}"}},
    )
    run = await runner.run(tool, {"city": "Utrecht"}, dry_run=True, secrets=SECRETS)
    assert api.seen == []
    assert run.sent is False
    assert run.for_model()["dry_run"] is True
    assert run.request is not None
    assert run.request.method == "POST"
    assert run.request.body == {"city": "Utrecht", "n": 5}
    assert TOKEN not in json.dumps(run.as_dict())


async def test_a_read_only_tool_runs_for_real_in_a_dry_run(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """A GET reads, so a dry run still calls it."""
    run = await runner.run(rest_tool(api_server, "/text"), {}, dry_run=True, secrets={})
    assert run.result == "plain answer"
    assert len(api.seen) == 1


async def test_a_template_error_in_the_body_names_the_field(
    runner: Runner, api_server: TestServer
) -> None:
    """The model learns which field failed and why."""
    tool = rest_tool(
        api_server, "/echo", method="POST", body={"type": "json", "content": {"a": "{{ nope }}"}}
    )
    run = await runner.run(tool, {}, dry_run=False, secrets={})
    assert run.error == "template rest.body.content.a, line 1: 'nope' is undefined"


async def test_a_changed_secret_is_masked_on_the_next_call(
    runner: Runner, api_server: TestServer
) -> None:
    """The runner keeps the last secrets' mask, and builds a new one when a value changes."""
    tool = rest_tool(api_server, "/text", headers={"X-Key": "{{ secrets.token }}"})
    await runner.run(tool, {}, dry_run=False, secrets={"token": "first-value-123"})
    run = await runner.run(tool, {}, dry_run=False, secrets={"token": "second-value-456"})
    assert run.request is not None
    assert run.request.headers["X-Key"] == "••••••"
