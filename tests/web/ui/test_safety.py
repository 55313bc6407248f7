"""The Safety page: the policy's entries, their pickers, their changes, what each governs.

Entries are listed, added, switched, edited and deleted; a PIN is kept hidden; the pickers are
filled from the live home; each exposed entity's line names the entry that governs it.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from html import unescape
from typing import Any

import pytest

from addon import keys
from addon.home.actions.confirmation import ConfirmationPolicy
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.web.ui.conftest import UI
from tests.web.ui.home import demo_home, serve_home

SERVICES: dict[str, Any] = {
    "climate": {name: {"fields": {}} for name in ("set_hvac_mode", "set_temperature", "turn_on")},
    "lock": {name: {"fields": {}} for name in ("lock", "open", "unlock")},
    "script": {"reload": {"fields": {}}},
}
"""Part of what Home Assistant's ``get_services`` answers for the demo home."""


@pytest.fixture
async def fake_home() -> AsyncIterator[FakeHomeAssistant]:
    """The demo home, whose Home Assistant also describes its services."""
    server = FakeHomeAssistant()
    serve_home(server, demo_home())

    async def get_services(connection: FakeConnection, message: dict[str, Any]) -> None:
        await connection.result(message["id"], SERVICES)

    server.handlers["get_services"] = get_services
    await server.start()
    yield server
    await server.close()


async def test_the_defaults_are_listed_and_on(ui: UI) -> None:
    """A new install lists locks, alarm panels and garage, gate and door covers, each on."""
    page = await ui.page("/safety")
    for target in ("lock", "alarm_control_panel", "cover.garage", "cover.gate", "cover.door"):
        assert f'data-target="{target}" data-enabled="yes"' in page


async def test_an_entry_switched_off_is_stored_off(ui: UI) -> None:
    """Turning the lock entry off keeps it, off, and the agent's policy no longer covers it."""
    policy = ui.client.app[keys.CONFIRMATION_POLICY]
    lock = next(entry for entry in policy.entries if entry.target == "lock")
    response = await ui.post(f"/safety/{lock.id}/switch", {"enabled": "off"})
    assert response.status == 303
    page = await ui.page("/safety")
    assert 'data-target="lock" data-enabled="no"' in page


async def test_a_pin_entry_never_shows_its_pin(ui: UI) -> None:
    """A PIN entry is added; the page says a PIN confirms it and never shows the PIN."""
    response = await ui.post(
        "/safety",
        {
            "scope": "entity",
            "target": "lock.front_door",
            "actions": "unlock",
            "method": "pin",
            "pin": "90210",
        },
    )
    assert response.status == 303
    page = await ui.page("/safety")
    assert 'data-target="lock.front_door"' in page
    assert "PIN (kept as a secret)" in page
    assert "90210" not in page


async def test_an_invalid_entry_is_refused_with_the_reason(ui: UI) -> None:
    """An entity entry that names no entity comes back 422 with the reason, nothing added."""
    before = len(ui.client.app[keys.CONFIRMATION_POLICY].entries)
    response = await ui.post(
        "/safety", {"scope": "entity", "target": "front door", "actions": "unlock"}
    )
    assert response.status == 422
    assert "is not a entity" in await response.text()
    assert len(ui.client.app[keys.CONFIRMATION_POLICY].entries) == before


async def test_the_pickers_offer_what_the_live_home_has(ui: UI) -> None:
    """Each scope lists what the home has: exposed entities by name, device classes, domains."""
    page = await ui.page("/safety")
    lists = datalists(page)
    assert ("cover.garage_door", "Garage Door (cover.garage_door)") in lists["entity"]
    assert not any(value.startswith("lock.") for value, _ in lists["entity"])  # none exposed
    assert [value for value, _ in lists["device_class"]].count("cover.garage") == 1
    assert "cover.gate" not in dict(lists["device_class"])  # a default entry, but no gate here
    domains = dict(lists["domain"])
    assert {"lock", "valve", "alarm_control_panel", "fan"} <= domains.keys()
    assert "cover.garage_door" not in domains
    assert 'list="safety-targets-entity"' in page
    assert 'data-domain="lock"' in page
    assert 'data-action="unlock"' in page
    assert 'data-action="open_cover"' in page


