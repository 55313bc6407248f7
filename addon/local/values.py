"""What the values of a slot list need of a text, for the template filter.

hassil matches a text slot value as literal text (``re.IGNORECASE``, ``-``/``_`` read as spaces
on a retry), so a value can only match where its folded text occurs; a value that is itself a
template ("(red|crimson)") needs at least its literal words. Range and wildcard lists can match
anything. A home's lists are analysed once per home model (:class:`ValueCache`), not per turn.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from hassil.expression import TextChunk
from hassil.intents import SlotList, TextSlotList, TextSlotValue

from addon.local.templates import Analysis, Word, fold, strip_end

_LIST_CACHE_SIZE = 8
"""Lists whose analysis is kept whole: a home's areas and floors come back on every call (and
stay), the names found in one text are a new list each time (and drop out)."""
_VALUE_CACHE_SIZE = 50_000
"""Analysed values kept, more than the names of a large home; past it the cache starts over."""


@dataclass(frozen=True, slots=True)
class Value:
    """One text slot value and what it needs of the text to match."""

    value: TextSlotValue
    context: str | None
    """The value's context as ``repr`` (equal for equal plain data); None when it has none."""
    inside: tuple[tuple[str, ...], ...]
    """Clauses of folded fragments of the text, each needing one of its fragments."""
    start: str | None
    """What the text starts with when the value matches first; None: cannot tell."""
    end: str | None
    """What the text ends with when the value matches last; None: cannot tell."""


@dataclass(frozen=True, slots=True)
class ListValues:
    """The analysed values of one slot list, plain ones apart for a quick test."""

    plain: tuple[tuple[str, Value], ...]
    """Values of plain text, by the folded text that must occur."""
    templated: tuple[Value, ...]

    def found(self, haystack: str) -> list[Value]:
        """The values whose text occurs in ``haystack`` (the folded forms of the input)."""
        found = [value for text, value in self.plain if text in haystack]
        found.extend(
            value
            for value in self.templated
            if all(any(part in haystack for part in clause) for clause in value.inside)
        )
        return found


class ValueCache:
    """Analysed values of one home's slot lists, to keep as long as those lists.

    Lists and values are kept by identity (and held, so an identity is not reused while kept);
    may be used from several threads at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lists: OrderedDict[int, tuple[SlotList, ListValues | None]] = OrderedDict()
        self._values: dict[int, tuple[TextSlotValue, Value | None]] = {}

    def of(self, slot_list: SlotList) -> ListValues | None:
        """The analysed values of ``slot_list``; None for a list that may match anything."""
        key = id(slot_list)
        with self._lock:
            entry = self._lists.get(key)
            if entry is not None and entry[0] is slot_list:
                self._lists.move_to_end(key)
                return entry[1]
        values = analyse(slot_list, self._value)
        with self._lock:
            self._lists[key] = (slot_list, values)
            while len(self._lists) > _LIST_CACHE_SIZE:
                self._lists.popitem(last=False)
        return values

    def _value(self, value: TextSlotValue) -> Value | None:
        """``analyse_value``, remembered: names found in a text are the same objects each call."""
        entry = self._values.get(id(value))
        if entry is not None and entry[0] is value:
            return entry[1]
        analysed = analyse_value(value)
        with self._lock:
            if len(self._values) >= _VALUE_CACHE_SIZE:
                self._values.clear()
            self._values[id(value)] = (value, analysed)
        return analysed


def analyse(
    slot_list: SlotList, analyse_one: Callable[[TextSlotValue], Value | None] | None = None
) -> ListValues | None:
    """What each value of ``slot_list`` needs; None for a list that may match anything."""
    if not isinstance(slot_list, TextSlotList):
        return None  # a number range or a wildcard
    one = analyse_value if analyse_one is None else analyse_one
    plain: list[tuple[str, Value]] = []
    templated: list[Value] = []
    for value in slot_list.values:
        analysed = one(value)
        if analysed is None:
            continue
        if analysed.start is None:
            templated.append(analysed)
        else:
            plain.append((analysed.inside[0][0], analysed))
    return ListValues(tuple(plain), tuple(templated))


def analyse_value(value: TextSlotValue) -> Value | None:
    """What ``value`` needs of a text; None for a blank value, which hassil never matches."""
    context = repr(value.context) if value.context else None
    text_in = value.text_in
    if not isinstance(text_in, TextChunk):
        # A template value ("(red|crimson)"): only its literal words are known.
        words = tuple(
            tuple(sorted(atom.text for atom in clause if isinstance(atom, Word)))
            for clause in Analysis({}).literal(text_in)
            if all(isinstance(atom, Word) for atom in clause)
        )
        return Value(value, context, words, None, None)
    if not text_in.text.strip():
        return None
    start = fold(text_in.text.lstrip())
    inside = start.strip()
    return Value(value, context, ((inside,),), start, strip_end(start) or None)
