"""The home's context and tools, made once per home model and revision."""

from __future__ import annotations

from addon.agent.context import HomeContext
from addon.tools.base import tool_spec
from addon.tools.home_tools import HomeToolSet
from tests.home.homes import demo_home

BUDGET = 8_000


def test_the_home_tools_are_made_once_per_model_and_revision() -> None:
    """Turns on the same home share one tool set; renaming a device in place makes a new one."""
    model = demo_home().build()
    context = HomeContext(BUDGET)
    first = context.home_tools(model)
    assert context.home_tools(model) is first
    renamed = {"+": {"a": {"friendly_name": "Workshop Light"}}}
    model.apply_entity_diff({"c": {"light.garage_light": renamed}})
    assert context.home_tools(model) is not first
    other = demo_home().build()
    assert context.home_tools(other) is not context.home_tools(model)


def test_a_tool_set_holds_each_tools_entry() -> None:
    """The entries are those the tools give, in the same order: what a turn would have made."""
    tools = HomeToolSet.of(demo_home().build())
    assert tools.tools
    assert list(tools.specs) == [tool_spec(tool) for tool in tools.tools]
