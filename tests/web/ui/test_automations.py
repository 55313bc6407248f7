"""The Automations page: drafts with their summary, YAML and entities; discard and edit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon import keys
from addon.store.automations import StoredDraft
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.web.ui.conftest import UI
from tests.web.ui.home import demo_home, serve_home

COVER = "cover.garage_door"
CONFIG: dict[str, Any] = {
    "alias": "Garage at night",
    "description": "Every night at 22:00 it closes the garage door.",
    "triggers": [{"trigger": "time", "at": "22:00:00"}],
    "conditions": [],
    "actions": [{"action": "cover.close_cover", "target": {"entity_id": COVER}}],
    "mode": "single",
}


@pytest.fixture
async def fake_home() -> AsyncIterator[FakeHomeAssistant]:
    """The demo home, whose Home Assistant finds every configuration valid."""
    server = FakeHomeAssistant()
    serve_home(server, demo_home())

    async def validate_config(connection: FakeConnection, message: dict[str, Any]) -> None:
        parts = ("triggers", "conditions", "actions")
        valid = {"valid": True, "error": None}
        await connection.result(message["id"], {part: valid for part in parts if part in message})

    server.handlers["validate_config"] = validate_config
    await server.start()
    yield server
    await server.close()


async def drafted(
    ui: UI, config: dict[str, Any] = CONFIG, conversation_id: str | None = None
) -> StoredDraft:
    """A draft as the agent keeps one."""
    return await ui.client.app[keys.AUTOMATIONS].records.add(
        str(config["description"]),
        config,
        [COVER],
        covered=None,
        confirm_by="yes",
        conversation_id=conversation_id,
    )


async def test_a_draft_is_listed_with_its_summary_yaml_entities_and_buttons(ui: UI) -> None:
    """The page shows what the draft will do, its YAML, what it touches, and the three buttons."""
    draft = await drafted(ui)
    page = await ui.page("/automations")
    assert f'data-draft="{draft.id}" data-state="draft"' in page
    assert "Every night at 22:00 it closes the garage door." in page
    assert "action: cover.close_cover" in page
    assert f'<span class="mono">{COVER}</span>' in page
    for label in ("Approve", "Edit", "Discard"):
        assert f'aria-label="{label} draft {draft.id}"' in page


async def test_a_draft_links_to_the_conversation_that_drafted_it(ui: UI) -> None:
    """The draft's turn (and a spoken approval after it) is one click away, in its trace."""
    await drafted(ui, conversation_id="garage-chat")
    page = await ui.page("/automations")
    assert '/conversations/garage-chat">this conversation</a>' in page


async def test_discarding_a_draft_keeps_it_as_discarded(ui: UI) -> None:
    """Discard moves the draft out of the waiting list; the row stays, discarded."""
    draft = await drafted(ui)
    response = await ui.post(f"/automations/{draft.id}/discard", {})
    assert response.status == 303
    assert (await ui.client.app[keys.AUTOMATIONS].records.get(draft.id)).state == "discarded"
    assert response.headers["Location"].endswith("/automations?done=discarded")
    page = await ui.page("/automations?done=discarded")
    assert "Draft discarded." in page
    assert 'data-state="discarded"' in page


async def test_an_edit_is_judged_again_and_a_forbidden_action_refused(ui: UI) -> None:
    """An edited draft calling shell_command is refused by the gate; a valid edit is kept."""
    draft = await drafted(ui)
    forbidden = (
        "alias: Garage\ntriggers:\n- trigger: time\n  at: '22:00:00'\n"
        "actions:\n- action: shell_command.wipe\n"
    )
    response = await ui.post(f"/automations/{draft.id}/edit", {"config": forbidden})
    assert response.status == 422
    assert "shell_command.wipe can harm the host" in await response.text()
    fine = forbidden.replace(
        "shell_command.wipe", f"cover.open_cover\n  target:\n    entity_id: {COVER}"
    )
    response = await ui.post(f"/automations/{draft.id}/edit", {"config": fine})
    assert response.status == 303
    kept = await ui.client.app[keys.AUTOMATIONS].records.get(draft.id)
    assert kept.config["actions"][0]["action"] == "cover.open_cover"
    assert kept.covered == f"cover.open_cover on {COVER}"
    assert kept.confirm_by == "panel"  # the default garage entry is confirmed by a plain yes
