"""What a text must contain for a hassil sentence template to match it.

Read from the parsed template (hassil's expression tree), once per language, for
:mod:`addon.local.prefilter`. A template's needs are clauses that must all hold, each a set of
atoms of which one must hold (conjunctive normal form, as hassil's own ``_required_clauses``):

* a word of the template occurs in the text (hassil already tests these itself);
* a slot list has a value in the text (``{name}``, ``{area}``…), decided per call;
* the text starts with one of the words or list values a match can begin with, and ends with
  one it can end with: hassil matches from the start of the text and a match must use all of it.

Every rule errs towards keeping a template: leaving out a clause, or an atom in it that is
always true, only keeps more. The facts about hassil 3.12.1's string matcher relied on:

* literal text and text slot values are compared with ``re.IGNORECASE`` against the normalised
  text (:func:`fold` is coarser); a failed comparison is retried with ``-``/``_`` read as spaces,
  so texts and anchors are compared with those replaced;
* matching starts at the start of the (stripped) text; a match may leave only whitespace and
  hassil's punctuation behind (``MatchContext.is_match``);
* an empty or blank text chunk consumes nothing; an optional part may be skipped; a wildcard, a
  number range or a list we cannot read can match anything.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from hassil.expression import (
    Alternative,
    Expression,
    Group,
    ListReference,
    Permutation,
    RuleReference,
    Sentence,
    Sequence,
    TextChunk,
)
from hassil.util import PUNCTUATION_STR

MAX_DEPTH = 24
"""Expansion rules may refer to each other; hassil stops its own analysis at this depth."""

_PUNCTUATION = frozenset(PUNCTUATION_STR)


def fold(text: str) -> str:
    """Case folding at least as loose as ``re.IGNORECASE``, with ``-``/``_`` as spaces.

    ``str.casefold`` unifies every pair of characters ``re.IGNORECASE`` treats as equal except
    the Turkish i's (``re`` matches "ı" and "İ" with "i"), so those are folded further. Folding
    is per character, so a case-insensitive match stays a substring, prefix or suffix.
    (``str.replace`` rather than ``str.translate``: the same, and twenty times quicker.)
    """
    folded = text.casefold().replace("ı", "i").replace("\u0307", "")
    return folded.replace("-", " ").replace("_", " ")


def strip_end(text: str) -> str:
    """``text`` without the whitespace and punctuation a match may leave unconsumed."""
    while True:
        stripped = text.rstrip().rstrip(PUNCTUATION_STR)
        if stripped == text:
            return text
        text = stripped


class Where:
    """Where in the text an atom must be (plain strings: atoms are hashed a great deal)."""

    ANYWHERE: Final = "anywhere"
    START: Final = "start"
    END: Final = "end"


@dataclass(frozen=True, slots=True)
class Word:
    """Literal text (folded) that must occur at ``where``."""

    text: str
    where: str = Where.ANYWHERE


@dataclass(frozen=True, slots=True)
class Slot:
    """A value of the slot list ``name`` must occur at ``where``.

    ``block`` is set by the filter when the template's block has its own list of that name or
    a context its values must fit, which changes what counts as a value.
    """

    name: str
    where: str = Where.ANYWHERE
    block: int | None = None


Atom = Word | Slot
Clause = frozenset[Atom]


class Analysis:
    """Reads templates under one set of expansion rules, keeping what each rule needs.

    Rules such as ``<turn>`` and ``<the>`` appear in hundreds of templates; a rule's needs
    depend only on the rules, so they are worked out once.
    """

    def __init__(self, rules: Mapping[str, Sentence], wildcards: Collection[str] = ()) -> None:
        """``wildcards`` are the names of the language's wildcard lists."""
        self._rules = rules
        self._wildcards = wildcards
        self._literal_memo: dict[str, frozenset[Clause]] = {}
        self._anchor_memo: dict[tuple[str, str], _Anchors | None] = {}

    def needs(self, sentence: Sentence) -> set[Clause]:
        """Every clause a text must satisfy for ``sentence`` to match it.

        hassil matches a template that ends with a wildcard against the text with skip words
        removed only at its start ("please" stays at the end), and one that starts with a
        wildcard with them removed only at the end; the filter does not make those texts, so
        such a template gets no clause for its other end.
        """
        expression = sentence.expression
        clauses = set(self.literal(expression))
        wheres = [Where.START, Where.END]
        if isinstance(expression, Sequence) and len(expression.items) > 1:
            if self._is_wildcard(expression.items[-1]):
                wheres.remove(Where.START)
            if self._is_wildcard(expression.items[0]):
                wheres.remove(Where.END)
        for where in wheres:
            anchors = self._anchors(expression, where, 0)
            if anchors is not None and not anchors.nullable:
                clauses.add(frozenset(anchors.atoms))
        return clauses

    def literal(self, expression: Expression, depth: int = 0) -> frozenset[Clause]:
        """The words and lists any match contains: hassil's ``_required_clauses`` with lists.

        Words are split on whitespace and dropped when they hold punctuation, which hassil may
        strip from the text. An alternative gives one clause, OR-ing one clause of each branch.
        """
        if depth > MAX_DEPTH:
            return frozenset()
        if isinstance(expression, TextChunk):
            return frozenset(
                frozenset((Word(fold(piece)),))
                for piece in expression.text.split()
                if _PUNCTUATION.isdisjoint(piece)
            )
        if isinstance(expression, ListReference):
            return frozenset((frozenset((Slot(expression.list_name),)),))
        if isinstance(expression, Alternative):
            if expression.is_optional or not expression.items:
                return frozenset()
            merged: set[Atom] = set()
            for item in expression.items:
                branch = self.literal(item, depth + 1)
                if not branch:
                    return frozenset()  # this branch needs nothing, nor does the alternative
                merged.update(min(branch, key=_branch_clause_order))
            return frozenset((frozenset(merged),))
        if isinstance(expression, Group):  # a sequence or permutation needs every item
            found: set[Clause] = set()
            for item in expression.items:
                found.update(self.literal(item, depth + 1))
            return frozenset(found)
        if isinstance(expression, RuleReference):
            name = expression.rule_name
            if name not in self._literal_memo:
                rule = self._rules.get(name)
                self._literal_memo[name] = (
                    frozenset() if rule is None else self.literal(rule.expression, depth + 1)
                )
            return self._literal_memo[name]
        return frozenset()

    def _is_wildcard(self, expression: Expression) -> bool:
        """The test ``recognize_all`` makes to pick the text it matches a template against."""
        return isinstance(expression, ListReference) and expression.list_name in self._wildcards

    def _anchors(self, expression: Expression, where: str, depth: int) -> _Anchors | None:
        """What a match of ``expression`` begins (``START``) or ends (``END``) with.

        None when it may begin (or end) with anything.
        """
        if depth > MAX_DEPTH:
            return None
        if isinstance(expression, TextChunk):
            return _chunk_anchors(expression, where)
        if isinstance(expression, ListReference):
            return _Anchors(frozenset((Slot(expression.list_name, where),)), False)
        if isinstance(expression, Alternative):
            parts = [self._anchors(item, where, depth + 1) for item in expression.items]
            return _union(parts, choice=True)
        if isinstance(expression, Permutation):
            # Any item may come first (or last); all of them must match.
            parts = [self._anchors(item, where, depth + 1) for item in expression.items]
            return _union(parts, choice=False)
        if isinstance(expression, Sequence):
            atoms: set[Atom] = set()
            items = expression.items if where == Where.START else reversed(expression.items)
            for item in items:
                found = self._anchors(item, where, depth + 1)
                if found is None:
                    return None
                atoms.update(found.atoms)
                if not found.nullable:
                    return _Anchors(frozenset(atoms), nullable=False)
            return _Anchors(frozenset(atoms), nullable=True)
        if isinstance(expression, RuleReference):
            key = (expression.rule_name, where)
            if key not in self._anchor_memo:
                rule = self._rules.get(expression.rule_name)
                self._anchor_memo[key] = (
                    None if rule is None else self._anchors(rule.expression, where, depth + 1)
                )
            return self._anchor_memo[key]
        return None


