"""Skipping the sentence templates a text cannot match, before hassil tries them.

hassil 3.12 already skips a template when the text lacks one of its literal words, but most of
Home Assistant's templates are almost all slots and optional words
(``[<turn>] [<the>] {name} [to] on``) and pass that test for nearly any sentence; trying the
survivors cost 1-3 ms for a sentence no template matches. This filter adds what hassil leaves
out (see :mod:`addon.local.templates`): the slot lists, which must have a value in the text,
and where a match can begin and end. The names of the home are cut to the ones in the text
before recognition anyway, so ``{name}`` is empty for most chatter.

A template the filter skips can never match, so the templates that remain are handed to
``recognize_best`` as a smaller :class:`Intents` holding the same sentence objects in the same
order, and hassil's choice among the matches is unchanged.

A text is tested in two passes: first by its words, beginnings and endings alone, every slot
atom taken as present (a template whose words are missing is out whatever the slots hold: most
of them, for a sentence nothing matches); then only the slot groups the remaining templates
name are looked at. Slot groups were most of a miss's cost (about a hundred a sentence over the
three sets of sentences; now a handful), so templates are filed under a clause of words when
they have one, the clause the first pass can rule out.

The first pass asks its words of the text's runs of letters between whitespace and keeps each
run's answer (the bits its words set, the buckets they file; :class:`_RunIndex`): a word
without whitespace occurs in a text exactly when it occurs in one of its runs (a test in
tests/local/test_forms.py holds the runs to the text for every shipped word), and a home's
sentences reuse few words, so a text costs a lookup per word it holds, not a test per word of
the templates (about 60 µs of a 300 µs miss before). Where a home list's values sit is worked
out once per text and list (``TextMemo.reaches``, by the list's identity), and a value is asked
of the text's beginnings (ends) only when its first (last) letter is one a form has there.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from hassil import Intents
from hassil.expression import Sentence
from hassil.intents import Intent, IntentData, SlotList, TextSlotValue, WildcardSlotList
from hassil.util import check_excluded_context, check_required_context

from addon.local.forms import Reach, SkipWords, TextForms, TextMemo, plain_word
from addon.local.templates import Analysis, Atom, Slot, Where, atom_order
from addon.local.values import ListValues, ValueCache, analyse

_ACCEPT_MEMO_SIZE = 4096
"""Remembered context tests (slot group × distinct value context); a home has a few dozen."""
_ANYWHERE, _AT_START, _AT_END = 1, 2, 4
"""Where the values of one context were found (bits of ``TemplateFilter._group_present``)."""
_EVERYWHERE = _ANYWHERE | _AT_START | _AT_END
_REDUCED_CACHE_SIZE = 256
"""Reduced template sets kept; a home sees a few dozen distinct ones in practice."""


@dataclass(frozen=True, slots=True)
class _Scope:
    """What a block changes about its lists: its own lists and the context values must fit."""

    own: Mapping[str, SlotList]
    data: IntentData | None
    """The block whose ``requires_context``/``excludes_context`` values must fit; None: any."""


@dataclass(frozen=True, slots=True)
class _Need:
    """One template's clauses as bits (see :meth:`TemplateFilter._index`)."""

    index: int
    single: int
    """The bits of its one-atom clauses, all of which must be set."""
    longer: tuple[int, ...]
    """The bits of each longer clause, one of which must be set."""
    every: int
    """All the bits it names: which slot groups decide whether it survives."""


@dataclass(frozen=True, slots=True)
class _SlotGroup:
    """The atoms of one slot list, tested together: most texts have none of its values."""

    name: str
    own: SlotList | None
    """A block's own list of that name; None: the list given per call or the language's."""
    bits: int
    atoms: tuple[tuple[Slot, int], ...]


_IN, _AT_FRONT, _AT_BACK = 0, 1, 2
"""How a word is asked of a run: inside it, at its front, at its back."""
_RUN_MEMO_SIZE = 4096
"""Runs of letters whose words are remembered, per filter and kind: more than a home says."""


