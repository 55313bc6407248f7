"""Parsing custom tool definitions: defaults, every problem with its path, reserved names."""

from __future__ import annotations

from typing import Any

import pytest

from addon.custom_tools.definition import parse_definition
from addon.errors import CustomToolInvalid
from addon.tools.home_tools import builtin_tool_names

RESERVED = builtin_tool_names()


def weather(**changes: Any) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
        "kind": "rest",
        "rest": {"url": "https://api.example.com/weather/{{ city | urlencode }}"},
    }
    definition.update(changes)
    return definition


def problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(CustomToolInvalid) as caught:
        parse_definition(data, reserved=RESERVED)
    return dict(caught.value.problems)


def test_a_rest_get_parses_with_its_defaults() -> None:
    """Enabled, ten seconds, and a GET only reads."""
    definition = parse_definition(weather(), reserved=RESERVED)
    assert definition.enabled is True
    assert definition.timeout == 10.0
    assert definition.resolved_acts is False


def test_acts_defaults_follow_the_kind() -> None:
    """A POST and a service act; a template reads; a composite acts when any step does."""
    post = weather(rest={"method": "POST", "url": "https://x.example/a"})
    assert parse_definition(post, reserved=RESERVED).resolved_acts is True
    service = weather(kind="service", rest=None, service={"action": "light.turn_on"})
    assert parse_definition(service, reserved=RESERVED).resolved_acts is True
    composite = weather(
        kind="composite",
        rest=None,
        composite={
            "steps": [
                {"name": "read", "kind": "template", "template": {"template": "{{ 1 }}"}},
                {"name": "act", "kind": "script", "script": {"entity_id": "script.x"}},
            ]
        },
    )
    assert parse_definition(composite, reserved=RESERVED).resolved_acts is True


def test_a_templated_host_is_refused_at_rest_url() -> None:
    """Arguments may not choose the host: the URL must start with it written out."""
    found = problems(weather(rest={"url": "https://{{ host }}/weather"}))
    assert "host written out" in found["rest.url"]


def test_every_problem_is_listed_with_its_path() -> None:
    """A bad name, a bad timeout and a bad method all come back at once."""
    found = problems(
        weather(name="1 bad", timeout=500, rest={"method": "FETCH", "url": "https://x.example/"})
    )
    assert {"name", "timeout", "rest.method"} <= set(found)


def test_the_schema_is_checked_beside_other_problems() -> None:
    """A broken schema is listed with a bad name and URL, not only once they are fixed."""
    broken = {"type": "object", "properties": {"city": {"type": "town"}}}
    found = problems(weather(name="bad name", parameters=broken, rest={"url": "ftp://x/"}))
    assert {"name", "rest.url", "parameters.properties.city.type"} <= set(found)


def test_a_name_problem_is_said_in_words() -> None:
    """The name's rule is explained, never shown as its regular expression."""
    message = problems(weather(name="get weather"))["name"]
    assert message.startswith("a name starts with a letter")
    assert "^" not in message
    assert "pattern" not in message


def test_a_builtin_name_is_refused() -> None:
    """A custom tool cannot shadow HassTurnOn or GetLiveContext."""
    assert "built-in" in problems(weather(name="HassTurnOn"))["name"]
    assert "built-in" in problems(weather(name="GetLiveContext"))["name"]


def test_parameters_are_checked_against_the_json_schema_meta_schema() -> None:
    """A schema JSON Schema itself rejects is refused at its path."""
    broken = {"type": "object", "properties": {"city": {"type": "town"}}}
    found = problems(weather(parameters=broken))
    assert any(path.startswith("parameters") for path in found)


def test_settings_of_another_kind_are_refused() -> None:
    """A rest tool with service settings says which settings do not belong."""
    found = problems(weather(service={"action": "light.turn_on"}))
    assert "do not belong" in " ".join(found.values())


def test_composite_steps_need_unique_names() -> None:
    """Two steps named alike could not both be read by name."""
    step = {"name": "a", "kind": "template", "template": {"template": "x"}}
    found = problems(weather(kind="composite", rest=None, composite={"steps": [step, step]}))
    assert "unique" in found["composite"]
