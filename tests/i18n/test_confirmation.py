"""Questions a person can hear, cancels that are true, and which words answer a question."""

from __future__ import annotations

import pytest
from home_assistant_intents import get_languages

from addon.i18n.answers import ANSWERS
from addon.i18n.codes import base_language
from addon.i18n.confirmation import (
    TABLE,
    Asked,
    asked_question,
    question,
    says_no,
    says_yes,
    still,
    yes_and_no,
)


@pytest.mark.parametrize(
    ("service", "domain", "name", "asked"),
    [
        ("unlock", "lock", "Front Door", "Unlock the Front Door? Say yes to confirm."),
        ("alarm_arm_away", "alarm_control_panel", "Security",
         "Arm the Security alarm (away)? Say yes to confirm."),
        ("open_cover", "cover", "Garage Door", "Open the Garage Door? Say yes to confirm."),
        ("toggle", "homeassistant", "Garage Door", "Open the Garage Door? Say yes to confirm."),
        ("turn_on", "scene", "Leave Home Open", "Activate Leave Home Open? Say yes to confirm."),
        ("set_value", "number", "Boiler Limit", "Change the Boiler Limit? Say yes to confirm."),
        ("close_cover", "cover", "The Shed", "Close the Shed? Say yes to confirm."),
    ],
)  # fmt: skip
def test_the_question_names_the_entity_and_the_action_in_words(
    service: str, domain: str, name: str, asked: str
) -> None:
    """What a satellite reads aloud: the action's verb and the entity's name, no service id."""
    assert question(service, domain, name, False, "en") == asked


@pytest.mark.parametrize("language", sorted(TABLE))
@pytest.mark.parametrize(
    ("service", "domain"),
    [("unlock", "lock"), ("alarm_arm_night", "alarm_control_panel"), ("set_value", "number"),
     ("alarm_trigger", "alarm_control_panel"), ("turn_on", "script")],
)  # fmt: skip
def test_no_question_in_any_language_reads_out_a_service_id(
    language: str, service: str, domain: str
) -> None:
    """Whatever the action, in every served language, the question has no ``domain.service``."""
    asked = question(service, domain, "Thing", True, language)
    assert "Thing" in asked
    assert "." not in asked.split("?")[0]
    assert service not in asked
    assert "_" not in asked


@pytest.mark.parametrize(
    ("language", "asked"),
    [
        ("en", "Unlock the Front Door and Back Door and open the Garage Door? Say yes to confirm."),
        ("de", "Front Door und Back Door aufschließen und Garage Door öffnen? "
               "Sag ja, um zu bestätigen."),
        ("es", "¿Desbloquear Front Door y Back Door y abrir Garage Door? Di sí para confirmar."),
    ],
)  # fmt: skip
def test_several_actions_are_each_named_with_their_own_verb(language: str, asked: str) -> None:
    """Two doors unlocked and a garage opened: no action is asked under another's verb."""
    actions = [
        Asked("lock", "unlock", ("Front Door",)),
        Asked("lock", "unlock", ("Back Door",)),
        Asked("cover", "open_cover", ("Garage Door",)),
    ]
    assert asked_question(actions, False, language) == asked


def test_three_names_are_listed_as_a_person_lists_them() -> None:
    actions = [Asked("light", "turn_off", ("Kitchen", "Hall", "Porch", "Hall"))]
    assert asked_question(actions, False, "en") == (
        "Turn off the Kitchen, Hall and Porch? Say yes to confirm."
    )


@pytest.mark.parametrize("language", sorted(TABLE))
def test_a_tool_without_an_entity_is_named_in_words(language: str) -> None:
    """An MCP server's tool held by the policy: run, named by its words, never its id."""
    tool = "files__delete_all"
    asked = asked_question([Asked("mcp", tool, (tool,))], False, language)
    assert "files delete all" in asked
    assert "_" not in asked
    assert "mcp" not in asked


def test_german_asks_in_german() -> None:
    assert question("alarm_arm_away", "alarm_control_panel", "Sicherheit", False, "de") == (
        "Alarm Sicherheit scharf schalten (abwesend)? Sag ja, um zu bestätigen."
    )


