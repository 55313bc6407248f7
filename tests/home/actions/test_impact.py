"""The confirmation policy judges what a call does to each entity, whatever the call is named."""

from __future__ import annotations

from typing import Any

import pytest

from addon.home.actions.confirmation import (
    ConfirmationPolicy,
    Holds,
    PolicyEntry,
)
from addon.home.actions.gate import Gate
from addon.home.actions.impact import Effect, ImpactCache, Impacts
from addon.home.model.live import HomeModel
from addon.home.model.routines import Routines
from tests.fixtures.policy import default_policy
from tests.home.homes import HomeData

UNLOCK = {"action": "lock.unlock", "target": {"entity_id": "lock.front_door"}}


def policy() -> ConfirmationPolicy:
    """The install's defaults."""
    return default_policy()


def home(routines: Routines | None = None) -> HomeModel:
    """A garage with its door and a light, a hall with the front door, scenes and scripts."""
    data = HomeData()
    data.floor("ground", "Ground Floor")
    data.area("garage", "Garage", floor_id="ground")
    data.area("hall", "Hall", floor_id="ground")
    data.area("office", "Office")
    data.device("dev_door", "Garage Opener", area_id="garage")
    data.entity(
        "cover.garage_door",
        state="closed",
        friendly_name="Garage Door",
        device_id="dev_door",
        attributes={"device_class": "garage"},
    )
    data.entity("light.garage", friendly_name="Garage Light", area_id="garage")
    data.entity("lock.front_door", state="locked", friendly_name="Front Door", area_id="hall")
    data.entity("light.hall", friendly_name="Hall Light", area_id="hall")
    data.entity("light.desk", friendly_name="Desk", area_id="office")
    data.entity("scene.leave", friendly_name="Leave", attributes={"entity_id": ["lock.front_door"]})
    data.entity("scene.evening", friendly_name="Evening", attributes={"entity_id": ["light.hall"]})
    for name in (
        "unlock",
        "lights",
        "nested",
        "templated",
        "action_template",
        "device",
        "by_name",
        "loop",
        "unread",
        "shell",
    ):
        data.entity(f"script.{name}", state="off", unique_id=name)
    data.entity("automation.arrive", friendly_name="Arrive")
    for entry in data.entities:
        if entry["entity_id"] == "lock.front_door":
            entry["labels"] = ["entry"]
    return data.build(routines=routines)


ROUTINES = Routines.of(
    scripts={
        "script.unlock": {"sequence": [UNLOCK]},
        "script.lights": {"sequence": [{"action": "light.turn_on", "target": {"area_id": "hall"}}]},
        "script.nested": {
            "sequence": [
                {"delay": 1},
                {
                    "choose": [
                        {"conditions": [], "sequence": [{"action": "light.turn_off"}]},
                        {"conditions": [], "sequence": {"parallel": [{"scene": "scene.leave"}]}},
                    ]
                },
            ]
        },
        "script.templated": {
            "sequence": [{"action": "lock.unlock", "target": {"entity_id": "{{ door }}"}}]
        },
        "script.action_template": {"sequence": [{"action": "{{ what }}"}]},
        "script.device": {"sequence": [{"device_id": "abc", "domain": "lock", "type": "unlock"}]},
        "script.by_name": {"sequence": [{"service": "script.unlock"}]},
        "script.loop": {"sequence": [{"action": "script.loop"}, {"action": "light.turn_on"}]},
        "script.shell": {"sequence": [{"if": [], "then": [{"action": "shell_command.wipe"}]}]},
    },
    automations={"automation.arrive": {"actions": [{"action": "script.turn_on",
                                                    "target": {"entity_id": "script.unlock"}}]}},
    scenes={"scene.evening": {"light.hall": "on"}},
)  # fmt: skip


def holds(routines: Routines | None = ROUTINES) -> Holds:
    """The turn's holds in :func:`home`, as the agent builds them."""
    model = home(routines)

    def describe(entity_id: str) -> tuple[str | None, str]:
        entity = model.entity(entity_id)
        return (entity.device_class, entity.name) if entity else (None, entity_id)

    return Holds(policy(), describe, impacts=Impacts(model))


def held(
    action: str,
    entity_ids: tuple[str, ...] = (),
    data: dict[str, Any] | None = None,
    groups: dict[str, list[str]] | None = None,
    routines: Routines | None = ROUTINES,
) -> bool:
    """Whether the defaults hold ``action`` in :func:`home`."""
    domain, service = action.split(".", 1)
    return holds(routines).check(domain, service, entity_ids, data or {}, groups=groups) is not None


def test_a_generic_toggle_of_the_garage_door_is_held() -> None:
    """``homeassistant.toggle`` on the garage door is ``cover.toggle``: it opens a closed door."""
    assert held("homeassistant.toggle", ("cover.garage_door",))


def test_a_generic_turn_on_of_a_lock_does_nothing_and_is_not_held() -> None:
    """A lock has no ``turn_on``: Home Assistant skips it, so nothing is asked."""
    assert not held("homeassistant.turn_on", ("lock.front_door",))


def test_a_cover_toggle_counts_as_opening_for_an_entry_naming_only_open_cover() -> None:
    """An entry naming ``open_cover`` holds a toggle, which opens a closed door."""
    entry = PolicyEntry(1, "entity", "cover.garage_door", ("open_cover",))
    checked = Holds(ConfirmationPolicy.of([entry]), impacts=Impacts(home()))
    assert checked.check("cover", "toggle", ["cover.garage_door"], {}) is not None