@dataclass(frozen=True, slots=True)
class _Anchors:
    """The atoms a match of an expression can begin (or end) with."""

    atoms: frozenset[Atom]
    nullable: bool
    """The expression can match without consuming text, so what follows may come first."""


_NULLABLE = _Anchors(frozenset(), nullable=True)


def _chunk_anchors(chunk: TextChunk, where: str) -> _Anchors | None:
    """The first (or last) word of literal text; nothing for blank text, which may be skipped.

    None when the text's first word cannot be told (a leading "-" reads as a space).
    """
    if not chunk.text.strip():
        return _NULLABLE
    if where == Where.START:
        first = fold(chunk.text.lstrip())
        if first[0].isspace():
            return None
        return _Anchors(frozenset((Word(first.split(maxsplit=1)[0], where),)), False)
    text = strip_end(fold(chunk.text))
    if not text:
        return _NULLABLE  # punctuation may be what a match leaves unconsumed
    return _Anchors(frozenset((Word(text.rsplit(maxsplit=1)[-1], where),)), False)


def _union(parts: list[_Anchors | None], *, choice: bool) -> _Anchors | None:
    """Anchors of an alternative (nullable if one branch is) or a permutation (if all are)."""
    atoms: set[Atom] = set()
    flags: list[bool] = []
    for part in parts:
        if part is None:
            return None
        atoms.update(part.atoms)
        flags.append(part.nullable)
    nullable = any(flags) if choice else all(flags)
    return _Anchors(frozenset(atoms), nullable=nullable or not flags)


def _branch_clause_order(
    clause: Iterable[Atom],
) -> tuple[int, int, int, list[tuple[str, str, str, int]]]:
    """The clause an alternative's branch is known by: fewest atoms, words, the longest word.

    Any one clause a branch needs is sound to keep; a long word is the sharpest: "half a
    minute" needs "minute", "a" and a number, and almost any sentence holds an "a" (words are
    looked for inside the text) and some number, while few say "minute". Timer templates built
    on ``<timer_duration>`` were tried on every sentence with a number in it before.
    """
    atoms = list(clause)
    words = [atom for atom in atoms if isinstance(atom, Word)]
    return (
        len(atoms),
        0 if len(words) == len(atoms) else 1,
        -min((len(word.text) for word in words), default=0),
        sorted(map(atom_order, atoms)),
    )


def atom_order(atom: Atom) -> tuple[str, str, str, int]:
    """A sort key for atoms (sets of them iterate in an order that changes between runs)."""
    if isinstance(atom, Word):
        return ("word", atom.text, atom.where, -1)
    return ("slot", atom.name, atom.where, -1 if atom.block is None else atom.block)
