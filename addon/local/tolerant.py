"""Typos: a word no sentence or name of the home has, read as the one known word it is near.

Home Assistant's sentences match words exactly, so "turn on the kichen light" or "tunr off the
bedroom lamp" reach nobody but the model. This stage corrects such words before matching
again, and only when it can be sure:

* a word the language's sentences or the home's names use is never changed, nor is a number or a
  word under four letters ("of" stays "of", "bedroom 2" stays "bedroom 2");
* an unknown word is replaced only by a known word at most one edit away (two for words of eight
  letters or more), an edit being an insertion, a deletion, a substitution or two neighbours
  swapped (Damerau-Levenshtein, optimal string alignment);
* there must be exactly one such word at the smallest distance: a tie ("ligt": "light" or
  "lift") gives up on the whole sentence, as does any other doubt; a name run together
  ("livingroom") reads as its words when only one name has them.

The corrected text then goes through the same exact matching, so everything after (names several
devices share, free text, slots we do not take) is checked as for a sentence typed right.
Candidates are found by deletions (the SymSpell scheme): every known word is filed under itself
and each form with one letter removed (two for long words), and an unknown word looks up its own
deletions, so a sentence costs a few dozen dictionary lookups rather than a distance per word.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import combinations, pairwise

from hassil import Intents
from hassil.expression import (
    Alternative,
    Expression,
    Group,
    ListReference,
    Permutation,
    RuleReference,
    TextChunk,
)
from hassil.intents import SlotList, TextSlotList

MIN_LENGTH = 4
"""Shorter words are not corrected towards the language's words: too many are one edit apart."""
NAME_MIN_LENGTH = 3
"""Towards the home's names a three-letter word may be corrected ("dsk" → "desk")."""
LONG_WORD = 8
"""From this length a word may be two edits from the one meant."""
MAX_DEPTH = 24
"""Rules may refer to each other; reading them stops this deep."""

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
"""A word: letters, with an inner apostrophe ("joe's"); digits and punctuation split words."""


def max_edits(word: str, min_length: int = MIN_LENGTH) -> int:
    """How far ``word`` may be from the word meant: 0 for short words, else 1, or 2 if long."""
    if len(word) < min_length:
        return 0
    return 2 if len(word) >= LONG_WORD else 1


def words_of(text: str) -> Iterator[str]:
    """The folded words of ``text``."""
    for match in _WORD.finditer(text.casefold()):
        yield match.group()


