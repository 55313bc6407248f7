"""The Memories page: list, search, filters, add, edit, delete, restore, forget everything."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from addon import keys
from addon.config.settings import Settings
from addon.memory.service import MemoryService
from addon.store.database import Store
from addon.store.memories import MemoryRecord, memories, memory_upkeep
from tests.fixtures.app import MakeApp
from tests.web.csrf import plant_key
from tests.web.ui.conftest import UI
from tests.web.ui.html import misplaced_urls, parse
from tests.web.ui.seed import T0, seed_turn

NOW = datetime.now(UTC)


async def remember(store: Store, content: str, **options: Any) -> MemoryRecord:
    """Store a memory as the agent or the tools would."""
    async with store.sessionmaker.begin() as session:
        return await memories.add_memory(session, content, **options)


async def stored(store: Store, memory_id: int) -> MemoryRecord:
    async with store.sessionmaker() as session:
        return await memories.get_memory(session, memory_id)


def post(ui: UI, path: str, data: dict[str, str]) -> Any:
    """POST a form with the test token only (pages fetched before set a cookie of their own)."""
    ui.client.session.cookie_jar.clear()
    return ui.post(path, data)


def form(**fields: str) -> dict[str, str]:
    """A complete, valid memory form with ``fields`` changed."""
    return {"content": "The cat is called Miso.", "kind": "fact", "importance": "0.5"} | fields


def listed(html: str) -> list[str]:
    """The memories' texts in the list, in order."""
    return re.findall(r'<a class="row-title" href="[^"]*/memories/\d+">([^<]*)</a>', html)


@pytest.fixture
async def learned(ui: UI) -> tuple[MemoryRecord, int]:
    """A memory learned from a stored turn, and that turn's id."""
    turn_id = await seed_turn(
        ui.store, "conv-miso", "remember that the cat is called Miso", "I will.", at=T0
    )
    memory = await remember(
        ui.store,
        "The cat is called Miso.",
        source="conversation",
        conversation_id="conv-miso",
        turn_id=turn_id,
        importance=0.8,
    )
    return memory, turn_id


async def recalled_later(store: Store, memory: MemoryRecord) -> int:
    """Recall ``memory`` into a turn of a later conversation; returns that turn's id."""
    turn_id = await seed_turn(
        store, "conv-later", "what is the cat called", "Miso.", at=T0 + timedelta(days=1)
    )
    async with store.sessionmaker.begin() as session:
        await memory_upkeep.mark_recalled(session, [memory.id], turn_id=turn_id)
    return turn_id


@pytest.mark.urls
async def test_list_shows_each_memory_and_where_it_came_from(
    ui: UI, learned: tuple[MemoryRecord, int]
) -> None:
    """Text, kind, importance and recalls are shown; the source links to its turn, under prefix."""
    await remember(ui.store, "The garage code is changed monthly.", kind="context")
    html = await ui.page("/memories")
    page = parse(html)
    assert listed(html) == ["The garage code is changed monthly.", "The cat is called Miso."]
    assert "importance 0.80" in page.text
    assert "recalled 0 times" in page.text
    assert "added by hand" in page.text
    assert "context" in page.text
    turn_link = f"{ui.prefix}/conversations/conv-miso#turn-{learned[1]}"
    assert turn_link in [ref.url for ref in page.references]
    assert misplaced_urls(html, ui.prefix) == []


async def test_nav_links_to_memories(ui: UI) -> None:
    """The Memories tab is a link now, marked current on its page."""
    html = await ui.page("/memories")
    assert re.search(r'<a class="tab active" href="[^"]*/memories" aria-current="page">', html)
    assert "soon" not in parse(html).text


async def test_search_finds_memories_by_their_words(ingress_ui: UI) -> None:
    """``q`` keeps the memories holding every word searched for."""
    await remember(ingress_ui.store, "The garage door sticks in winter.")
    await remember(ingress_ui.store, "Anna likes the kitchen warm.")
    assert listed(await ingress_ui.page("/memories?q=garage")) == [
        "The garage door sticks in winter."
    ]
    assert listed(await ingress_ui.page("/memories?q=garage+kitchen")) == []


