"""A rest tool stays where it was pointed: its path prefix pinned, each argument one part (20.6)."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from addon.custom_tools.definition import ToolDefinition, parse_definition
from addon.custom_tools.extended_openai import import_functions
from addon.custom_tools.runner import Runner
from tests.custom_tools.servers import Api


def tool(server: TestServer, url: str, **rest: Any) -> ToolDefinition:
    data: dict[str, Any] = {
        "name": "api",
        "description": "Test API.",
        "parameters": {"type": "object", "properties": {"p": {"type": "string"}}},
        "kind": "rest",
        "rest": {"url": f"http://127.0.0.1:{server.port}{url}", **rest},
    }
    return parse_definition(data, reserved=())


@pytest.mark.parametrize(
    "argument",
    ["..", "%2e%2e", "%2E%2E", "../admin", "..%2fadmin", "%2e%2e%2fadmin", "a/../../admin"],
)
@pytest.mark.parametrize("template", ["{{ p }}", "{{ p | urlencode }}"])
async def test_a_path_argument_cannot_climb_out_of_the_prefix(
    runner: Runner, api_server: TestServer, api: Api, argument: str, template: str
) -> None:
    """Whatever the argument, nothing outside ``/api/v1/`` is requested."""
    definition = tool(api_server, f"/api/v1/items/{template}")
    await runner.run(definition, {"p": argument}, dry_run=False, secrets={})
    assert all(seen.path.startswith("/api/v1/items/") for seen in api.seen)
    assert all(".." not in seen.path.replace("%2F", "/").split("/") for seen in api.seen)


async def test_a_path_argument_lands_as_one_encoded_segment(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """``a/b c`` in the path is one segment ``a%2Fb%20c``."""
    run = await runner.run(
        tool(api_server, "/api/v1/items/{{ p }}"), {"p": "a/b c"}, dry_run=False, secrets={}
    )
    assert run.ok
    assert [seen.path for seen in api.seen] == ["/api/v1/items/a%2Fb%20c"]


async def test_a_dot_dot_argument_is_an_error_result(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """``..`` as a whole path segment is refused, nothing sent."""
    run = await runner.run(
        tool(api_server, "/api/v1/items/{{ p }}"), {"p": ".."}, dry_run=False, secrets={}
    )
    assert run.error is not None
    assert api.seen == []


@pytest.mark.parametrize("template", ["{{ p }}", "{{ p | urlencode }}"])
async def test_a_query_argument_cannot_add_a_parameter(
    runner: Runner, api_server: TestServer, api: Api, template: str
) -> None:
    """``a&admin=1`` in a URL template's query is one value of one parameter."""
    definition = tool(api_server, f"/api/v1/search?q={template}&lang=en")
    run = await runner.run(definition, {"p": "a&admin=1"}, dry_run=False, secrets={})
    assert run.ok
    assert [seen.query for seen in api.seen] == [{"q": "a&admin=1", "lang": "en"}]


async def test_an_imported_location_cannot_repeat_the_city_parameter(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """Issue 23: ``location="Rome&city=Oslo"`` sends one ``city``, the whole text."""
    definition = tool(api_server, "/weather?city={{ p }}")
    await runner.run(definition, {"p": "Rome&city=Oslo"}, dry_run=False, secrets={})
    assert [seen.query for seen in api.seen] == [{"city": "Rome&city=Oslo"}]


async def test_a_query_mapping_value_cannot_add_a_parameter(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """The ``query:`` mapping's values are encoded whole as well."""
    definition = tool(api_server, "/api/v1/search", query={"q": "{{ p }}"})
    await runner.run(definition, {"p": "a&admin=1"}, dry_run=False, secrets={})
    assert [seen.query for seen in api.seen] == [{"q": "a&admin=1"}]


async def test_an_imported_resource_template_encodes_its_arguments(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """Issue 23: an Extended OpenAI ``resource_template`` sends ``Rome&city=Oslo`` as one city."""
    text = f"""
- spec:
    name: weather
    description: Weather.
    parameters: {{type: object, properties: {{location: {{type: string}}}}}}
  function:
    type: rest
    resource_template: "http://127.0.0.1:{api_server.port}/weather?city={{{{ location }}}}"
"""
    (converted,) = import_functions(text).definitions
    definition = parse_definition(converted, reserved=())
    await runner.run(definition, {"location": "Rome&city=Oslo"}, dry_run=False, secrets={})
    assert [seen.query for seen in api.seen] == [{"city": "Rome&city=Oslo"}]
