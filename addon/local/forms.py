"""The forms of an input that hassil may match templates against, for the template filter.

hassil (3.12.1) normalises the text (whitespace, unicode, punctuation), then matches it with
skip words ("please", "could you") removed and, for templates it might fit, with them kept; a
template that begins or ends with a wildcard is matched with them removed only at the other
end, a part of the text that keeps them. The filter tests a template's words against all of
these forms at once, folded (:func:`addon.local.templates.fold`).

hassil's own steps make the forms, on a :class:`_Text` that keeps only the text: hassil's
``TrackedText`` also maps every character back to the input, which the filter never reads and
which was a tenth of a miss's cost.
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
from hassil.util import WHITESPACE_CAPTURE, TrackedText, remove_skip_words_tracked

from addon.local.templates import fold, strip_end
from addon.local.values import ListValues


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
    def of(
        cls, text: str, skip_words: Sequence[str], folded_skip_words: Sequence[str]
    ) -> TextForms:
        """The forms of ``text`` (``folded_skip_words``: ``skip_words`` stripped and folded).

        Without a skip word in the text, removing them only collapses whitespace, so hassil's
        removal (the costly part) runs only when one occurs.
        """
        normalized = _normalized(text)
        with_skip = normalized.text
        forms = {with_skip, WHITESPACE_CAPTURE.sub(" ", with_skip).strip()}
        folded = fold(with_skip)
        if any(word in folded for word in folded_skip_words):
            # ignore_whitespace=False: the filter is off for languages that ignore whitespace.
            remove_skip_words_tracked(cast(TrackedText, normalized), skip_words, False)
            forms.add(normalized.text)
        starts = tuple(fold(form) for form in forms)
        return cls("\n".join(starts), starts, tuple(strip_end(form) for form in starts))

    @cached_property
    def pairs(self) -> frozenset[str]:
        """Every two letters in a row of the forms: which words may occur is asked by them."""
        haystack = self.haystack
        return frozenset(haystack[start : start + 2] for start in range(len(haystack) - 1))

    @cached_property
    def beginnings(self) -> frozenset[str]:
        """Every beginning of a form, so that "does a form start with v" is a set lookup."""
        return frozenset(form[:end] for form in self.starts for end in range(1, len(form) + 1))

    @cached_property
    def endings(self) -> frozenset[str]:
        """Every ending of a form (less what may be left unconsumed)."""
        return frozenset(form[start:] for form in self.ends for start in range(len(form)))


@dataclass(frozen=True, slots=True)
class Reach:
    """Where a list's values found in one text sit, by their context: the same for every set."""

    values: ListValues
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
    """By the analysed list's identity: the home's names, areas and floors, shared by the sets."""


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


def _normalized(text: str) -> _Text:
    """``hassil.util.normalize_for_matching``'s text: its very steps, on a :class:`_Text`."""
    normalized = _Text(text)
    tracked = cast(TrackedText, normalized)
    hassil_util._normalize_text(tracked)
    hassil_util._remove_punctuation(tracked)
    normalized.strip()
    return normalized
