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