@pytest.mark.parametrize(
    ("text", "language"),
    [("no", "en"), ("Cancel.", "en"), ("stop", "en"), ("Nein", "de"), ("annuler", "fr"),
     ("nee", "nl"), ("annulla", "it"), ("nie", "pl"), ("não", "pt"), ("cancelar", "es"),
     ("no", "de")],
)  # fmt: skip
def test_no_cancel_and_stop_are_a_no_in_every_language(text: str, language: str) -> None:
    assert says_no(text, language)
    assert not says_yes(text, language)


@pytest.mark.parametrize(
    ("no", "yes", "language"),
    [("Nej.", "ja", "sv"), ("avbryt", "Ja!", "sv-SE"), ("Отмена", "да", "ru"),
     ("取消", "是的", "zh-TW"), ("いいえ", "はい", "ja"), ("hayır", "evet", "tr"),
     ("nie", "áno", "sk"), ("नहीं", "हाँ", "hi"), ("stopp", "ja", "nb"), ("ei", "kyllä", "fi")],
)  # fmt: skip
def test_languages_served_without_sentences_of_our_own_answer_in_their_own_words(
    no: str, yes: str, language: str
) -> None:
    """A Swede says "nej" and "ja", not "no" and "yes", to a question asked in English."""
    assert says_no(no, language)
    assert not says_yes(no, language)
    assert says_yes(yes, language)
    assert not says_no(yes, language)


def test_every_language_the_local_path_serves_has_answer_words() -> None:
    """Each of Home Assistant's sentence languages answers in its own words (Cornish echoes)."""
    lacking = {
        code
        for code in get_languages()
        if base_language(code) not in TABLE and base_language(code) not in ANSWERS
    }
    assert lacking == {"kw"}


@pytest.mark.parametrize("language", sorted({*TABLE, *ANSWERS}))
def test_no_word_is_both_a_yes_and_a_no(language: str) -> None:
    """A yes performs the held action: no word of any language may also cancel it."""
    words = TABLE.get(language) or ANSWERS[language]
    for word in words.yes:
        assert not says_no(word, language), word


@pytest.mark.parametrize("text", ["lock the front door", "is the front door locked?", "no way"])
def test_a_request_is_neither_a_yes_nor_a_no(text: str) -> None:
    assert not says_no(text, "en")
    assert not says_yes(text, "en")


def test_a_cancel_says_still_locked_only_when_it_is() -> None:
    """Still locked when the lock reports locked; otherwise only that nothing changed."""
    assert still("lock", "Front Door", ["locked"], "en") == "OK, the Front Door is still locked."
    assert still("lock", "Front Door", ["unlocked"], "en") == "OK, I didn't change anything."
    assert still("lock", "Front Door", [None], "en") == "OK, I didn't change anything."
    assert still("cover", "Garage Door", ["closed"], "nl") == "Oké, Garage Door blijft dicht."
    assert still("alarm_control_panel", "Security", ["armed_away"], "en") == (
        "OK, the Security alarm is still armed."
    )


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("yes", "no")),
        ("de-CH", ("ja", "nein")),
        ("sv", ("ja", "nej")),
        ("kw", ("yes", "no")),
    ],
)
def test_the_chats_buttons_say_yes_and_no_in_the_language(
    language: str, words: tuple[str, str]
) -> None:
    """What the chat's Yes and No send: the language's own words, and they answer in it."""
    assert yes_and_no(language) == words
    assert says_yes(words[0], language)
    assert says_no(words[1], language)


def test_a_cancel_of_several_says_they_are_still_locked() -> None:
    names = "Front Door and Back Door"
    assert still("lock", names, ["locked", "locked"], "en", many=True) == (
        "OK, the Front Door and Back Door are still locked."
    )
    assert still("lock", names, ["locked", "unlocked"], "en", many=True) == (
        "OK, I didn't change anything."
    )
    assert still("cover", "Tor und Garage", ["closed", "closed"], "de", many=True) == (
        "OK, Tor und Garage sind weiterhin geschlossen."
    )
