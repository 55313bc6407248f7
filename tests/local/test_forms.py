"""The template filter reads a text exactly as hassil normalises it for matching.

And the sets it asks words of (a text's runs of letters, its leads and trails) answer exactly as
the text itself does, for every word of the shipped templates and every short piece of the text.
"""

from __future__ import annotations

import pytest
from hassil import Intents
from hassil.util import normalize_for_matching, remove_skip_words_tracked
from home_assistant_intents import get_intents

from addon.local.forms import SkipWords, TextForms, plain_word
from addon.local.templates import Analysis, Word, fold

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
    "schalte die Wohnzimmerdeckenbeleuchtung im Erdgeschoss ein",
    "turn on the wi-fi_plug",
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


@pytest.fixture(scope="module")
def shipped_words() -> frozenset[str]:
    """Every word Home Assistant's English and German templates need, where they need it."""
    words: set[str] = set()
    for language in ("en", "de"):
        data = get_intents(language)
        assert data is not None
        intents = Intents.from_dict(data)
        analysis = Analysis(intents.expansion_rules)
        for intent in intents.intents.values():
            for block in intent.data:
                for sentence in block.sentences:
                    for clause in analysis.needs(sentence):
                        words.update(atom.text for atom in clause if isinstance(atom, Word))
    return frozenset(words)


@pytest.mark.parametrize("text", TEXTS)
def test_the_runs_find_every_word_the_text_holds(text: str, shipped_words: frozenset[str]) -> None:
    """A word without whitespace is in the forms (at their start, end) iff in their runs."""
    forms = TextForms.of(text, SkipWords.of(SKIP_WORDS))
    pieces = {
        form[start:stop]
        for form in forms.starts
        for start in range(len(form))
        for stop in range(start + 1, min(len(form), start + 12) + 1)
    }
    for word in shipped_words | pieces:
        in_text = word in forms.haystack
        at_start = any(form.startswith(word) for form in forms.starts)
        at_end = any(form.endswith(word) for form in forms.ends)
        if at_start and word:
            assert word[0] in forms.firsts
        if at_end and word:
            assert word[-1] in forms.lasts
        if not plain_word(word):
            continue
        assert in_text == any(word in run for run in forms.runs), word
        assert at_start == any(run.startswith(word) for run in forms.leads), word
        assert at_end == any(run.endswith(word) for run in forms.trails), word
