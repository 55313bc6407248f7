"""Claims of a done action, read in the reply's language."""

from __future__ import annotations

import pytest

from addon.i18n.claims import CLAIMS, claims_action
from addon.i18n.translations import TABLE

CLAIMED = [
    ("en", "I've turned on the porch light for you."),
    ("de", "Ich habe das Licht auf der Veranda eingeschaltet."),
    ("de", "Die Haustür ist jetzt verriegelt."),
    ("fr", "J'ai allumé la lumière du porche."),
    ("es", "He encendido la luz del porche."),
    ("nl", "Ik heb de lamp op de veranda aangezet."),
    ("it", "Ho acceso la luce del portico."),
    ("pl", "Włączyłem światło na werandzie."),
    ("pt", "Liguei a luz da varanda."),
    ("de", "I have locked the front door."),
]
NOT_CLAIMED = [
    ("en", "The porch light is on."),
    ("en", "I haven't turned on anything."),
    ("de", "Das Licht auf der Veranda ist an."),
    ("de", "Ich habe das Licht nicht eingeschaltet."),
    ("de", "Die Hauptstadt von Frankreich ist Paris."),
    ("fr", "La lumière du porche est allumée."),
    ("es", "No he encendido la luz."),
    ("nl", "De lamp staat aan."),
    ("it", "Non ho acceso la luce."),
    ("pl", "Nie włączyłem światła."),
    ("pt", "A luz da varanda está ligada."),
]


@pytest.mark.parametrize(("language", "reply"), CLAIMED)
def test_a_claimed_action_is_found(language: str, reply: str) -> None:
    """A reply saying it just acted is a claim, in its language or in English."""
    assert claims_action(reply, language)


@pytest.mark.parametrize(("language", "reply"), NOT_CLAIMED)
def test_a_state_or_a_denial_is_not_a_claim(language: str, reply: str) -> None:
    """Reporting a state, or saying nothing was done, is not claiming an action."""
    assert not claims_action(reply, language)


def test_a_language_without_patterns_is_not_judged_by_its_words() -> None:
    """Swedish has no patterns: its claim is missed rather than misread."""
    assert "sv" not in CLAIMS
    assert not claims_action("Jag har tänt lampan på verandan.", "sv")


def test_every_language_with_messages_has_claim_patterns() -> None:
    """The languages Home Agent serves are also the ones whose claims it can read."""
    assert set(CLAIMS) == set(TABLE)
