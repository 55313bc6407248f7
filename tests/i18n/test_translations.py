"""The one table of Home Agent's own words: complete in every language, found by any code."""

from __future__ import annotations

import dataclasses
import string

import pytest

from addon.errors import ErrorKind
from addon.i18n.messages import Action, Done, Messages
from addon.i18n.translations import DE, EN, PT, TABLE, has_messages, messages_for

REQUIRED = {"en", "de", "fr", "es", "nl", "it", "pl", "pt"}
PLACEHOLDERS = {
    "iteration_limit_done": {"done"},
    "turned_on": {"names"},
    "turned_off": {"names"},
    "toggled": {"names"},
    "set": {"names"},
    "controlled": {"names"},
    "more": {"count"},
    "state_is": {"name", "state"},
}
SAME_IN_EVERY_LANGUAGE = {"and_word", "more", "state_is", "set"}
"""Short fields that may happen to read like English in a language ("set", "{name} is …")."""


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_the_table_has_the_required_languages() -> None:
    """English, German, French, Spanish, Dutch, Italian, Polish and Portuguese are all there."""
    assert set(TABLE) >= REQUIRED


@pytest.mark.parametrize("language", sorted(TABLE))
def test_every_message_is_filled_with_exactly_its_placeholders(language: str) -> None:
    """No message is blank, and each fills in just what its method passes."""
    for field in dataclasses.fields(Messages):
        text = getattr(TABLE[language], field.name)
        assert text.strip(), field.name
        assert placeholders(text) == PLACEHOLDERS.get(field.name, set()), field.name


@pytest.mark.parametrize("language", sorted(set(TABLE) - {"en"}))
def test_every_language_is_translated(language: str) -> None:
    """Apart from a few short fields, nothing is left in English."""
    for field in dataclasses.fields(Messages):
        if field.name not in SAME_IN_EVERY_LANGUAGE:
            assert getattr(TABLE[language], field.name) != getattr(EN, field.name), field.name


@pytest.mark.parametrize(
    ("code", "expected"),
    [("de", DE), ("de-DE", DE), ("de_CH", DE), ("DE", DE), ("pt-BR", PT), (" en-GB ", EN)],
)
def test_a_code_with_a_region_finds_its_language(code: str, expected: Messages) -> None:
    """Regions and case do not matter: "de-DE" speaks German."""
    assert messages_for(code) is expected
    assert has_messages(code)


@pytest.mark.parametrize("code", ["sv", "eo", "zh-CN", "", None])
def test_a_language_without_messages_speaks_english(code: str | None) -> None:
    """Anything the table lacks falls back to English."""
    assert messages_for(code) is EN


def test_every_error_kind_has_a_reply() -> None:
    """Each kind maps to a message of its own, and only the generic one to ``llm_failed``."""
    replies = {kind: EN.for_error(kind) for kind in ErrorKind}
    generic = [kind for kind, reply in replies.items() if reply == EN.llm_failed]
    assert generic == [ErrorKind.LLM_FAILED]
    assert len(set(replies.values())) == len(ErrorKind)


def test_names_are_joined_and_long_lists_counted() -> None:
    """'A', 'A and B', 'A, B and C'; five names become three and a count."""
    assert EN.join(["A"]) == "A"
    assert EN.join(["A", "B"]) == "A and B"
    assert DE.join(["A", "B", "C"]) == "A, B und C"
    assert EN.join(["A", "B", "C", "D", "E"]) == "A, B, C and 2 more"


def test_the_iteration_limit_lists_what_was_done() -> None:
    """Each kind of action in its own words, in the sentence of the language."""
    done = [Done(Action.TURNED_ON, ("Kitchen", "Porch")), Done(Action.SET, ("Heating",))]
    assert EN.stopped_at_limit(done) == (
        "I turned on Kitchen and Porch and set Heating, "
        "but I couldn't finish the rest; it needed too many steps."
    )
    assert PT.stopped_at_limit(done).startswith("Liguei Kitchen e Porch e ajustei Heating, mas")
    assert EN.stopped_at_limit([]) == EN.iteration_limit