async def test_filters_by_kind_source_pinned_and_expiring(ingress_ui: UI) -> None:
    """Each filter keeps only the memories it names; expiring means within seven days."""
    store = ingress_ui.store
    await remember(store, "Fact by hand.")
    await remember(store, "Learned preference.", kind="preference", source="conversation")
    await remember(store, "Pinned fact.", pinned=True)
    await remember(store, "Soon gone.", kind="event", expires_at=NOW + timedelta(days=3))
    await remember(store, "Gone later.", kind="event", expires_at=NOW + timedelta(days=30))
    assert listed(await ingress_ui.page("/memories?kind=preference")) == ["Learned preference."]
    assert listed(await ingress_ui.page("/memories?source=conversation")) == ["Learned preference."]
    assert listed(await ingress_ui.page("/memories?pinned=1")) == ["Pinned fact."]
    assert "Pinned fact." not in listed(await ingress_ui.page("/memories?pinned=0"))
    html = await ingress_ui.page("/memories?expiring=1")
    assert listed(html) == ["Soon gone."]
    assert "expires soon" in parse(html).text


async def test_filters_by_person_and_the_household(ingress_ui: UI) -> None:
    """A person's memories, the household's (no person), and the person offered in the form."""
    store = ingress_ui.store
    await remember(store, "Anna likes tea.", person_id="person.anna")
    await remember(store, "Ben likes coffee.", person_id="person.ben")
    await remember(store, "The bins go out on Monday.")
    html = await ingress_ui.page("/memories?person=person.anna")
    assert listed(html) == ["Anna likes tea."]
    assert '<option value="person.ben">' in html
    assert listed(await ingress_ui.page("/memories?person=household")) == [
        "The bins go out on Monday."
    ]


@pytest.mark.parametrize(
    "query", ["kind=secret", "source=dream", "pinned=yes", "offset=-1", "offset=1e9"]
)
async def test_a_filter_the_form_cannot_send_is_a_400_page(ingress_ui: UI, query: str) -> None:
    """A value outside the filter's choices answers 400 as a page, never a 500."""
    response = await ingress_ui.get(f"/memories?{query}")
    assert response.status == 400
    assert response.content_type == "text/html"


async def test_add_by_hand_stores_every_field(ingress_ui: UI) -> None:
    """The add form stores text, kind, importance, expiry and pin, as added by hand."""
    data = form(kind="preference", importance="0.9", expires_at="2030-01-02T03:04+00:00")
    response = await post(ingress_ui, "/memories/new", data | {"pinned": "on"})
    assert response.status == 303, await response.text()
    match = re.search(r"/memories/(\d+)\?done=added$", response.headers["Location"])
    assert match, response.headers["Location"]
    memory = await stored(ingress_ui.store, int(match.group(1)))
    assert (memory.content, memory.kind, memory.importance) == (
        "The cat is called Miso.",
        "preference",
        0.9,
    )
    assert (memory.source, memory.pinned) == ("manual", True)
    assert memory.expires_at == datetime(2030, 1, 2, 3, 4, tzinfo=UTC)


async def test_add_refuses_bad_input_beside_each_field(ingress_ui: UI) -> None:
    """Empty text, a kind, importance or expiry that is not one: 422, each said, nothing stored."""
    data = {"content": "  ", "kind": "secret", "importance": "1.5", "expires_at": "tomorrow"}
    response = await post(ingress_ui, "/memories/new", data)
    assert response.status == 422
    html = await response.text()
    text = parse(html).text
    assert "Write what to remember." in text
    assert "Choose one of fact, preference, context, event." in text
    assert "A number from 0 to 1" in text
    assert "A date and time such as" in text
    assert 'value="tomorrow"' in html
    async with ingress_ui.store.sessionmaker() as session:
        assert await memories.count_memories(session) == 0