class _RunIndex:
    """Words without whitespace and their bits, asked of a text's runs of letters.

    A run's answer is kept: the words of a home's sentences come back, so most runs are asked
    once. Runs are exactly the pieces of the text a word without whitespace can occur in (see
    :mod:`addon.local.forms`), so the bits found are those ``word in text`` finds. With them,
    the buckets those bits file (``by_bit``), which the first pass asks.
    """

    def __init__(
        self,
        kind: int,
        words: Sequence[tuple[str, int]],
        by_bit: Mapping[int, tuple[int, ...]],
    ) -> None:
        self._kind = kind
        self._words = tuple(words)
        self._by_bit = by_bit
        self._memo: dict[str, tuple[int, frozenset[int]]] = {}

    def found(self, run: str) -> tuple[int, frozenset[int]]:
        """The bits of the words in (at the front of, at the back of) ``run``, their buckets."""
        found = self._memo.get(run)
        if found is None:
            if self._kind == _IN:
                bits = [bit for word, bit in self._words if word in run]
            elif self._kind == _AT_FRONT:
                bits = [bit for word, bit in self._words if run.startswith(word)]
            else:
                bits = [bit for word, bit in self._words if run.endswith(word)]
            present = 0
            for bit in bits:
                present |= bit
            found = (present, frozenset(_filed(bits, self._by_bit)))
            if len(self._memo) >= _RUN_MEMO_SIZE:
                self._memo.clear()
            self._memo[run] = found
        return found


