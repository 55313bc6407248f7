"""Exposed scripts as tools: offered with their fields, called with the model's arguments."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from addon.home.actions.executor import ServiceCall
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.tools.base import ToolContext
from addon.tools.home_tools import build_registry
from tests.home.script_home import DIM_LIGHT_PARAMETERS, script_home

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.fixture
def model() -> HomeModel:
    return script_home()


@pytest.fixture
def virtual(model: HomeModel) -> VirtualExecutor:
    return VirtualExecutor(model.copy(), clock=lambda: NOW)


@pytest.fixture
def context(model: HomeModel, virtual: VirtualExecutor) -> ToolContext:
    return ToolContext(
        home=model, executor=virtual, language="en", now=NOW, area_id=None, dry_run=True
    )


def spec_of(model: HomeModel, name: str) -> dict[str, object]:
    specs = {
        spec["function"]["name"]: spec["function"] for spec in build_registry(model, []).specs()
    }
    return specs[name]


def test_exposed_scripts_are_offered_with_their_fields(model: HomeModel) -> None:
    """The tool is named by object id, described by the script, typed by its fields."""
    spec = spec_of(model, "dim_light")
    assert spec["description"] == "Sets a light to a brightness. Aliases: ['dimmer']"
    assert spec["parameters"] == DIM_LIGHT_PARAMETERS


def test_unexposed_scripts_are_not_offered(model: HomeModel) -> None:
    """A script hidden from Assist is no tool."""
    assert "party" not in build_registry(model, []).names()


async def test_arguments_reach_the_executor_as_variables(
    model: HomeModel, virtual: VirtualExecutor, context: ToolContext
) -> None:
    """The call runs ``script.<key>`` with the arguments as data, area names made ids."""
    registry = build_registry(model, [])
    raw = '{"light": "light.bed_light", "level": "40", "room": "Bedroom"}'
    outcome = await registry.execute("dim_light", raw, context)
    assert outcome.result.content == {"success": True, "result": "Started Dim a light"}
    assert outcome.executor == "virtual"
    assert virtual.calls == (
        ServiceCall(
            "script",
            "dim_light",
            (),
            {"light": "light.bed_light", "level": 40.0, "room": "bedroom"},
        ),
    )


async def test_missing_required_field_goes_back_to_the_model(
    model: HomeModel, virtual: VirtualExecutor, context: ToolContext
) -> None:
    """Without a required field the model reads an error and nothing runs."""
    outcome = await build_registry(model, []).execute(
        "dim_light", '{"light": "light.bed_light"}', context
    )
    assert outcome.result.content == {
        "error": "ToolError",
        "error_text": "'level' is a required property",
    }
    assert virtual.calls == ()


async def test_out_of_range_value_goes_back_to_the_model(
    model: HomeModel, virtual: VirtualExecutor, context: ToolContext
) -> None:
    """A number outside the selector's range is refused, naming the field."""
    outcome = await build_registry(model, []).execute(
        "dim_light", '{"light": "light.bed_light", "level": 250}', context
    )
    assert outcome.result.content["error"] == "ToolError"
    assert "argument 'level'" in outcome.result.content["error_text"]
    assert virtual.calls == ()


async def test_a_renamed_script_runs_its_own_service(
    model: HomeModel, virtual: VirtualExecutor, context: ToolContext
) -> None:
    """The tool keeps the entity's name but calls the service its unique id names."""
    outcome = await build_registry(model, []).execute("good_night", "{}", context)
    assert outcome.ok, outcome.error
    assert virtual.calls == (ServiceCall("script", "bedtime", (), {}),)


async def test_scripts_without_known_fields_still_run() -> None:
    """When Home Assistant did not describe its scripts, they take no arguments but still run."""
    model = script_home(with_services=False)
    virtual = VirtualExecutor(model.copy(), clock=lambda: NOW)
    spec = spec_of(model, "dim_light")
    outcome = await build_registry(model, []).execute(
        "dim_light", "{}", ToolContext(home=model, executor=virtual, language="en", now=NOW)
    )
    assert spec["parameters"] == {"type": "object", "properties": {}, "required": []}
    assert (outcome.ok, virtual.calls) == (True, (ServiceCall("script", "dim_light", (), {}),))