@pytest.mark.parametrize("importance", ["nan", "inf", "-0.1", "", "½"])
async def test_importance_must_be_a_number_from_0_to_1(ingress_ui: UI, importance: str) -> None:
    """Importance that is no number from 0 to 1 is refused, never stored."""
    response = await post(ingress_ui, "/memories/new", form(importance=importance))
    assert response.status == 422


async def test_edit_saves_the_fields_and_shows_them_again(ingress_ui: UI) -> None:
    """Saving the edit form changes the memory; its page then shows the new values."""
    memory = await remember(ingress_ui.store, "The cat is called Miso.")
    data = form(content="The cat is called Mochi.", kind="fact", importance="0.25")
    response = await post(ingress_ui, f"/memories/{memory.id}", data | {"pinned": "on"})
    assert response.status == 303
    assert response.headers["Location"].endswith(f"/memories/{memory.id}?done=saved")
    changed = await stored(ingress_ui.store, memory.id)
    assert (changed.content, changed.importance, changed.pinned) == (
        "The cat is called Mochi.",
        0.25,
        True,
    )
    html = await ingress_ui.page(f"/memories/{memory.id}")
    assert "The cat is called Mochi.</textarea>" in html
    assert 'value="0.25"' in html


async def test_edit_round_trips_the_expiry_in_the_home_zone(ingress_ui: UI) -> None:
    """An expiry written without a zone is read back in the form exactly as it was written."""
    memory = await remember(ingress_ui.store, "Guests until Sunday.", kind="context")
    data = form(content="Guests until Sunday.", kind="context", expires_at="2030-06-01T18:30")
    assert (await post(ingress_ui, f"/memories/{memory.id}", data)).status == 303
    assert (await stored(ingress_ui.store, memory.id)).expires_at is not None
    assert 'value="2030-06-01T18:30"' in await ingress_ui.page(f"/memories/{memory.id}")
    data["expires_at"] = ""
    assert (await post(ingress_ui, f"/memories/{memory.id}", data)).status == 303
    assert (await stored(ingress_ui.store, memory.id)).expires_at is None


async def test_refused_edit_keeps_what_was_typed(ingress_ui: UI) -> None:
    """A refused save answers 422 with the typed text kept and the memory unchanged."""
    memory = await remember(ingress_ui.store, "The cat is called Miso.")
    data = form(content="The cat is called Mochi.", importance="high")
    response = await post(ingress_ui, f"/memories/{memory.id}", data)
    assert response.status == 422
    html = await response.text()
    assert "The cat is called Mochi.</textarea>" in html
    assert 'aria-invalid="true" aria-describedby="problem-importance"' in html
    assert (await stored(ingress_ui.store, memory.id)).content == "The cat is called Miso."


async def test_delete_then_restore(ingress_ui: UI) -> None:
    """Deleting hides a memory from the list and shows it under deleted; restore brings it back."""
    memory = await remember(ingress_ui.store, "The cat is called Miso.")
    response = await post(ingress_ui, f"/memories/{memory.id}/delete", {})
    assert response.status == 303
    assert listed(await ingress_ui.page("/memories")) == []
    assert listed(await ingress_ui.page("/memories?deleted=1")) == ["The cat is called Miso."]
    assert (await stored(ingress_ui.store, memory.id)).deleted_at is not None
    response = await post(ingress_ui, f"/memories/{memory.id}/restore", {})
    assert response.status == 303
    assert listed(await ingress_ui.page("/memories")) == ["The cat is called Miso."]


async def test_a_row_button_returns_to_the_list_as_filtered(ingress_ui: UI) -> None:
    """Delete pressed in a filtered list comes back to that list, its filters kept."""
    memory = await remember(ingress_ui.store, "The garage door sticks.")
    data = {"back": "list", "filter.q": "garage", "filter.kind": "fact"}
    response = await post(ingress_ui, f"/memories/{memory.id}/delete", data)
    assert response.status == 303
    location = response.headers["Location"]
    assert location.startswith(f"{ingress_ui.prefix}/memories?")
    assert "q=garage" in location
    assert "kind=fact" in location
    assert "done=deleted" in location