class TemplateFilter:
    """One language's templates, each with what a text needs for it to match.

    Built once per loaded language; :meth:`reduce` runs for every sentence and may run in
    several threads at once.
    """

    def __init__(self, intents: Intents) -> None:
        self._intents = intents
        self.enabled = not intents.settings.ignore_whitespace
        """False for languages written without spaces, which hassil matches differently."""
        self._skip_words = SkipWords.of(intents.skip_words)
        wildcards = {
            name
            for name, slot_list in intents.slot_lists.items()
            if isinstance(slot_list, WildcardSlotList)
        }
        self._blocks: list[tuple[str, IntentData]] = []
        self._templates: list[tuple[int, Sentence]] = []
        self._scopes: list[_Scope] = []
        scope_keys: dict[tuple[object, ...], int] = {}
        template_needs: list[list[frozenset[Atom]]] = []
        shared = Analysis(intents.expansion_rules, wildcards)
        for intent in intents.intents.values():
            for data in intent.data:
                block = len(self._blocks)
                self._blocks.append((intent.name, data))
                analysis = shared
                if data.expansion_rules:
                    rules = {**intents.expansion_rules, **data.expansion_rules}
                    analysis = Analysis(rules, wildcards)
                for sentence in data.sentences:
                    self._templates.append((block, sentence))
                    template_needs.append(
                        [
                            frozenset(
                                self._scoped(atom, data, scope_keys)
                                if isinstance(atom, Slot)
                                else atom
                                for atom in clause
                            )
                            for clause in analysis.needs(sentence)
                        ]
                    )
        self._index(template_needs)
        self._static = {id(slot_list): analyse(slot_list) for slot_list in self._own_lists()}
        self._cache = ValueCache()
        self._lock = threading.Lock()
        self._reduced: OrderedDict[tuple[int, ...], Intents] = OrderedDict()
        self._accept_memo: dict[tuple[int, str | None], tuple[int, int, int]] = {}

    def _index(self, template_needs: list[list[frozenset[Atom]]]) -> None:
        """Number the atoms so a text is tested with a few bit operations.

        Each atom has a bit. A template survives when the bits of its one-atom clauses are all
        set and each longer clause has one of its bits set. Templates are filed under one
        clause (where they start, most often), so a text skips the templates of a clause it
        lacks without looking at them one by one.
        """
        atoms: dict[Atom, int] = {}
        for clauses in template_needs:
            for clause in clauses:
                for atom in sorted(clause, key=atom_order):
                    atoms.setdefault(atom, 1 << len(atoms))
        buckets: dict[int, list[_Need]] = {}
        for index, clauses in enumerate(template_needs):
            single = 0
            longer: list[int] = []
            for clause in clauses:
                mask = 0
                for atom in clause:
                    mask |= atoms[atom]
                if len(clause) == 1:
                    single |= mask
                else:
                    longer.append(mask)
            # Filed under a clause of words if it has one: the first pass takes every slot atom
            # as present, so only a clause of words can rule the template out there.
            worded = [clause for clause in clauses if not any(isinstance(a, Slot) for a in clause)]
            key = min(worded or clauses, key=_filing_order, default=frozenset())
            mask = 0
            for atom in key:
                mask |= atoms[atom]
            every = single
            for bits in longer:
                every |= bits
            buckets.setdefault(mask, []).append(_Need(index, single, tuple(longer), every))
        self._buckets = [(mask, tuple(needs)) for mask, needs in buckets.items()]
        self._inside: list[tuple[str, int]] = []
        starts: list[tuple[str, int]] = []
        ends: list[tuple[str, int]] = []
        groups: dict[tuple[str, int | None], list[tuple[Slot, int]]] = {}
        for atom, bit in atoms.items():
            if isinstance(atom, Slot):
                scope = None if atom.block is None else self._scopes[atom.block]
                own = None if scope is None else scope.own.get(atom.name)
                groups.setdefault((atom.name, None if own is None else id(own)), []).append(
                    (atom, bit)
                )
            elif atom.where == Where.START:
                starts.append((atom.text, bit))
            elif atom.where == Where.END:
                ends.append((atom.text, bit))
            else:
                self._inside.append((atom.text, bit))
        self._groups = [
            _SlotGroup(
                name,
                None if own_id is None else self._own_list(members[0][0]),
                sum(bit for _slot, bit in members),
                tuple(members),
            )
            for (name, own_id), members in groups.items()
        ]
        self._slot_bits = 0
        for group in self._groups:
            self._slot_bits |= group.bits
        # The first pass asks only the buckets a word found in the text files (a bucket whose
        # clause names a slot, or none, is always asked): a text holds a few of the words.
        self._always: list[int] = []
        by_bit: dict[int, list[int]] = {}
        for position, (mask, _needs) in enumerate(self._buckets):
            if not mask or mask & self._slot_bits:
                self._always.append(position)
                continue
            rest = mask
            while rest:
                bit = rest & -rest
                by_bit.setdefault(bit, []).append(position)
                rest ^= bit
        self._buckets_by_bit = {bit: tuple(positions) for bit, positions in by_bit.items()}
        # Words without whitespace are asked of the text's runs, the answer kept per run; the
        # few others (a template word with "-" folds to two), of the text itself.
        self._inside_runs = _RunIndex(
            _IN, [(w, b) for w, b in self._inside if plain_word(w)], self._buckets_by_bit
        )
        self._inside_rest = tuple((w, b) for w, b in self._inside if not plain_word(w))
        self._start_runs = _RunIndex(
            _AT_FRONT, [(w, b) for w, b in starts if plain_word(w)], self._buckets_by_bit
        )
        self._start_rest = tuple((w, b) for w, b in starts if not plain_word(w))
        self._end_runs = _RunIndex(
            _AT_BACK, [(w, b) for w, b in ends if plain_word(w)], self._buckets_by_bit
        )
        self._end_rest = tuple((w, b) for w, b in ends if not plain_word(w))

    def _own_list(self, slot: Slot) -> SlotList | None:
        """The block's own list ``slot`` refers to, if it has one."""
        return None if slot.block is None else self._scopes[slot.block].own.get(slot.name)

    def survivors(
        self,
        text: str,
        slot_lists: Mapping[str, SlotList],
        cache: ValueCache | None = None,
        memo: TextMemo | None = None,
    ) -> tuple[int, ...]:
        """The templates ``text`` might match with ``slot_lists``, in hassil's order.

        ``cache`` keeps the analysed values of the lists (one per home model); without it the
        filter's own is used. ``memo`` shares the text's forms with the other sets of
        sentences matched against the same text (:class:`~addon.local.forms.TextMemo`).
        """
        if not self.enabled or any(
            isinstance(slot_list, WildcardSlotList) for slot_list in slot_lists.values()
        ):
            # A wildcard given per call could make hassil read a template's text differently
            # (see templates.needs); we never pass one.
            return tuple(range(len(self._templates)))
        skip_key = self._skip_words.words
        forms = memo.forms.get((text, skip_key)) if memo is not None else None
        if forms is None:
            forms = TextForms.of(text, self._skip_words)
            if memo is not None:
                memo.forms[text, skip_key] = forms
        # The bits of the words, beginnings and endings found, and the buckets they file.
        present = 0
        asked = set(self._always)
        for index, runs in (
            (self._inside_runs, forms.runs),
            (self._start_runs, forms.leads),
            (self._end_runs, forms.trails),
        ):
            for run in runs:
                bits, positions = index.found(run)
                present |= bits
                asked |= positions
        if self._inside_rest or self._start_rest or self._end_rest:
            haystack = forms.haystack
            rest = [bit for word, bit in self._inside_rest if word in haystack]
            rest.extend(
                bit
                for word, bit in self._start_rest
                if any(form.startswith(word) for form in forms.starts)
            )
            rest.extend(
                bit
                for word, bit in self._end_rest
                if any(form.endswith(word) for form in forms.ends)
            )
            for bit in rest:
                present |= bit
            asked.update(_filed(rest, self._buckets_by_bit))
        # Two passes. First with every slot atom taken as present: the templates whose words,
        # beginnings and endings the text lacks are out, whatever the slots hold (most, for
        # chatter). Then only the slot groups those that remain name are looked at, which is
        # exact for them: a group is skipped only when no remaining template needs its bits.
        hopeful = present | self._slot_bits
        remaining: list[_Need] = []
        needed = 0
        buckets = self._buckets
        for position in asked:
            for need in buckets[position][1]:
                if need.single & hopeful != need.single:
                    continue
                for longer in need.longer:
                    if not longer & hopeful:
                        break
                else:
                    remaining.append(need)
                    needed |= need.every
        if not remaining:
            return ()
        needed &= self._slot_bits
        cache = self._cache if cache is None else cache
        for group in self._groups:
            if group.bits & needed:
                present |= self._group_present(group, slot_lists, forms, cache, memo)
        kept: list[int] = []
        for need in remaining:
            if need.single & present != need.single:
                continue
            for longer in need.longer:
                if not longer & present:
                    break
            else:
                kept.append(need.index)
        kept.sort()
        return tuple(kept)

    def reduce(
        self,
        text: str,
        slot_lists: Mapping[str, SlotList],
        cache: ValueCache | None = None,
        memo: TextMemo | None = None,
    ) -> Intents | None:
        """The intents with only the templates ``text`` might match; None when there are none."""
        kept = self.survivors(text, slot_lists, cache, memo)
        if not kept:
            return None
        if len(kept) == len(self._templates):
            return self._intents
        with self._lock:
            cached = self._reduced.get(kept)
            if cached is not None:
                self._reduced.move_to_end(kept)
                return cached
        reduced = self._build(kept)
        with self._lock:
            self._reduced[kept] = reduced
            while len(self._reduced) > _REDUCED_CACHE_SIZE:
                self._reduced.popitem(last=False)
        return reduced

    def _scoped(self, slot: Slot, data: IntentData, keys: dict[tuple[object, ...], int]) -> Slot:
        """``slot`` tied to its block's scope when the block changes what the list holds."""
        own = data.slot_lists.get(slot.name)
        context = bool(data.requires_context or data.excludes_context)
        if own is None and not context:
            return slot
        key = (id(own), repr(data.requires_context), repr(data.excludes_context))
        if key not in keys:
            keys[key] = len(self._scopes)
            own_lists = {} if own is None else {slot.name: own}
            self._scopes.append(_Scope(own_lists, data if context else None))
        return dataclasses.replace(slot, block=keys[key])

    def _own_lists(self) -> list[SlotList]:
        """The lists that ship with the templates (as opposed to a home's, given per call)."""
        lists = list(self._intents.slot_lists.values())
        for _name, data in self._blocks:
            lists.extend(data.slot_lists.values())
        return lists

    def _group_present(
        self,
        group: _SlotGroup,
        slot_lists: Mapping[str, SlotList],
        forms: TextForms,
        cache: ValueCache,
        memo: TextMemo | None = None,
    ) -> int:
        """The bits of ``group``'s atoms that hold: a value of the list is where it must be.

        An atom holds when a value found in the text sits where the atom needs it (anywhere,
        at the start, at the end) and its context fits the atom's block. The values are
        summed up per context (a home's names share a few), and each context's atoms are
        known by where they need it (:meth:`_accepting`), so the cost follows the contexts
        found, not the hundred-odd blocks that name an area or a device. Where the values of a
        list sit in the text is the same for every set of sentences: the home's names, areas and
        floors are worked out once per text (``memo``).
        """
        slot_list = group.own
        if slot_list is None:
            slot_list = slot_lists.get(group.name, self._intents.slot_lists.get(group.name))
        if slot_list is None:
            return group.bits  # an inline range ({1..10:x}), or a list hassil reports missing
        key = id(slot_list)
        reach = memo.reaches.get(key) if memo is not None else None
        if reach is None or reach.slot_list is not slot_list or reach.forms is not forms:
            analysed = self._static[key] if key in self._static else cache.of(slot_list)
            if analysed is None:
                return group.bits
            reach = Reach(slot_list, forms, _placed(analysed, forms))
            if memo is not None:
                memo.reaches[key] = reach
        if not reach.contexts:
            return 0
        present = 0
        for context, (placed, example) in reach.contexts.items():
            anywhere, at_start, at_end = self._accepting(group, context, example)
            present |= anywhere
            if placed & _AT_START:
                present |= at_start
            if placed & _AT_END:
                present |= at_end
        return present

    def _accepting(
        self, group: _SlotGroup, context: str | None, value: TextSlotValue
    ) -> tuple[int, int, int]:
        """The bits of ``group``'s atoms whose block tries a value with ``context``, by where.

        Anywhere, at the start, at the end. A value with no context fits every block (nothing
        to contradict a requirement or an exclusion); otherwise each block's test is hassil's
        own (:func:`_fits`), and the answer is kept per group and context (by ``repr``, equal
        for equal plain data): a home's names share a few contexts ({"domain": "light"}).
        """
        key = (id(group), context)
        accepting = self._accept_memo.get(key)
        if accepting is not None:
            return accepting
        bits = {Where.ANYWHERE: 0, Where.START: 0, Where.END: 0}
        for slot, bit in group.atoms:
            data = None if slot.block is None else self._scopes[slot.block].data
            if context is None or data is None or _fits(data, value.context):
                bits[slot.where] |= bit
        accepting = (bits[Where.ANYWHERE], bits[Where.START], bits[Where.END])
        if len(self._accept_memo) > _ACCEPT_MEMO_SIZE:
            self._accept_memo.clear()
        self._accept_memo[key] = accepting
        return accepting

    def _build(self, kept: Sequence[int]) -> Intents:
        """An :class:`Intents` with the kept templates, blocks and intents in their order."""
        by_block: dict[int, list[Sentence]] = {}
        for index in kept:
            block, sentence = self._templates[index]
            by_block.setdefault(block, []).append(sentence)
        intents: dict[str, Intent] = {}
        for block, sentences in by_block.items():
            name, data = self._blocks[block]
            reduced = dataclasses.replace(data)
            # IntentData.sentences is a cached_property: seed it with the sentences hassil
            # already parsed (and sorted) rather than parse the kept ones again.
            vars(reduced)["sentences"] = sentences
            intents.setdefault(name, Intent(name=name)).data.append(reduced)
        return dataclasses.replace(self._intents, intents=intents)


