"""The template filter reads a text exactly as hassil normalises it for matching."""

from __future__ import annotations

import pytest
from hassil.util import normalize_for_matching, remove_skip_words_tracked

from addon.local.forms import SkipWords, TextForms
from addon.local.templates import fold

SKIP_WORDS = ("please", "can you", "could you", "would you", "for me", "i'd like", "i want")
TEXTS = (
    "could you brighten things up with the Garage 2 Lamp",
    "Turn on the kitchen light, please!",
    "  what's   the temperature\tin the living room?? ",
    "set the A.C. to 21.5°",
    "mach das Licht im Wohnzimmer aus…",
    "allume la lumière de l’entrée",
    "¿Está encendida la luz de la cocina?",
    "e\u0301teins la cuisine",  # a decomposed é, composed by NFC
    "is the front-door locked",
    "nell’ ingresso accendi la luce",
    "I'd like the lights on for me",
    "",
)


@pytest.mark.parametrize("text", TEXTS)
def test_the_forms_are_hassils_normalised_text_with_and_without_skip_words(text: str) -> None:
    """Whitespace, unicode, punctuation and skip words as hassil's tracked steps leave them."""
    tracked = normalize_for_matching(text)
    expected = {tracked.text}
    skipped = tracked.copy()
    remove_skip_words_tracked(skipped, SKIP_WORDS, False)
    forms = TextForms.of(text, SkipWords.of(SKIP_WORDS))
    assert fold(tracked.text) in forms.starts
    if skipped.text != tracked.text:
        expected.add(skipped.text)
        assert fold(skipped.text) in forms.starts
    assert {fold(form) for form in expected} <= set(forms.starts)