async def test_the_actions_offered_are_the_services_home_assistant_describes(ui: UI) -> None:
    """A climate entry is offered the climate services the home has, not a guess."""
    page = await ui.page("/safety")
    assert action_choices(page)["climate"] == ["set_hvac_mode", "set_temperature", "turn_on"]
    assert action_choices(page)["lock"] == ["lock", "open", "unlock"]


async def test_a_refused_device_class_entry_suggests_device_classes_again(ui: UI) -> None:
    """The form sent back after a refusal keeps its scope and the target's list follows it."""
    response = await ui.post(
        "/safety", {"scope": "device_class", "target": "garage", "actions": "open_cover"}
    )
    assert response.status == 422
    page = await response.text()
    assert 'list="safety-targets-device_class"' in page
    assert 'placeholder="cover.garage"' in page


async def test_an_entry_is_edited_and_deleted_and_both_are_in_the_changes(ui: UI) -> None:
    """Editing keeps the entry's id with its new actions; deleting removes it; both are listed."""
    policy = ui.client.app[keys.CONFIRMATION_POLICY]
    lock = next(entry for entry in policy.entries if entry.target == "lock")
    form = await ui.page(f"/safety/{lock.id}/edit")
    assert f"Change entry #{lock.id}" in form
    response = await ui.post(
        f"/safety/{lock.id}/edit",
        {"scope": "domain", "target": "lock", "actions": "unlock", "method": "yes"},
    )
    assert response.status == 303
    assert next(e for e in policy.entries if e.id == lock.id).actions == ("unlock",)
    response = await ui.post(f"/safety/{lock.id}/delete", {})
    assert response.status == 303
    assert all(entry.id != lock.id for entry in policy.entries)
    page = await ui.page("/safety")
    assert f"entry #{lock.id} edited" in page
    assert f"entry #{lock.id} deleted" in page
    assert 'data-target="lock"' not in page


async def test_a_pin_entry_edited_without_a_pin_keeps_its_pin(ui: UI) -> None:
    """Changing the actions of a PIN entry does not ask for the PIN again, nor lose it."""
    policy = ui.client.app[keys.CONFIRMATION_POLICY]
    added = await policy.add("entity", "cover.garage_door", ["open_cover"], "pin", "hash")
    response = await ui.post(
        f"/safety/{added.id}/edit",
        {
            "scope": "entity",
            "target": "cover.garage_door",
            "actions": "open_cover, toggle",
            "method": "pin",
        },
    )
    assert response.status == 303
    kept = next(e for e in policy.entries if e.id == added.id)
    assert (kept.actions, kept.pin_hash) == (("open_cover", "toggle"), "hash")


async def test_the_entry_that_governs_an_entity_is_named_with_what_it_wins_over(ui: UI) -> None:
    """The garage door's own entry wins over its device class's, and the page says why."""
    policy = ui.client.app[keys.CONFIRMATION_POLICY]
    garage = next(entry for entry in policy.entries if entry.target == "cover.garage")
    own = await policy.add("entity", "cover.garage_door", ["open_cover"], "yes", None)
    lines = governs(await ui.page("/safety"))["cover.garage_door"]
    assert lines == [
        f"open_cover: entry #{own.id} “entity cover.garage_door” (by yes) wins over entry"
        f" #{garage.id} “device class cover.garage” because the entity's own entry comes before"
        " its device class's entry.",
        f"set_cover_position, toggle: entry #{garage.id} “device class cover.garage” (by yes)"
        " is the only entry that covers them.",
    ]


async def test_of_two_entries_for_one_entity_the_later_governs_and_the_page_says_so(
    ui: UI,
) -> None:
    """Two entries on the garage door's open_cover: the later holds it, over both others."""
    policy = ui.client.app[keys.CONFIRMATION_POLICY]
    garage = next(entry for entry in policy.entries if entry.target == "cover.garage")
    first = await policy.add("entity", "cover.garage_door", ["open_cover"], "yes", None)
    later = await policy.add("entity", "cover.garage_door", ["open_cover"], "pin", "hash")
    compiled = ConfirmationPolicy.of_rows(policy.entries)
    assert compiled.covering("cover", "open_cover", "cover.garage_door", "garage") == (
        next(entry for entry in compiled.entries if entry.id == later.id)
    )
    lines = governs(await ui.page("/safety"))["cover.garage_door"]
    assert lines[0] == (
        f"open_cover: entry #{later.id} “entity cover.garage_door” (by PIN) wins over entry"
        f" #{garage.id} “device class cover.garage” because the entity's own entry comes before"
        f" its device class's entry, and over entry #{first.id} “entity cover.garage_door”"
        f" because of two entries for the same target the later one holds (#{later.id})."
    )