def distance(first: str, second: str, limit: int) -> int:
    """Damerau-Levenshtein distance (optimal string alignment), or ``limit + 1`` past ``limit``."""
    if abs(len(first) - len(second)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(second) + 1))
    for i, left in enumerate(first, 1):
        current = [i] + [0] * len(second)
        for j, right in enumerate(second, 1):
            cost = 0 if left == right else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and left == second[j - 2] and first[i - 2] == right:
                best = min(best, previous2[j - 2] + 1)
            current[j] = best
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def _deletions(word: str, edits: int) -> set[str]:
    """``word`` with up to ``edits`` letters removed (itself included)."""
    found = {word}
    for count in range(1, edits + 1):
        for positions in combinations(range(len(word)), count):
            found.add("".join(ch for i, ch in enumerate(word) if i not in positions))
    return found


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Known words, each filed under its deletions; ``replacements`` maps a key to its text.

    A key is a word or a name's words run together ("livingroom" → "living room").
    """

    known: frozenset[str]
    replacements: Mapping[str, str]
    by_deletion: Mapping[str, tuple[str, ...]]
    min_length: int = MIN_LENGTH
    """Shorter words are neither corrected nor corrected towards."""

    @classmethod
    def build(
        cls, words: Iterable[str], names: Iterable[str] = (), *, min_length: int = MIN_LENGTH
    ) -> Vocabulary:
        """From single words and from names (whose words, and words run together, count)."""
        replacements: dict[str, str] = {}
        ambiguous: set[str] = set()
        for word in words:
            replacements[word] = word
        for name in names:
            parts = list(words_of(name))
            for part in parts:
                replacements[part] = part
            for first, second in pairwise(parts):
                joined = first + second
                spaced = f"{first} {second}"
                if replacements.get(joined, spaced) != spaced:
                    ambiguous.add(joined)
                replacements.setdefault(joined, spaced)
        for joined in ambiguous:
            if replacements[joined] != joined:
                del replacements[joined]
        by_deletion: dict[str, list[str]] = {}
        for key in replacements:
            for deleted in _deletions(key, max_edits(key, min_length)):
                by_deletion.setdefault(deleted, []).append(key)
        return cls(
            known=frozenset(word for word, text in replacements.items() if word == text),
            replacements=replacements,
            by_deletion={key: tuple(keys) for key, keys in by_deletion.items()},
            min_length=min_length,
        )

    def nearest(self, word: str) -> str | bool | None:
        """The one key nearest ``word``; None when none is near, False when several tie."""
        edits = max_edits(word, self.min_length)
        if not edits:
            return None
        candidates: set[str] = set()
        for deleted in _deletions(word, edits):
            candidates.update(self.by_deletion.get(deleted, ()))
        best: list[str] = []
        best_distance = edits + 1
        for candidate in candidates:
            found = distance(
                word, candidate, min(edits, max_edits(candidate, self.min_length) or 1)
            )
            if found < best_distance:
                best, best_distance = [candidate], found
            elif found == best_distance:
                best.append(candidate)
        if not best or best_distance > edits:
            return None
        if len(best) > 1:
            # A typo seldom hits the first letter: "trun" is "turn" rather than "run".
            best = [candidate for candidate in best if candidate[0] == word[0]] or best
        return best[0] if len(best) == 1 else False


def correct(text: str, vocabularies: Iterable[Vocabulary]) -> str | None:
    """``text`` with its unknown words corrected; None when nothing changed or one is in doubt.

    A word known to any vocabulary stays. Each other word is looked up in every vocabulary;
    the candidates must agree on one replacement. ``vocabularies`` come in order of trust: a
    tie in the first (the home's names) gives up, a tie in a later one (the language's words,
    read from templates only in part) offers nothing for that word.
    """
    sources = tuple(vocabularies)
    pieces: list[str] = []
    position = 0
    changed = False
    folded = text.casefold()
    if len(folded) != len(text):
        return None  # a folding that changes lengths would misplace the spans
    for match in _WORD.finditer(folded):
        word = match.group()
        if any(word in vocabulary.known for vocabulary in sources):
            continue
        replacements: set[str] = set()
        for number, vocabulary in enumerate(sources):
            nearest = vocabulary.nearest(word)
            if nearest is False and number == 0:
                return None
            if isinstance(nearest, str):
                replacements.add(vocabulary.replacements[nearest])
        if not replacements:
            continue
        if len(replacements) > 1:
            return None
        replacement = replacements.pop()
        pieces.append(text[position : match.start()])
        pieces.append(replacement)
        position = match.end()
        changed = True
    if not changed:
        return None
    pieces.append(text[position:])
    return "".join(pieces)


_EXPANSIONS = 64
"""Texts a part of a template may expand to before its words are read piece by piece."""


def template_words(intents: Intents) -> set[str]:
    """Every word a language's sentences, rules, lists and skip words can say.

    Words may be split over pieces of a template ("schalt[e]"), so each part is expanded into
    its texts when they are few, and only a larger part is read piece by piece.
    """
    found: set[str] = set()
    rules = dict(intents.expansion_rules)
    for intent in intents.intents.values():
        for data in intent.data:
            rules.update(data.expansion_rules)
    memo: dict[str, set[str] | None] = {}
    parts: dict[int, set[str] | None] = {}

    def expand(expression: Expression, depth: int = 0) -> set[str] | None:
        key = id(expression)
        if key not in parts:
            parts[key] = _expand(expression, depth)
        return parts[key]

    def _expand(expression: Expression, depth: int) -> set[str] | None:
        if depth > MAX_DEPTH:
            return None
        if isinstance(expression, TextChunk):
            return {expression.text}
        if isinstance(expression, ListReference):
            return {" "}
        if isinstance(expression, RuleReference):
            name = expression.rule_name
            if name not in memo:
                memo[name] = None  # a rule that refers to itself stops here
                rule = rules.get(name)
                memo[name] = None if rule is None else expand(rule.expression, depth + 1)
            return memo[name]
        if isinstance(expression, Alternative):
            texts: set[str] = {""} if expression.is_optional else set()
            for item in expression.items:
                part = expand(item, depth + 1)
                if part is None:
                    return None
                texts |= part
            return texts if len(texts) <= _EXPANSIONS else None
        if isinstance(expression, Group):  # a sequence, or a permutation read in one order
            joined = {""}
            glue = " " if isinstance(expression, Permutation) else ""
            for item in expression.items:
                part = expand(item, depth + 1)
                if part is None or len(joined) * len(part) > _EXPANSIONS:
                    return None
                joined = {left + glue + right for left in joined for right in part}
            return joined
        return None

    def walk(expression: Expression, depth: int = 0) -> None:
        if id(expression) in walked_parts:
            return
        walked_parts.add(id(expression))
        texts = expand(expression)
        if texts is not None:
            found.update(words_of(" ".join(texts)))
        elif isinstance(expression, Group) and depth <= MAX_DEPTH:
            for item in expression.items:
                walk(item, depth + 1)
        elif isinstance(expression, RuleReference):
            rule = rules.get(expression.rule_name)
            if rule is not None and expression.rule_name not in walked:
                walked.add(expression.rule_name)
                walk(rule.expression, depth + 1)

    walked: set[str] = set()
    walked_parts: set[int] = set()
    for intent in intents.intents.values():
        for data in intent.data:
            for sentence in data.sentences:
                walk(sentence.expression)
            for slot_list in data.slot_lists.values():
                _list_words(slot_list, walk)
    for slot_list in intents.slot_lists.values():
        _list_words(slot_list, walk)
    for rule in rules.values():
        walk(rule.expression)
    for word in intents.skip_words:
        found.update(words_of(word))
    return found


def _list_words(slot_list: SlotList, walk: Callable[[Expression], None]) -> None:
    """Feed each value of a text slot list to ``walk``."""
    if isinstance(slot_list, TextSlotList):
        for value in slot_list.values:
            walk(value.text_in)
