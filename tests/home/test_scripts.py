"""Scripts in the model: their fields from ``get_services``, their services, dry runs of them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from addon.errors import ToolError
from addon.home.actions.executor import ScriptRun, ServiceCall
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.records import ScriptField
from tests.home.script_home import script_home

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_fields_are_parsed_into_typed_records() -> None:
    """Each field keeps its key, name, description, required flag and selector."""
    service = script_home().script_service("script.dim_light")
    assert service is not None
    assert (service.name, service.description) == ("Dim a light", "Sets a light to a brightness")
    level = service.fields[1]
    assert level == ScriptField(
        key="level",
        name="Level",
        description="Brightness in percent",
        required=True,
        selector="number",
        selector_config=level.selector_config,
    )
    assert dict(level.selector_config) == {"min": 1.0, "max": 100.0, "step": 1.0, "mode": "slider"}
    assert [f.key for f in service.fields] == ["light", "level", "room"]


def test_the_script_integrations_own_services_are_not_scripts() -> None:
    """``script.turn_on`` and friends, listed beside the scripts, are left out."""
    assert set(script_home().scripts) == {"dim_light", "bedtime", "party"}


def test_a_renamed_script_is_found_by_its_unique_id() -> None:
    """The service is named by the registry's unique id, not the entity id."""
    model = script_home()
    service = model.script_service("script.good_night")
    assert (model.script_service_name("script.good_night"), service and service.name) == (
        "bedtime",
        "Good Night",
    )


def test_copies_share_the_scripts() -> None:
    """A dry run's copy knows the same scripts."""
    model = script_home()
    assert model.copy().scripts is model.scripts


async def test_a_dry_run_records_a_script_call_and_changes_nothing() -> None:
    """The virtual executor accepts ``script.<key>`` with variables and only records it."""
    model = script_home()
    virtual = VirtualExecutor(model.copy(), clock=lambda: NOW)
    before = virtual.model.state("script.dim_light")
    await virtual.call_service(ServiceCall("script", "dim_light", (), {"level": 40}))
    assert virtual.calls == (ServiceCall("script", "dim_light", (), {"level": 40}),)
    assert virtual.model.state("script.dim_light") == before
    assert await virtual.has_service("script", "bedtime")


async def test_a_dry_run_of_a_script_records_it_and_has_no_response() -> None:
    """``run_script`` on the virtual executor records the call; nothing ran, so nothing answers."""
    virtual = VirtualExecutor(script_home().copy(), clock=lambda: NOW)
    run = await virtual.run_script("dim_light", {"level": 40}, wait=5.0)
    assert (run, run.response) == (ScriptRun(), None)
    assert virtual.calls == (ServiceCall("script", "dim_light", (), {"level": 40}),)


async def test_a_dry_run_refuses_to_run_an_unknown_script() -> None:
    """``run_script`` refuses a script the home does not have, as ``call_service`` does."""
    virtual = VirtualExecutor(script_home().copy(), clock=lambda: NOW)
    with pytest.raises(ToolError, match=r"Action script\.nothing not found"):
        await virtual.run_script("nothing", {}, wait=5.0)
    assert virtual.calls == ()


async def test_a_dry_run_refuses_an_unknown_script() -> None:
    """A script service the home does not have is refused, as Home Assistant's ServiceNotFound."""
    virtual = VirtualExecutor(script_home().copy(), clock=lambda: NOW)
    with pytest.raises(ToolError, match=r"Action script\.nothing not found"):
        await virtual.call_service(ServiceCall("script", "nothing", ()))


async def test_script_turn_on_still_runs_the_entity() -> None:
    """``script.turn_on`` on a script entity keeps its effect (last triggered)."""
    virtual = VirtualExecutor(script_home().copy(), clock=lambda: NOW)
    await virtual.call_service(ServiceCall("script", "turn_on", ("script.dim_light",)))
    state = virtual.model.state("script.dim_light")
    assert state is not None
    assert state.attributes["last_triggered"] == NOW.isoformat()