async def test_forget_everything_needs_the_words_typed(ingress_ui: UI) -> None:
    """Without the typed words nothing is forgotten (422); with them, every memory goes."""
    keep = await remember(ingress_ui.store, "The cat is called Miso.")
    gone = await remember(ingress_ui.store, "Deleted already.")
    await post(ingress_ui, f"/memories/{gone.id}/delete", {})
    confirm = parse(await ingress_ui.page("/memories/forget")).text
    assert "Type “forget everything” to confirm" in confirm
    for typed in ({}, {"confirm": "yes"}):
        response = await post(ingress_ui, "/memories/forget", typed)
        assert response.status == 422
        assert "Nothing was forgotten" in parse(await response.text()).text
    assert (await stored(ingress_ui.store, keep.id)).deleted_at is None
    response = await post(ingress_ui, "/memories/forget", {"confirm": " Forget  everything "})
    assert response.status == 303
    assert response.headers["Location"].endswith("/memories?done=forgotten")
    async with ingress_ui.store.sessionmaker() as session:
        assert await memories.list_memories(session, deleted=True) == []
        assert await memories.count_memories(session) == 0


async def test_the_list_offers_forget_everything_as_a_link_only(ingress_ui: UI) -> None:
    """No form on the list posts to forget everything: it takes the confirmation page."""
    await remember(ingress_ui.store, "The cat is called Miso.")
    page = parse(await ingress_ui.page("/memories"))
    assert not [f for f in page.forms if f.get("action", "").endswith("/memories/forget")]
    assert f"{ingress_ui.prefix}/memories/forget" in [ref.url for ref in page.references]


@pytest.mark.urls
async def test_memory_shows_its_turn_and_the_turns_it_was_recalled_into(
    ui: UI, learned: tuple[MemoryRecord, int]
) -> None:
    """The memory's page links to the turn it came from and to each turn it was recalled into."""
    memory, source_turn = learned
    recall_turn = await recalled_later(ui.store, memory)
    html = await ui.page(f"/memories/{memory.id}")
    page = parse(html)
    links = [ref.url for ref in page.references]
    assert f"{ui.prefix}/conversations/conv-miso#turn-{source_turn}" in links
    assert f"{ui.prefix}/conversations/conv-later#turn-{recall_turn}" in links
    assert "learned from “remember that the cat is called Miso”" in page.text
    assert "“what is the cat called”" in page.text
    assert "1 time" in page.text
    assert misplaced_urls(html, ui.prefix) == []
    for url in links:
        if url.startswith(f"{ui.prefix}/conversations/"):
            response = await ui.get(url.removeprefix(ui.prefix).split("#")[0])
            assert response.status == 200, url


async def test_a_source_turn_no_longer_stored_is_said(ingress_ui: UI) -> None:
    """A memory whose conversation retention removed says so instead of linking nowhere."""
    memory = await remember(ingress_ui.store, "Old news.", source="conversation")
    assert "no longer stored" in parse(await ingress_ui.page(f"/memories/{memory.id}")).text


@pytest.mark.parametrize(
    "path", ["/memories/999", "/memories/99999999999999999999", "/memories/" + "9" * 5000]
)
async def test_an_unknown_memory_is_a_404_page(ingress_ui: UI, path: str) -> None:
    """No such memory, however long its id, answers 404 as a page; so do its actions."""
    response = await ingress_ui.get(path)
    assert response.status == 404
    assert response.content_type == "text/html"
    assert (await post(ingress_ui, path + "/delete", {})).status == 404


async def test_changes_need_the_csrf_token(ingress_ui: UI) -> None:
    """A form POST without the page's token is refused and changes nothing."""
    memory = await remember(ingress_ui.store, "The cat is called Miso.")
    ingress_ui.client.session.cookie_jar.clear()
    response = await ingress_ui.post(f"/memories/{memory.id}/delete", {}, token=None)
    assert response.status == 403
    assert (await stored(ingress_ui.store, memory.id)).deleted_at is None


