"""How the registry parses, repairs, validates and runs tool calls."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import pytest

from addon.errors import ToolError
from addon.home.actions.response import IntentResult
from addon.home.actions.virtual import VirtualExecutor
from addon.tools.base import ToolContext
from addon.tools.datetime_tool import GetDateTimeTool
from addon.tools.home_tools import build_registry
from addon.tools.registry import ToolRegistry
from tests.home.script_home import script_home

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "domain": {"type": "array", "items": {"type": "string"}},
        "brightness": {"type": "integer", "minimum": 0, "maximum": 100},
    },
    "required": ["name"],
}


@dataclass(slots=True)
class EchoTool:
    """A real tool that hands back what it was given."""

    name: str = "Echo"
    description: str = "Returns its arguments."
    parameters: dict[str, Any] = field(default_factory=lambda: SCHEMA)
    kind: str = "builtin"

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        if arguments.get("name") == "explode":
            raise ToolError("the echo broke")
        if arguments.get("name") == "bug":
            raise RuntimeError("unexpected")
        return {"success": True, "echo": arguments}


@pytest.fixture
def context() -> ToolContext:
    return ToolContext(
        home=None, executor=None, language="en", now=datetime(2026, 3, 1, 12, tzinfo=UTC)
    )


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([EchoTool(), GetDateTimeTool()])


async def test_valid_call_runs_the_tool(registry: ToolRegistry, context: ToolContext) -> None:
    """Well-formed arguments reach the tool unchanged."""
    outcome = await registry.execute("Echo", '{"name": "Kitchen", "domain": ["light"]}', context)
    assert outcome.ok
    assert outcome.result.content["echo"] == {"name": "Kitchen", "domain": ["light"]}
    assert not outcome.repaired


async def test_malformed_json_is_repaired(registry: ToolRegistry, context: ToolContext) -> None:
    """Trailing commas, single quotes and code fences from small models are repaired."""
    raw = "```json\n{'name': 'Kitchen', 'brightness': 50,}\n```"
    outcome = await registry.execute("Echo", raw, context)
    assert outcome.ok, outcome.error
    assert outcome.result.content["echo"] == {"name": "Kitchen", "brightness": 50}
    assert outcome.repaired


async def test_types_are_coerced_where_unambiguous(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """A string for a list and "50%" for an integer are fixed before validation."""
    raw = '{"name": "Kitchen", "domain": "light", "brightness": "50%", "extra": null}'
    outcome = await registry.execute("Echo", raw, context)
    assert outcome.result.content["echo"] == {
        "name": "Kitchen",
        "domain": ["light"],
        "brightness": 50,
    }


async def test_schema_violation_goes_back_to_the_model(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """An out-of-range value is an error result naming the argument, not an exception."""
    outcome = await registry.execute("Echo", '{"name": "K", "brightness": 150}', context)
    assert not outcome.ok
    assert outcome.result.content["error"] == "ToolError"
    assert "brightness" in outcome.result.content["error_text"]


async def test_missing_required_argument_is_reported(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """A missing required argument is named in the error text."""
    outcome = await registry.execute("Echo", "{}", context)
    assert "'name' is a required property" in outcome.result.content["error_text"]


async def test_unknown_tool_lists_the_available_ones(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """Calling a tool that does not exist tells the model which ones do."""
    outcome = await registry.execute("HassExplode", "{}", context)
    assert not outcome.ok
    assert "unknown tool 'HassExplode'" in outcome.result.content["error_text"]
    assert "GetDateTime" in outcome.result.content["error_text"]


async def test_hopeless_arguments_are_an_error(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """Arguments that are not an object at all are refused with a clear error."""
    outcome = await registry.execute("Echo", '["a", "b"]', context)
    assert "must be a JSON object" in outcome.result.content["error_text"]


async def test_tool_error_and_tool_bug_both_become_results(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """Neither a ToolError nor an unexpected exception escapes the registry."""
    failed = await registry.execute("Echo", '{"name": "explode"}', context)
    crashed = await registry.execute("Echo", '{"name": "bug"}', context)
    assert failed.result.content == {"error": "ToolError", "error_text": "the echo broke"}
    assert crashed.result.content == {"error": "RuntimeError", "error_text": "unexpected"}


async def test_get_date_time_reports_the_context_clock(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """GetDateTime answers in Home Assistant's shape."""
    outcome = await registry.execute("GetDateTime", "", context)
    assert outcome.result.content["result"]["date"] == "2026-03-01"
    assert outcome.result.content["result"]["weekday"] == "Sunday"


def test_specs_are_in_openai_function_format(registry: ToolRegistry) -> None:
    """Tool specs use the function-calling format Home Assistant sends."""
    spec = registry.specs()[0]
    assert spec == {
        "type": "function",
        "function": {"name": "Echo", "description": "Returns its arguments.", "parameters": SCHEMA},
    }


def test_duplicate_names_are_refused(registry: ToolRegistry) -> None:
    """Two tools with one name is a wiring bug caught at registration."""
    with pytest.raises(ValueError, match="registered twice"):
        registry.add(EchoTool())


async def test_an_acting_call_is_labelled_by_the_executor_that_ran(context: ToolContext) -> None:
    """Not a dry run, but a virtual executor acts: the trace says virtual, as the executor does."""
    acting = replace(context, executor=VirtualExecutor(script_home()), dry_run=False)
    outcome = await ToolRegistry([EchoTool(kind="intent")]).execute("Echo", '{"name": "x"}', acting)
    assert outcome.executor == "virtual"


async def test_an_in_process_tool_is_labelled_by_its_kind(
    registry: ToolRegistry, context: ToolContext
) -> None:
    """A built-in tool never touches an executor, so its kind is the label."""
    acting = replace(context, executor=VirtualExecutor(script_home()))
    outcome = await registry.execute("GetDateTime", "", acting)
    assert outcome.executor == "builtin"


def test_a_spec_made_before_is_offered_as_it_is() -> None:
    """A tool added with its entry offers that very entry; a registry kept from it too."""
    made = {"type": "function", "function": {"name": "Echo", "description": "made earlier"}}
    registry = ToolRegistry()
    registry.add(EchoTool(), made)
    registry.add(GetDateTimeTool())
    assert registry.specs()[0] is made
    kept = registry.keeping([registry.get("Echo")])
    assert kept.names() == ["Echo"]
    assert kept.specs() == [made]
    assert kept.specs()[0] is made


async def test_an_intent_answers_with_its_record_made_json_only_for_the_model(
    context: ToolContext,
) -> None:
    """The intent's typed result reaches the outcome as it is; its JSON is the model's text."""
    home = script_home()
    acting = replace(context, home=home, executor=VirtualExecutor(home))
    registry = build_registry(home, [])
    outcome = await registry.execute("HassTurnOn", '{"name": "Bed Light"}', acting)
    record = outcome.result.content
    assert isinstance(record, IntentResult)
    assert record.success[-1].id == "light.bed_light"
    assert [t.id for t in outcome.result.entity_targets()] == ["light.bed_light"]
    assert outcome.result.for_model() == record.for_model()
    assert json.loads(outcome.result.text()) == record.for_model()
