"""The forms of an input that hassil may match templates against, for the template filter.

hassil (3.12.1) normalises the text (whitespace, unicode, punctuation), then matches it with
skip words ("please", "could you") removed and, for templates it might fit, with them kept; a
template that begins or ends with a wildcard is matched with them removed only at the other
end, a part of the text that keeps them. The filter tests a template's words against all of
these forms at once, folded (:func:`addon.local.templates.fold`).

hassil's own steps make the forms, on a :class:`_Text` that keeps only the text: hassil's
``TrackedText`` also maps every character back to the input, which the filter never reads and
which was a tenth of a miss's cost. Its skip-word removal is taken step by step too, with the
pattern it builds compiled once per set of skip words (:class:`SkipWords`): building it again
for every text was half the cost of the forms.

Which of a filter's words occur in the forms is asked of their runs of letters between
whitespace (:attr:`TextForms.runs`, :attr:`TextForms.leads`, :attr:`TextForms.trails`): a word
without whitespace occurs in a text exactly when it occurs in one of its runs, so the filter
can remember the answer per run (a home's sentences reuse a few hundred words) instead of
asking each of its words of the whole text: a fifth of a miss's cost before.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import cast

from hassil import util as hassil_util
from hassil.intents import SlotList, TextSlotValue
from hassil.util import WHITESPACE_CAPTURE, WHITESPACE_SEPARATOR, TrackedText

from addon.local.templates import fold, strip_end


def plain_word(word: str) -> bool:
    """Whether ``word`` can be asked of a text's runs (:attr:`TextForms.runs`): no whitespace."""
    return word.split() == [word]


@dataclass(frozen=True, slots=True)
class SkipWords:
    """A language's skip words as hassil removes them, its pattern compiled once."""

    words: tuple[str, ...]
    """As the templates give them (the key of the forms made with them)."""
    folded: tuple[str, ...]
    """Stripped and folded: a text without one of these has none to remove."""
    pattern: re.Pattern[str] | None
    """hassil's pattern (``remove_skip_words_tracked``, whitespace-sensitive, both ends)."""

    @classmethod
    def of(cls, skip_words: Sequence[str]) -> SkipWords:
        """``skip_words`` made ready, as ``remove_skip_words_tracked`` builds its pattern."""
        words = sorted({w.strip() for w in skip_words if w.strip()}, key=len, reverse=True)
        pattern = None
        if words:
            alternatives = "|".join(re.escape(word) for word in words)
            pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
        return cls(tuple(skip_words), tuple(fold(word) for word in words), pattern)

    def remove(self, text: _Text) -> None:
        """``remove_skip_words_tracked(text, words, ignore_whitespace=False)``, step by step."""
        if self.pattern is None:
            return
        text.sub(self.pattern, WHITESPACE_SEPARATOR)
        text.sub(WHITESPACE_CAPTURE, WHITESPACE_SEPARATOR)
        text.strip()


@dataclass(frozen=True)
class TextForms:
    """The folded forms of one input."""

    haystack: str
    """All forms, one per line: a fragment of a form is a fragment of this."""
    starts: tuple[str, ...]
    """The forms, for what a match must begin with."""
    ends: tuple[str, ...]
    """The forms without what a match may leave unconsumed at the end."""

    @classmethod
    def of(cls, text: str, skip_words: SkipWords) -> TextForms:
        """The forms of ``text``.

        Without a skip word in the text, removing them only collapses whitespace, so hassil's
        removal runs only when one occurs.
        """
        normalized = _normalized(text)
        with_skip = normalized.text
        forms = {with_skip, WHITESPACE_CAPTURE.sub(" ", with_skip).strip()}
        folded = fold(with_skip)
        if any(word in folded for word in skip_words.folded):
            # ignore_whitespace=False: the filter is off for languages that ignore whitespace.
            skip_words.remove(normalized)
            forms.add(normalized.text)
        starts = tuple(folded if form == with_skip else fold(form) for form in forms)
        return cls("\n".join(starts), starts, tuple(strip_end(form) for form in starts))

    @cached_property
    def runs(self) -> frozenset[str]:
        """The forms' runs of letters between whitespace (their words, most often).

        A word without whitespace occurs in the haystack exactly when it occurs in one of these.
        """
        return frozenset(self.haystack.split())

    @cached_property
    def leads(self) -> frozenset[str]:
        """What each form begins with up to its first whitespace (nothing, if it begins so).

        A form starts with a word without whitespace exactly when its lead does.
        """
        return frozenset(_first_run(form) for form in self.starts)

    @cached_property
    def trails(self) -> frozenset[str]:
        """What each end form ends with after its last whitespace: as :attr:`leads`, at the end."""
        return frozenset(_last_run(form) for form in self.ends)

    @cached_property
    def firsts(self) -> frozenset[str]:
        """The letters the forms begin with: a value beginning otherwise is not at the start."""
        return frozenset(form[:1] for form in self.starts)

    @cached_property
    def lasts(self) -> frozenset[str]:
        """The letters the end forms end with."""
        return frozenset(form[-1:] for form in self.ends)


@dataclass(frozen=True, slots=True)
class Reach:
    """Where a list's values found in one text sit, by their context: the same for every set."""

    slot_list: SlotList
    forms: TextForms
    contexts: dict[str | None, tuple[int, TextSlotValue]]
    """Per value context: where its values were found (the filter's bits), and one of them."""


@dataclass(slots=True)
class TextMemo:
    """What matching one sentence works out once for every set of sentences it is tried on.

    A language's sets (Home Assistant's, its 2025.4 release's, ours) mostly share their skip
    words, and all share the home's names: the text's forms and the names found in it were
    worked out again for each set, about 0.05 ms a set each. Lives for one call, so keying by
    the lists' identity is safe.
    """

    forms: dict[tuple[str, tuple[str, ...]], TextForms] = field(default_factory=dict)
    slot_lists: dict[tuple[int, str], dict[str, SlotList]] = field(default_factory=dict)
    reaches: dict[int, Reach] = field(default_factory=dict)
    """By the list's identity: the home's names, areas and floors, shared by the sets."""


class _Text:
    """hassil's ``TrackedText`` as its normalising steps use it, without the offsets."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def sub(self, pattern: re.Pattern[str], repl: str = "") -> None:
        """Every match replaced by ``repl`` as it is (no group references, as hassil's)."""
        self.text = pattern.sub(lambda _match: repl, self.text)

    def strip(self) -> None:
        """Without leading and trailing whitespace."""
        self.text = self.text.strip()

    def normalize_unicode(self) -> None:
        """NFC, as hassil normalises."""
        self.text = unicodedata.normalize("NFC", self.text)

    def replace_char(self, old: str, new: str) -> None:
        """One character for another."""
        self.text = self.text.replace(old, new)


def _first_run(form: str) -> str:
    """What ``form`` begins with up to its first whitespace; empty when it begins with some."""
    parts = form.split(maxsplit=1)
    return parts[0] if parts and not form[0].isspace() else ""


def _last_run(form: str) -> str:
    """What ``form`` ends with after its last whitespace; empty when it ends with some."""
    parts = form.rsplit(maxsplit=1)
    return parts[-1] if parts and not form[-1].isspace() else ""


def _normalized(text: str) -> _Text:
    """``hassil.util.normalize_for_matching``'s text: its very steps, on a :class:`_Text`."""
    normalized = _Text(text)
    tracked = cast(TrackedText, normalized)
    hassil_util._normalize_text(tracked)
    hassil_util._remove_punctuation(tracked)
    normalized.strip()
    return normalized
