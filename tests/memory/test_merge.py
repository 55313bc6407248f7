"""Near-duplicate memories merge into the better wording with a higher importance."""

from __future__ import annotations

import pytest

from addon.memory.candidates import MemoryKind, candidate
from addon.memory.merge import (
    MAX_MERGED_IMPORTANCE,
    MAX_WORDING_CHARS,
    closest,
    is_close,
    jaccard,
    merge,
)

MISO = candidate("The cat is called Miso.", MemoryKind.FACT, 0.5, areas=["kitchen"])
MISO_MORE = candidate(
    "The cat is called Miso, she is grey.", MemoryKind.FACT, 0.6, entities=["sensor.cat_flap"]
)


def test_near_duplicates_are_close() -> None:
    """A rewording that adds a detail shares most content words and counts as the same memory."""
    assert is_close(MISO_MORE, MISO)


def test_different_facts_about_one_thing_are_not_close() -> None:
    """Two colours of one car share words but are two facts, not one."""
    red = candidate("Anna's car is red.", MemoryKind.FACT, 0.5)
    blue = candidate("Anna's car is blue.", MemoryKind.FACT, 0.5)
    assert not is_close(blue, red)
    assert not is_close(candidate("The dog is called Rex.", "fact", 0.5), MISO)


def test_stop_words_do_not_make_texts_similar() -> None:
    """Texts sharing only "the", "is", "a" have no similarity."""
    assert jaccard("The cat is a tabby.", "The heating is on a timer.") == 0.0


def test_embeddings_catch_a_rephrasing_with_few_shared_words() -> None:
    """With vectors given, a high cosine merges what words alone would keep apart."""
    a = candidate("Miso is our cat.", MemoryKind.FACT, 0.5)
    b = candidate("We have a feline named Miso.", MemoryKind.FACT, 0.5)
    assert not is_close(a, b)
    assert is_close(a, b, new_vector=[1.0, 0.1], existing_vector=[1.0, 0.12])
    assert not is_close(a, b, new_vector=[1.0, 0.0], existing_vector=[0.0, 1.0])


def test_merge_keeps_the_more_specific_wording_and_raises_importance() -> None:
    """The longer, more specific text wins; importance is 1-(1-a)(1-b); tags are unioned."""
    merged = merge(MISO, MISO_MORE)
    assert merged.content == MISO_MORE.content
    assert merged.importance == pytest.approx(1 - 0.5 * 0.4)
    assert merged.importance > max(MISO.importance, MISO_MORE.importance)
    assert merged.entities == ("sensor.cat_flap",)
    assert merged.areas == ("kitchen",)
    assert merge(MISO_MORE, MISO).content == MISO_MORE.content


def test_merge_prefers_the_newer_wording_on_a_tie() -> None:
    """Two equally specific wordings: the new one is kept, with its kind."""
    old = candidate("The cat is called Miso.", MemoryKind.CONTEXT, 0.4)
    new = candidate("The cat is named Miso.", MemoryKind.FACT, 0.4)
    merged = merge(old, new)
    assert merged.content == new.content
    assert merged.kind is MemoryKind.FACT


def test_merge_does_not_keep_a_rambling_wording() -> None:
    """A wording past the length limit loses to a concise one however many words it has."""
    rambling = candidate(
        "The cat is called Miso " + "and she likes many things " * 20,
        MemoryKind.FACT,
        0.5,
    )
    assert len(rambling.content) > MAX_WORDING_CHARS
    assert merge(MISO, rambling).content == MISO.content


def test_merged_importance_is_capped_but_never_lowered() -> None:
    """Repetition approaches the cap, and an importance already above it stays."""
    high = candidate("The cat is called Miso.", MemoryKind.FACT, 0.9)
    assert merge(high, high).importance == MAX_MERGED_IMPORTANCE
    top = candidate("The cat is called Miso.", MemoryKind.FACT, 1.0)
    assert merge(top, MISO).importance == 1.0


def test_closest_picks_the_most_similar_close_memory() -> None:
    """Among existing memories, the best match above the threshold is chosen, or none."""
    existing = [
        candidate("Anna's car is red.", MemoryKind.FACT, 0.5),
        MISO,
        candidate("The cat is called Miso, she is grey and old.", MemoryKind.FACT, 0.5),
    ]
    assert closest(MISO_MORE, existing) == 2
    assert closest(candidate("The dog is called Rex.", "fact", 0.5), existing) is None
