"""The template filter: it never drops a template that matches, and it drops the rest fast.

The proof of safety is empirical and wide: sentences drawn from every template over three
homes (the captured demo, a synthetic 1,000-entity home and the small test home), bent into
near misses, plus the sentences the matcher's own tests use. For each, every template hassil
finds a match with must be one the filter keeps, and the matcher must answer exactly as it does
with no filter at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hassil import Intents
from hassil.expression import Sentence
from hassil.intents import TextSlotList, WildcardSlotList
from hassil.parse_expression import parse_sentence
from hassil.recognize import recognize_all
from home_assistant_intents import get_intents

from addon.home.model.live import HomeModel
from addon.local.language import load_language, load_legacy
from addon.local.library import LOCAL_INTENTS
from addon.local.matcher import LocalMatch, LocalMatcher
from addon.local.prefilter import TemplateFilter
from addon.local.slots import HomeSlotLists
from addon.local.templates import Analysis, Slot, Where, Word
from devtools.synthetic import synthetic_home
from tests.local.conftest import home_dicts
from tests.local.corpus import Sampler

DEMO_HOME = Path(__file__).resolve().parents[1] / "data" / "demo_home.json"

# The sentences tests/local/test_matcher.py and bench/local_path.py use, and chatter.
KNOWN = (
    "turn on the kitchen lights",
    "turn off living room lights",
    "set bedroom brightness to 50%",
    "what is the temperature in the office",
    "turn on the cooking light",
    "turn on the lounge lights",
    "turn off the lights upstairs",
    "turn on the first floor lights",
    "turn on the garage lights",
    "turn on the attic light",
    "turn on the reading lamp",
    "turn on the lights",
    "broadcast that dinner is ready",
    "set a timer for 5 minutes",
    "is the coffee maker on",
    "add milk to the shopping list",
    "add buy some milk and eggs and bread for the party to the shopping list",
    "turn on the porch light",
    "turn on the couch light",
    "turn off the bed light",
    "turn on the lights in the office",
    "set the office rgbw lights brightness to 50%",
    "set the kitchen lights to red",
    "what is the temperature in the bedroom",
    "set the heatpump to 21 degrees",
    "lock the front door",
    "unlock the kitchen door",
    "open the garage door",
    "close the kitchen window",
    "turn on the decorative lights",
    "turn off the ac",
    "turn on the living room fan",
    "next track on the walkman",
    "set the walkman volume to 40%",
    "what time is it",
    "could you brighten things up with the Kitchen Lamp",
    "what's the weather like tomorrow",
    "what's the capital of France",
    "tell me a joke",
    "question 17",
    "remind me to call mum at five",
    "Please turn on the kitchen lights.",
    "turn on the living-room lights",
    "TURN OFF THE KITCHEN LIGHTS!",
    "can you turn on the kitchen lights for me please",
    "hi",
    "",
    "   ",
    "?!",
)


@pytest.fixture(scope="module")
def homes() -> dict[str, HomeModel]:
    """The captured demo, a synthetic 1,000-entity home and the small test home."""
    demo = json.loads(DEMO_HOME.read_text(encoding="utf-8"))
    return {
        "demo": HomeModel.build(**demo),
        "synthetic": synthetic_home(1000, seed=0).build(),
        "test": HomeModel.build(**home_dicts()),
    }


@pytest.fixture(scope="module")
def all_english() -> Intents:
    """Every English intent Home Assistant ships, wildcards and all, not just the ones we run."""
    data = get_intents("en")
    assert data is not None
    return Intents.from_dict(data)


@pytest.fixture(scope="module")
def english_filter(all_english: Intents) -> TemplateFilter:
    """The filter over every English intent."""
    return TemplateFilter(all_english)


def templates_in_order(intents: Intents) -> list[Sentence]:
    """Every template of ``intents`` in hassil's order: the indices the filter's survivors use."""
    return [
        sentence
        for intent in intents.intents.values()
        for data in intent.data
        for sentence in data.sentences
    ]


@pytest.fixture(scope="module")
def local_filter() -> TemplateFilter:
    """The filter as the matcher builds it, over the intents it answers."""
    intents = load_language("en", LOCAL_INTENTS)
    assert intents is not None
    return TemplateFilter(intents.intents)


@pytest.fixture(scope="module")
def unfiltered() -> LocalMatcher:
    """The matcher as it was: hassil tries every template."""
    local = LocalMatcher("en", prefilter=False)
    local.prepare()
    return local


def corpus(
    intents: Intents, model: HomeModel, seed: int, part: tuple[int, int] = (0, 1)
) -> list[str]:
    """The known sentences, then one drawn from each template of ``intents`` for ``model``.

    A third are bent into variants or near misses. ``part`` shares the templates out between
    homes (see :meth:`Sampler.sentences`).
    """
    drawn = Sampler(intents, model, seed).sentences(per_template=1, bent=0.35, part=part)
    return list(dict.fromkeys([*KNOWN, *drawn]))


def matching_templates(
    text: str, intents: Intents, lists: dict[str, Any]
) -> Iterable[Sentence | None]:
    """Every template hassil finds a match with, not just the best."""
    for result in recognize_all(text, intents, slot_lists=lists, language=intents.language):
        yield result.intent_sentence


@pytest.mark.parametrize(("home", "part"), [("demo", (0, 2)), ("synthetic", (1, 2))])
def test_every_matching_template_is_kept(
    all_english: Intents,
    english_filter: TemplateFilter,
    homes: dict[str, HomeModel],
    home: str,
    part: tuple[int, int],
) -> None:
    """No template that matches a sentence is ever filtered out, for any English intent.

    The two homes share the templates out, each drawing from every other one.
    """
    model = homes[home]
    template_filter = english_filter
    templates = templates_in_order(all_english)
    home_lists = HomeSlotLists.build(model)
    matched = 0
    for text in corpus(all_english, model, seed=len(home), part=part):
        lists = home_lists.for_text(text)
        kept = {id(templates[index]) for index in template_filter.survivors(text, lists)}
        for sentence in matching_templates(text, all_english, dict(lists)):
            matched += 1
            assert id(sentence) in kept, (text, sentence.text if sentence else None)
    assert matched > 250  # the corpus is made of matches, not just misses


def test_every_matching_template_of_home_assistant_2025_4_is_kept(
    homes: dict[str, HomeModel],
) -> None:
    """The filter keeps every matching template of the vendored 2025.4 sentences too."""
    legacy = load_legacy("en", LOCAL_INTENTS)
    assert legacy is not None
    intents = legacy.intents
    template_filter = TemplateFilter(intents)
    templates = templates_in_order(intents)
    model = homes["demo"]
    home_lists = HomeSlotLists.build(model)
    matched = 0
    for text in corpus(intents, model, seed=11):
        lists = home_lists.for_text(text)
        kept = {id(templates[index]) for index in template_filter.survivors(text, lists)}
        for sentence in matching_templates(text, intents, dict(lists)):
            matched += 1
            assert id(sentence) in kept, (text, sentence.text if sentence else None)
    assert matched > 150


def _essentials(match: LocalMatch | None) -> tuple[Any, ...] | None:
    if match is None:
        return None
    return (
        match.intent,
        match.slots,
        match.response_key,
        match.speech_slots,
        match.language,
        match.text,
    )


@pytest.mark.parametrize(
    ("home", "part"), [("demo", (0, 3)), ("synthetic", (1, 3)), ("test", (2, 3))]
)
def test_matcher_answers_as_without_filter(
    matcher: LocalMatcher,
    unfiltered: LocalMatcher,
    homes: dict[str, HomeModel],
    home: str,
    part: tuple[int, int],
) -> None:
    """Every sentence gets the same LocalMatch (or None) with the filter as without it.

    The three homes share the templates out (a third each), so every template is drawn once.
    """
    model = homes[home]
    intents = load_language("en", LOCAL_INTENTS)
    legacy = load_legacy("en", LOCAL_INTENTS)
    assert intents is not None
    assert legacy is not None
    areas = [None, *model.areas]
    hits = 0
    texts = [
        *corpus(intents.intents, model, seed=7 + len(home), part=part),
        *corpus(legacy.intents, model, seed=3 + len(home), part=part),
    ]
    for number, text in enumerate(texts):
        # Every other sentence as if said by a satellite in some area.
        preferred = areas[number % 2 and number % len(areas)]
        ours = matcher.recognize(text, model, preferred_area_id=preferred)
        reference = unfiltered.recognize(text, model, preferred_area_id=preferred)
        assert _essentials(ours) == _essentials(reference), (text, preferred)
        hits += ours is not None
    assert hits > 60


@pytest.mark.parametrize(
    "text",
    [
        "could you brighten things up with the Kitchen Lamp",
        "what's the capital of France",
        "tell me a joke",
        "question 17",
        "remind me to call mum at five",
    ],
)
def test_chatter_reaches_no_template(
    local_filter: TemplateFilter, homes: dict[str, HomeModel], text: str
) -> None:
    """A sentence no template can match leaves nothing for hassil to try, in a big home."""
    template_filter = local_filter
    model = homes["synthetic"]

    kept = template_filter.survivors(text, HomeSlotLists.build(model).for_text(text))

    assert kept == ()


def test_command_keeps_few_templates(
    matcher: LocalMatcher, local_filter: TemplateFilter, homes: dict[str, HomeModel]
) -> None:
    """A command leaves hassil a handful of templates, the one that matches among them."""
    template_filter = local_filter
    model = homes["test"]
    text = "turn on the kitchen lights"

    kept = template_filter.survivors(text, HomeSlotLists.build(model).for_text(text))

    assert 0 < len(kept) <= 10
    assert matcher.recognize(text, model) is not None


def test_needs_of_a_template() -> None:
    """A template needs its words, its lists, and what it can start and end with."""
    sentence = parse_sentence("(turn|switch) on [the] {name} [please]")

    clauses = Analysis({}).needs(sentence)

    assert frozenset({Word("on")}) in clauses
    assert frozenset({Word("turn"), Word("switch")}) in clauses
    assert frozenset({Slot("name")}) in clauses
    assert frozenset({Word("turn", Where.START), Word("switch", Where.START)}) in clauses
    assert frozenset({Word("please", Where.END), Slot("name", Where.END)}) in clauses


def test_an_alternative_is_known_by_its_branches_sharpest_words() -> None:
    """Each branch of ``<duration>`` needs a unit word and a number; the unit words are kept.

    A number is in almost any sentence and "a" inside most words, so a clause of those let
    Home Assistant 2025.4's "in <timer_duration> {command}" through for "the Garage 2 Lamp".
    """
    rules = {
        "duration": parse_sentence("({minutes} minute[s])|({half} a minute[s])|({hours} hour[s])"),
    }
    sentence = parse_sentence("in <duration> {command}")

    clauses = Analysis(rules, wildcards={"command"}).needs(sentence)

    assert frozenset({Word("minute"), Word("hour")}) in clauses


def test_wildcard_at_the_end_gives_no_start_clause() -> None:
    """A template ending in a wildcard is read with skip words removed only at its start.

    The filter does not make that text, so it does not test where such a template starts.
    """
    sentence = parse_sentence("play {search_query}")

    clauses = Analysis({}, wildcards={"search_query"}).needs(sentence)

    assert frozenset({Word("play")}) in clauses
    assert not any(atom.where == Where.START for clause in clauses for atom in clause)


def test_wildcard_given_per_call_turns_the_filter_off(
    all_english: Intents, english_filter: TemplateFilter
) -> None:
    """A wildcard list passed at recognition changes which text hassil reads: keep everything."""
    template_filter = english_filter
    lists = {"name": WildcardSlotList(name="name")}

    kept = template_filter.survivors("tell me a joke", lists)

    assert len(kept) == len(templates_in_order(all_english))


def test_empty_name_list_rules_out_name_templates(
    all_english: Intents, english_filter: TemplateFilter
) -> None:
    """With no name in the text, templates that need {name} are not tried."""
    template_filter = english_filter
    empty = TextSlotList(name="name", values=[])
    lists = {"name": empty, "area": empty, "floor": empty}

    kept = template_filter.survivors("turn on the thing", lists)

    templates = templates_in_order(all_english)
    texts = [templates[index].text or "" for index in kept]
    assert all("{name}" not in text for text in texts)