def datalists(html: str) -> dict[str, list[tuple[str, str]]]:
    """The target suggestions of each scope: ``{scope: [(value, label), ...]}``."""
    found: dict[str, list[tuple[str, str]]] = {}
    for match in re.finditer(
        r'<datalist id="safety-targets-(\w+)"[^>]*>(.*?)</datalist>', html, re.S
    ):
        options = re.findall(r'<option value="([^"]*)">([^<]*)</option>', match.group(2))
        found[match.group(1)] = [(value, unescape(label)) for value, label in options]
    return found


def action_choices(html: str) -> dict[str, list[str]]:
    """The action buttons offered for each domain."""
    groups = re.finditer(r'data-domain="([^"]+)"[^>]*>(.*?)</span>', html, re.S)
    return {group[1]: re.findall(r'data-action="([^"]+)"', group[2]) for group in groups}


def governs(html: str) -> dict[str, list[str]]:
    """Each governed entity's lines, as text: ``{entity_id: [line, ...]}``."""
    found: dict[str, list[str]] = {}
    for item in re.finditer(
        r'<li class="governs-entity" data-entity="([^"]+)">(.*?)</ul></li>', html, re.S
    ):
        lines = re.findall(r'<li class="governs-line"[^>]*>(.*?)</li>', item.group(2), re.S)
        found[item.group(1)] = [
            " ".join(unescape(re.sub("<[^>]+>", "", line)).split()) for line in lines
        ]
    return found


async def test_a_guest_rule_added_on_the_page_is_listed_and_applies_to_the_person(ui: UI) -> None:
    """A person rule with the guest preset is stored, listed in words, and compiled for turns."""
    response = await ui.post(
        "/safety/rules",
        {
            "kind": "person",
            "subject": "person.guest",
            "name": "Guest",
            "preset": "guest",
            "default": "act",
            "targets": "light.kitchen_lights: read",
        },
    )
    assert response.status == 303
    page = unescape(await ui.page("/safety"))
    assert 'data-subject="person.guest"' in page
    assert "preset guest, light.kitchen_lights: read" in page
    rules = ui.client.app[keys.ACTOR_RULES].rules
    assert [(rule.kind, rule.preset, dict(rule.targets)) for rule in rules] == [
        ("person", "guest", {"light.kitchen_lights": "read"})
    ]


async def test_a_satellite_rule_keeps_it_to_its_area_and_is_switched_off_and_deleted(
    ui: UI,
) -> None:
    """The own-area switch is stored; switched off, then deleted, the rule is gone."""
    await ui.post(
        "/safety/rules",
        {"kind": "satellite", "subject": "dev_kids", "default": "act", "own_area": "on"},
    )
    rule = ui.client.app[keys.ACTOR_RULES].rules[0]
    assert rule.own_area is True
    await ui.post(f"/safety/rules/{rule.id}/switch", {"enabled": "off"})
    assert ui.client.app[keys.ACTOR_RULES].rules[0].enabled is False
    await ui.post(f"/safety/rules/{rule.id}/delete", {})
    assert ui.client.app[keys.ACTOR_RULES].rules == ()


async def test_a_rule_line_with_an_unknown_level_is_refused_with_the_reason(ui: UI) -> None:
    """``lock: maybe`` is not stored; the page says which levels there are."""
    response = await ui.post(
        "/safety/rules", {"kind": "satellite", "subject": "dev_kids", "targets": "lock: maybe"}
    )
    assert response.status == 303
    query = response.headers["Location"].partition("?")[2]
    page = unescape(await ui.page(f"/safety?{query}"))
    assert "lock: the level is one of none, read, confirm, act" in page
    assert ui.client.app[keys.ACTOR_RULES].rules == ()