class RecordedChanges:
    """A memory service that records what the panel told it (keys.MemoryChanges)."""

    def __init__(self) -> None:
        self.told: list[tuple[str, tuple[int, ...]]] = []

    async def changed(self, memory_ids: Sequence[int]) -> None:
        self.told.append(("changed", tuple(memory_ids)))

    async def cleared(self) -> None:
        self.told.append(("cleared", ()))


async def test_every_change_is_told_to_the_memory_service(
    aiohttp_client: Callable[..., Any], ui_settings: Settings, make_app: MakeApp
) -> None:
    """Add, edit, delete and restore tell which memory changed; forget everything says cleared."""
    recorder = RecordedChanges()
    # Memory off, so the agent does not put its own service under the key.
    options = ui_settings.options.model_copy(update={"memory": False})
    plant_key(ui_settings.data_dir)  # the key the posts' CSRF token is signed with
    app = make_app(ui_settings.model_copy(update={"options": options}))
    app[keys.MEMORY_CHANGES] = recorder
    client: TestClient[Any, Any] = await aiohttp_client(app)
    ui = UI(client, "")
    response = await post(ui, "/memories/new", form())
    memory_id = int(re.findall(r"\d+", response.headers["Location"])[0])
    await post(ui, f"/memories/{memory_id}", form(content="The cat is Mochi."))
    await post(ui, f"/memories/{memory_id}", form(importance="2"))  # refused: not told
    await post(ui, f"/memories/{memory_id}/delete", {})
    await post(ui, f"/memories/{memory_id}/restore", {})
    await post(ui, "/memories/forget", {"confirm": "nope"})  # refused: not told
    await post(ui, "/memories/forget", {"confirm": "forget everything"})
    changed = ("changed", (memory_id,))
    assert recorder.told == [changed, changed, changed, changed, ("cleared", ())]


async def test_an_edit_in_the_panel_reaches_the_agents_recall(
    aiohttp_client: Callable[..., Any], ui_settings: Settings, make_app: MakeApp
) -> None:
    """With memory on, the agent's own service is told: a new wording is found at once."""
    plant_key(ui_settings.data_dir)  # the key the posts' CSRF token is signed with
    app = make_app(ui_settings)
    client: TestClient[Any, Any] = await aiohttp_client(app)
    ui = UI(client, "")
    response = await post(ui, "/memories/new", form(content="The cat is called Miso."))
    memory_id = int(re.findall(r"\d+", response.headers["Location"])[0])
    await post(ui, f"/memories/{memory_id}", form(content="The dog is called Rex."))
    service = app[keys.MEMORY_CHANGES]
    assert isinstance(service, MemoryService)
    found = await service.search("what is the dog called")
    assert [record.content for record in found] == ["The dog is called Rex."]


@pytest.mark.urls
async def test_the_trace_lists_the_memories_a_turn_recalled_with_links(
    ui: UI, learned: tuple[MemoryRecord, int]
) -> None:
    """The conversation's trace names each recalled memory and links to its page."""
    memory, _ = learned
    await recalled_later(ui.store, memory)
    html = await ui.page("/conversations/conv-later")
    page = parse(html)
    assert "Recalled memories" in page.text
    assert "The cat is called Miso." in page.text
    assert f"{ui.prefix}/memories/{memory.id}" in [ref.url for ref in page.references]
    assert misplaced_urls(html, ui.prefix) == []


async def test_each_memory_has_an_edit_button_and_the_page_explains_pinning(
    ingress_ui: UI, learned: tuple[MemoryRecord, int]
) -> None:
    """Editing is a button, not a click on the text; the page says how to keep one from fading."""
    memory, _turn = learned
    html = await ingress_ui.page("/memories")
    assert f'aria-label="Edit memory {memory.id}">Edit</a>' in html
    assert "a pinned memory never fades or expires" in html
