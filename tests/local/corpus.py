"""Sentences drawn at random from Home Assistant's templates, for checking the template filter.

hassil's own sampler (``hassil.sample``) expands every combination, millions for a home with a
few hundred names; this one draws a few sentences per template with values from a home's
names, areas and floors, then bends them the ways people and speech-to-text do (case,
punctuation, filler words, hyphens, a word too many or too few), so that the corpus holds both
sentences that match and near misses.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from typing import Any

from hassil import Intents
from hassil.expression import (
    Alternative,
    Expression,
    ListReference,
    Permutation,
    RuleReference,
    Sentence,
    Sequence,
    TextChunk,
)
from hassil.intents import IntentData, RangeSlotList, SlotList, TextSlotList, TextSlotValue
from hassil.numbers import get_rbnf_engine
from hassil.util import check_excluded_context, check_required_context

from addon.home.model.live import HomeModel
from addon.local.slots import HomeSlotLists

WILDCARD_TEXT = ("milk", "the blue album", "eggs and bread", "jazz", "work", "Paris")
FILLER = ("please", "could you", "can you", "for me", "now", "the", "thanks", "uh")


class Sampler:
    """Draws sentences for one home from one language's templates."""

    def __init__(self, intents: Intents, model: HomeModel, seed: int) -> None:
        self._intents = intents
        self._rng = random.Random(seed)
        home = HomeSlotLists.build(model)
        names: list[TextSlotValue] = []
        for entity in model.exposed_entities():
            context: dict[str, Any] = {"domain": entity.domain}
            if entity.device_class is not None:
                context["device_class"] = entity.device_class
            for text in (*entity.aliases, entity.name):
                if text.strip():
                    names.append(TextSlotValue.from_tuple((text, text, context), False))
        self._lists: dict[str, SlotList] = {
            **intents.slot_lists,
            "name": TextSlotList(name="name", values=names),
            "area": home.area,
            "floor": home.floor,
        }
        self._engine = get_rbnf_engine(intents.language)

    def sentences(
        self, per_template: int, bent: float, part: tuple[int, int] = (0, 1)
    ) -> Iterator[str]:
        """``per_template`` sentences from each template, each bent with chance ``bent``.

        ``part`` (k, n) draws from every n-th template only, starting at the k-th, so that
        several homes can share the templates out.
        """
        index = -1
        for intent in self._intents.intents.values():
            for data in intent.data:
                rules = {**self._intents.expansion_rules, **data.expansion_rules}
                lists = {**self._lists, **data.slot_lists}
                for sentence in data.sentences:
                    index += 1
                    if index % part[1] != part[0]:
                        continue
                    for _ in range(per_template):
                        text = self._sample(sentence, data, lists, rules)
                        yield self.bend(text) if self._rng.random() < bent else text

    def bend(self, text: str) -> str:
        """``text`` changed the way a person or a transcriber might change it."""
        rng = self._rng
        words = text.split()
        kind = rng.randrange(10)
        if kind == 0:
            return text.upper()
        if kind == 1:
            return f"{text}{rng.choice(('?', '.', '!', ' ?', '...'))}"
        if kind == 2:
            return f"{rng.choice(FILLER)} {text}"
        if kind == 3:
            return f"{text} {rng.choice(FILLER)}"
        if kind == 4 and len(words) > 1:
            at = rng.randrange(len(words) - 1)
            return " ".join([*words[:at], f"{words[at]}-{words[at + 1]}", *words[at + 2 :]])
        if kind == 5 and len(words) > 1:
            del words[rng.randrange(len(words))]
            return " ".join(words)
        if kind == 6:
            words.insert(rng.randrange(len(words) + 1), rng.choice(FILLER))
            return " ".join(words)
        if kind == 7:
            return text.title()
        if kind == 8:
            return re.sub(r"\s+", "  ", text)
        return f"{text}s"

    def _sample(
        self,
        expression: Expression | Sentence,
        data: IntentData,
        lists: Mapping[str, SlotList],
        rules: Mapping[str, Sentence],
    ) -> str:
        rng = self._rng
        if isinstance(expression, Sentence):
            expression = expression.expression
        if isinstance(expression, TextChunk):
            return expression.original_text
        if isinstance(expression, Alternative):
            return self._sample(rng.choice(expression.items), data, lists, rules)
        if isinstance(expression, Permutation):
            items = list(expression.items)
            rng.shuffle(items)
            return " ".join(self._sample(item, data, lists, rules).strip() for item in items)
        if isinstance(expression, Sequence):
            return re.sub(
                r"\s+",
                " ",
                "".join(self._sample(item, data, lists, rules) for item in expression.items),
            )
        if isinstance(expression, RuleReference):
            return self._sample(rules[expression.rule_name].expression, data, lists, rules)
        if isinstance(expression, ListReference):
            return self._value(expression, data, lists, rules)
        raise TypeError(expression)

    def _value(
        self,
        reference: ListReference,
        data: IntentData,
        lists: Mapping[str, SlotList],
        rules: Mapping[str, Sentence],
    ) -> str:
        rng = self._rng
        slot_list = lists.get(reference.list_name)
        if slot_list is None:
            bounds = reference.get_inline_range()
            if bounds is None:
                return "something"
            slot_list = RangeSlotList(name=None, start=bounds[0], stop=bounds[1], step=bounds[2])
        if isinstance(slot_list, TextSlotList):
            values = [value for value in slot_list.values if _fits(data, value)]
            if not values:
                values = slot_list.values or [TextSlotValue.from_tuple(("nothing", "nothing"))]
            value = rng.choice(values)
            return self._sample(value.text_in, data, lists, rules)
        if isinstance(slot_list, RangeSlotList):
            numbers = list(slot_list.get_numbers())
            number = rng.choice(numbers) if numbers else 0
            if rng.random() < 0.7:
                return str(number)
            words = self._engine.format_number(number).text_by_ruleset
            return rng.choice(sorted(set(words.values())))
        return rng.choice(WILDCARD_TEXT)


def _fits(data: IntentData, value: TextSlotValue) -> bool:
    """Whether ``value`` may fill a slot of ``data``'s block, so samples mostly match."""
    if data.requires_context and not check_required_context(
        data.requires_context, value.context, allow_missing_keys=True
    ):
        return False
    return not data.excludes_context or check_excluded_context(data.excludes_context, value.context)