def _placed(analysed: ListValues, forms: TextForms) -> dict[str | None, tuple[int, TextSlotValue]]:
    """Where the values of ``analysed`` found in the text sit, by context (bits), with a value.

    A value is asked of the forms' beginnings (ends) only when its first (last) letter is one
    a form begins (ends) with, which few are; a context already found at both is not asked again.
    """
    found = analysed.found(forms.haystack)
    # Where the values of each context sit: _ANYWHERE always, _AT_START, _AT_END.
    reach: dict[str | None, tuple[int, TextSlotValue]] = {}
    firsts, lasts = forms.firsts, forms.lasts
    for value in found:
        known = reach.get(value.context)
        placed = _ANYWHERE if known is None else known[0]
        if placed == _EVERYWHERE:
            continue
        start, end = value.start, value.end
        if (
            start is None
            or not start
            or (start[0] in firsts and any(text.startswith(start) for text in forms.starts))
        ):
            placed |= _AT_START
        if (
            end is None
            or not end
            or (end[-1] in lasts and any(text.endswith(end) for text in forms.ends))
        ):
            placed |= _AT_END
        reach[value.context] = (placed, value.value if known is None else known[1])
    return reach


def _filed(bits: Iterable[int], by_bit: Mapping[int, tuple[int, ...]]) -> set[int]:
    """The buckets filed under any of ``bits``."""
    positions: set[int] = set()
    for bit in bits:
        positions.update(by_bit.get(bit, ()))
    return positions


def _filing_order(clause: frozenset[Atom]) -> tuple[int, int, list[tuple[str, str, str, int]]]:
    """Which clause to file a template under: where it starts, else where it ends, else any.

    A text starts with one word, so a start clause rules out the most templates.
    """
    wheres = {atom.where for atom in clause}
    rank = 0 if wheres == {Where.START} else 1 if wheres == {Where.END} else 2
    return (rank, len(clause), sorted(map(atom_order, clause)))


def _fits(data: IntentData, context: dict[str, object] | None) -> bool:
    """Whether hassil tries a value with ``context`` in ``data``'s block: its test, verbatim."""
    if data.requires_context and not check_required_context(
        data.requires_context, context, allow_missing_keys=True
    ):
        return False
    return not (
        data.excludes_context and not check_excluded_context(data.excludes_context, context)
    )