@pytest.mark.parametrize(
    ("action", "groups"),
    [
        ("cover.open_cover", {"area_id": ["garage"]}),
        ("homeassistant.toggle", {"area_id": ["garage"]}),
        ("homeassistant.toggle", {"device_id": ["dev_door"]}),
        ("homeassistant.toggle", {"floor_id": ["ground"]}),
        ("lock.unlock", {"label_id": ["entry"]}),
    ],
)
def test_a_group_holding_a_covered_entity_is_held(
    action: str, groups: dict[str, list[str]]
) -> None:
    """An area, device, floor or label holds when any entity in it is covered."""
    assert held(action, groups=groups)


def test_a_group_with_nothing_covered_is_not_held() -> None:
    """Toggling the office (a desk light) asks nothing; opening the hall's covers neither."""
    assert not held("homeassistant.toggle", groups={"area_id": ["office"]})
    assert not held("cover.open_cover", groups={"area_id": ["hall"]})


def test_an_unknown_area_is_held_when_its_domain_could_be_covered() -> None:
    """An area the home does not know cannot be resolved: held as before, by its domain."""
    assert held("cover.open_cover", groups={"area_id": ["shed"]})
    assert held("homeassistant.toggle", groups={"area_id": ["shed"]})


def test_a_scene_that_sets_the_lock_is_held_and_one_that_sets_a_light_is_not() -> None:
    """A YAML scene naming the lock (states unknown) asks; a known light scene does not."""
    assert held("scene.turn_on", ("scene.leave",))
    assert held("homeassistant.turn_on", ("scene.leave",))
    assert not held("scene.turn_on", ("scene.evening",))


def test_scene_apply_with_the_lock_unlocked_is_held_and_locked_is_not() -> None:
    """``scene.apply``'s entities are states: ``unlocked`` is ``lock.unlock``."""
    assert held("scene.apply", data={"entities": {"lock.front_door": "unlocked"}})
    assert held("scene.apply", data={"entities": {"lock.front_door": {"state": "unlocked"}}})
    assert not held("scene.apply", data={"entities": {"lock.front_door": "locked"}})


@pytest.mark.parametrize(
    ("action", "entity_ids"),
    [
        ("script.turn_on", ("script.unlock",)),
        ("script.unlock", ()),
        ("homeassistant.turn_on", ("script.unlock",)),
        ("script.nested", ()),
        ("script.by_name", ()),
        ("automation.trigger", ("automation.arrive",)),
    ],
)
def test_a_script_or_automation_that_unlocks_is_held(
    action: str, entity_ids: tuple[str, ...]
) -> None:
    """Directly, by name, nested in choose/parallel, through a scene or another script."""
    assert held(action, entity_ids)


def test_a_script_that_only_lights_is_not_held_and_a_loop_ends() -> None:
    """Known harmless actions ask nothing; a script calling itself is followed once."""
    assert not held("script.turn_on", ("script.lights",))
    assert not held("script.loop", ())


def test_a_script_unlocking_a_templated_target_is_held_as_any_lock() -> None:
    """``lock.unlock`` on a template: some lock is unlocked, so the lock entry holds."""
    found = holds().check("script", "turn_on", ["script.templated"], {})
    assert found is not None
    assert found.why == "lock.unlock on some lock"


@pytest.mark.parametrize("script", ["script.action_template", "script.device", "script.unread"])
def test_a_script_whose_effect_cannot_be_known_is_held(script: str) -> None:
    """An action named by a template, a device action, a configuration not read: held."""
    found = holds().check("script", "turn_on", [script], {})
    assert found is not None
    assert found.why.startswith("cannot be known")


def test_a_home_whose_routines_were_not_read_judges_scripts_by_name() -> None:
    """A fixture home read no configurations: scripts are judged by name, as before."""
    assert not held("script.turn_on", ("script.unlock",), routines=None)


def test_a_plain_call_is_judged_by_name_alone() -> None:
    """``light.turn_off`` on lights needs no expansion."""
    assert Impacts(home()).of("light", "turn_off", ["light.hall"], {}) is None


def test_the_expansion_names_each_entity_and_its_own_action() -> None:
    """``homeassistant.toggle`` on the garage area: each entity's own domain service."""
    impact = Impacts(home()).of("homeassistant", "toggle", [], {}, {"area_id": ["garage"]})
    assert impact is not None
    assert set(impact.effects) == {
        Effect("cover", "cover.garage_door", ("toggle", "open_cover")),
        Effect("light", "light.garage", ("toggle",)),
    }


def test_expansions_are_kept_per_home_model_and_revision() -> None:
    """The same model and revision share one expansion; a new revision gets a new one."""
    model = home(ROUTINES)
    cache = ImpactCache()
    first = cache.of(model)
    assert cache.of(model) is first
    model.revision += 1
    assert cache.of(model) is not first


@pytest.mark.parametrize(
    ("action", "entity_ids"),
    [
        ("script.turn_on", ("script.shell",)),
        ("script.shell", ()),
        ("homeassistant.turn_on", ("script.shell",)),
    ],
)
def test_a_script_reaching_a_forbidden_action_is_refused(
    action: str, entity_ids: tuple[str, ...]
) -> None:
    """The host-harming list holds for what a script calls, however the script is started."""
    gate = Gate(dry_run=False, holds=holds())
    decision = gate.reaches(action, entity_ids, {})
    assert decision.verdict == "refuse"
    assert decision.rule == "forbidden"
    assert "shell_command.wipe" in decision.reason
    assert gate.decisions == [decision]


def test_a_script_reaching_only_the_home_is_not_refused() -> None:
    """A script that lights the hall reaches nothing forbidden (the policy still judges it)."""
    gate = Gate(dry_run=False, holds=holds())
    assert gate.reaches("script.turn_on", ["script.lights"], {}).allowed
    assert gate.reaches("light.turn_on", ["light.hall"], {}).allowed
    assert not gate.decisions
