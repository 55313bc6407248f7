"""Full-text search over turns through the FTS5 index the migrations create."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, update

from addon.store.database import Store
from addon.store.models import Turn
from addon.store.queries import ConversationFilters, list_conversations
from tests.store.data import NOW, add_conversation
from tests.store.search import search_turn_ids

# Turns the hostile queries run against, by name.
CORPUS = {
    "kitchen": ("turn on the kitchen light", "Done."),
    "salt": ("salt and pepper", "Noted."),
    "near": ("is the lamp near the kitchen light", "Yes."),
    "hamlet": ("to be or not to be", "That is the question."),
    "hallway": ("kitchen and hallway lights", "Both on."),
}
# FTS5 syntax typed into the search box, and the turns it must find when each whitespace-separated
# term is searched as words (a phrase of its tokens) and all terms must match. As FTS5 syntax
# most would raise; the rest would find something else: ``kitch*`` every kitchen turn,
# ``user_text:kitchen`` the kitchen turns, ``-kitchen`` the turns without "kitchen",
# ``' OR 1=1 --`` everything.
HOSTILE_QUERIES: list[tuple[str, set[str]]] = [
    ('"', set()),
    ('"kitchen', {"kitchen", "near", "hallway"}),
    ('kitchen"', {"kitchen", "near", "hallway"}),
    ('""', set()),
    ("AND", {"salt", "hallway"}),
    ("kitchen AND", {"hallway"}),
    ("OR NOT", {"hamlet"}),
    ("*", set()),
    ("kitch*", set()),
    ("NEAR(", {"near"}),
    ("NEAR(kitchen light", set()),  # "near kitchen" is a phrase: no turn has it
    ("(", set()),
    (")", set()),
    ("^", set()),
    ("user_text:", set()),
    ("user_text:kitchen", set()),
    ("-kitchen", {"kitchen", "near", "hallway"}),
    ("+", set()),
    ("{user_text reply_text}: x", set()),
    ("\x00", set()),
    ("kitchen\x00light", {"kitchen", "near"}),  # not "hallway": "lights" is another word
    ("\ud800", set()),
    ("' OR 1=1 --", set()),
]


async def _search(store: Store, query: str, limit: int = 20) -> list[int]:
    async with store.sessionmaker() as session:
        return await search_turn_ids(session, query, limit)


async def _listed(store: Store, query: str) -> list[tuple[str, int | None]]:
    """The conversation list for ``query``: each conversation with its matching turn's id."""
    async with store.sessionmaker() as session:
        page = await list_conversations(session, ConversationFilters(search=query))
    return [(row.id, row.match.turn_id if row.match else None) for row in page.rows]


async def test_finds_words_the_user_said(store: Store) -> None:
    """A word from the user's text finds the turn."""
    [turn_id] = await add_conversation(store, "c1", turns=(("open the garage door", "Opened."),))
    assert await _search(store, "garage") == [turn_id]


async def test_finds_words_of_the_reply(store: Store) -> None:
    """A word from the agent's reply finds the turn."""
    [turn_id] = await add_conversation(store, "c1", turns=(("hello", "The oven is preheating."),))
    assert await _search(store, "oven") == [turn_id]


async def test_every_term_must_match(store: Store) -> None:
    """Several terms narrow the search to turns containing all of them."""
    both, kitchen_only = await add_conversation(
        store, "c1", turns=(("kitchen light on", "Done."), ("kitchen is warm", "Yes."))
    )
    assert await _search(store, "kitchen light") == [both]
    assert set(await _search(store, "kitchen")) == {both, kitchen_only}


async def test_ignores_diacritics(store: Store) -> None:
    """A search without accents finds text written with them."""
    [turn_id] = await add_conversation(store, "c1", turns=(("play music in the café", "Ok."),))
    assert await _search(store, "cafe") == [turn_id]


async def test_best_match_comes_first(store: Store) -> None:
    """Results are ordered by rank: the turn where the term weighs most comes first."""
    weak, strong = await add_conversation(
        store,
        "c1",
        turns=(
            ("lamp " + "other words here " * 20, ""),
            ("lamp lamp lamp", ""),
        ),
    )
    assert await _search(store, "lamp") == [strong, weak]


async def test_limit_caps_the_results(store: Store) -> None:
    """No more ids than the limit come back."""
    await add_conversation(store, "c1", turns=tuple((f"light {n}", "ok") for n in range(5)))
    assert len(await _search(store, "light", limit=3)) == 3


async def test_empty_query_finds_nothing(store: Store) -> None:
    """A blank search box returns no turns rather than every turn."""
    await add_conversation(store, "c1")
    assert await _search(store, "   ") == []


@pytest.mark.parametrize(
    ("query", "expected"), HOSTILE_QUERIES, ids=[repr(query) for query, _ in HOSTILE_QUERIES]
)
async def test_hostile_query_is_searched_as_text(
    store: Store, query: str, expected: set[str]
) -> None:
    """FTS5 syntax in the user's query is taken as words: it finds the turns with those words."""
    names: dict[int, str] = {}
    for name, turn in CORPUS.items():
        [turn_id] = await add_conversation(store, name, turns=(turn,))
        names[turn_id] = name
    assert {names[turn_id] for turn_id in await _search(store, query)} == expected


async def test_quoted_operator_is_searched_as_a_word(store: Store) -> None:
    """``AND`` is searched for as the word "and", not taken as an operator."""
    [turn_id] = await add_conversation(store, "c1", turns=(("salt and pepper", "Noted."),))
    await add_conversation(store, "c2", turns=(("salt only", "Noted."),))
    assert await _search(store, "AND") == [turn_id]


async def test_edited_text_is_found_by_its_new_words_only(store: Store) -> None:
    """After an update the index finds the new text and forgets the old."""
    [turn_id] = await add_conversation(store, "c1", turns=(("dim the bedroom", "Dimmed."),))
    async with store.sessionmaker.begin() as session:
        await session.execute(
            update(Turn).where(Turn.id == turn_id).values(user_text="brighten the hallway")
        )
    assert await _search(store, "hallway") == [turn_id]
    assert await _search(store, "bedroom") == []


async def test_deleted_turn_is_no_longer_found(store: Store) -> None:
    """After a delete the index no longer returns the turn."""
    [turn_id] = await add_conversation(store, "c1", turns=(("water the plants", "Done."),))
    async with store.sessionmaker.begin() as session:
        await session.execute(delete(Turn).where(Turn.id == turn_id))
    assert await _search(store, "plants") == []


async def test_the_list_shows_the_conversations_with_a_matching_turn(store: Store) -> None:
    """A conversation is listed, with its matching turn, only if one turn holds every term."""
    _hello, kitchen = await add_conversation(
        store,
        "kitchen",
        updated_at=NOW.replace(hour=9),
        turns=(("hello", "Hi."), ("turn on the kitchen light", "Done.")),
    )
    apart = await add_conversation(
        store,
        "apart",
        updated_at=NOW.replace(hour=10),
        turns=(("the kitchen is cold", "Sorry."), ("and the light?", "It is off.")),
    )
    [garage] = await add_conversation(store, "garage", turns=(("open the garage", "Opened."),))
    assert await _listed(store, "kitchen light") == [("kitchen", kitchen)]
    assert await _listed(store, "kitchen") == [("apart", apart[0]), ("kitchen", kitchen)]
    assert await _listed(store, "opened") == [("garage", garage)]
    assert await _listed(store, "zeppelin") == []
