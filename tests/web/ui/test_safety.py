"""The Safety page: the default policy listed, an entry added, switched off, a PIN kept hidden."""

from __future__ import annotations

from addon import keys
from tests.web.ui.conftest import UI


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
    """Exposed entities by name, the home's device classes and domains, each domain's actions."""
    page = await ui.page("/safety")
    assert '<option value="cover.garage_door">Garage Door (cover.garage_door)</option>' in page
    assert '<option value="cover.garage">device class cover: garage</option>' in page
    assert '<option value="fan">domain fan</option>' in page
    assert 'data-domain="lock"' in page
    assert 'data-action="unlock"' in page
    assert 'data-action="open_cover"' in page


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
    """The garage door's own entry wins over its device class's, and the page says so."""
    policy = ui.client.app[keys.CONFIRMATION_POLICY]
    garage = next(entry for entry in policy.entries if entry.target == "cover.garage")
    own = await policy.add("entity", "cover.garage_door", ["open_cover"], "yes", None)
    page = await ui.page("/safety")
    line = (
        f'open_cover</span>: entry #{own.id} (entity <span class="mono">cover.garage_door</span>,'
        f' by yes), over #{garage.id} (device class <span class="mono">cover.garage</span>),'
        " because it is the entity&#39;s own"
    )
    assert line in page
    assert f"toggle</span>: entry #{garage.id} (device class" in page
