"""Typo correction: only unknown words, only towards exactly one near known word."""

from __future__ import annotations

import pytest

from addon.local.tolerant import Vocabulary, correct, distance

LANGUAGE = Vocabulary.build(["turn", "on", "off", "the", "lights", "light", "lock", "open", "run"])
HOME = Vocabulary.build(
    (),
    ["Kitchen Light", "Living Room", "Front Door", "Desk Lamp", "Hall", "Wall Light"],
    min_length=3,
)


def fix(text: str) -> str | None:
    return correct(text, (HOME, LANGUAGE))


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [("turn", "tunr", 1), ("kitchen", "kichen", 1), ("light", "lihgt", 1), ("door", "room", 2)],
)
def test_distance_counts_a_swap_as_one_edit(first: str, second: str, expected: int) -> None:
    """Insertions, deletions, substitutions and swapped neighbours each cost one."""
    assert distance(first, second, 3) == expected


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("tunr on the kichen light", "turn on the kitchen light"),
        ("trun on the desk lamp", "turn on the desk lamp"),
        ("turn on the dsk lamp", "turn on the desk lamp"),
        ("turn on the livingroom light", "turn on the living room light"),
    ],
)
def test_a_near_word_is_corrected(text: str, fixed: str) -> None:
    """One edit from one known word (a swap, a missing letter, words run together)."""
    assert fix(text) == fixed


def test_a_sentence_without_typos_is_left_alone() -> None:
    """Nothing to correct: None, so the caller does not match the same text twice."""
    assert fix("turn on the kitchen light") is None


def test_a_word_near_two_names_gives_up() -> None:
    """The word "tall" is one edit from "hall" and from "wall": the sentence is left alone."""
    assert fix("turn on the tall light") is None


def test_short_words_and_numbers_are_not_corrected_towards_sentence_words() -> None:
    """The word "of" stays (too short for the language's words); digits are never words."""
    assert fix("turn of the light 2") is None
