"""Local first: Home Assistant's sentence matcher before the language model.

A command Home Assistant's own templates recognise ("turn on the kitchen lights", "what is the
temperature in the office") is answered in a few milliseconds without a model: the match
becomes an intent call and the language's response template says what was done. Anything else
(a question, chit-chat, a name the home does not have, a sentence carried by free text, a name
several devices share) returns None and goes to the model.

Recognition follows Home Assistant 2025.4's ``DefaultAgent._recognize_strict``: exposed
entities only, ``recognize_best`` preferring a match with an entity name (``best_slot_name``)
over one with only an area, and the satellite's area as ``intent_context`` so "turn on the
lights" means the lights where it was said. Home Assistant's later stages only produce error
messages, which a model gives better: the second (unexposed names) is here for a home without
one (:meth:`LocalMatcher.unexposed`, "Sorry, Front Door is not exposed"); the third (names the
home lacks, :meth:`LocalMatcher.unknown_names`) only says what the connected release's agent
says when a failure came from sentences that release does not have.

A sentence is tried in stages (:class:`Stage`), each only when the ones before found nothing
the home could act on (:meth:`LocalMatcher.candidates`): Home Assistant 2025.4.4's own
sentences (``home-assistant-intents`` 2025.3.28, installed by the build: their area, device
class and whole-home forms were dropped later), so that whatever its agent does we do alike;
then the pinned, newer sentences for the forms 2025.4 lacks; then our own
(:data:`Stage.CUSTOM`), for common forms neither has; then, when allowed, all again after
correcting typos (:mod:`addon.local.tolerant`).

Every turn passes through here first, so a sentence no template can match must cost little:
:mod:`addon.local.prefilter` hands hassil only the templates the text could match (none, for
most chatter), which leaves hassil's answer unchanged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace

from hassil.models import UnmatchedRangeEntity, UnmatchedTextEntity
from hassil.recognize import MISSING_ENTITY, RecognizeResult, recognize_all

from addon.home.actions.intents import HANDED_TO_HOME_ASSISTANT, INTENTS
from addon.home.actions.response import ErrorCode, IntentResult
from addon.home.model.live import HomeModel
from addon.local.answer_format import without_answer_format
from addon.local.best import best_reading
from addon.local.fillers import first_alternative, without_now, without_request
from addon.local.forms import TextMemo
from addon.local.library import (
    Language,
    SentenceLibrary,
    Sentences,
    Stage,
    release_order,
    release_stage,
)
from addon.local.response_templates import ResponseTemplates
from addon.local.slots import (
    HomeSlotLists,
    intent_slots,
    shared_name,
    single_target,
    speech_slots,
    wildcard_heavy,
)
from addon.local.tolerant import NAME_MIN_LENGTH, Vocabulary, correct
from addon.local.values import ValueCache
from addon.text import JsonObject

_LOGGER = logging.getLogger(__name__)

METADATA_CUSTOM_SENTENCE = "hass_custom_sentence"
"""Home Assistant's metadata key that makes a custom sentence win over a built-in one."""

METADATA_SINGLE_TARGET = "single_target"
"""Our sentences' metadata for a form that names one device without its name ("turn off the
tv", "pause"): it matches only when exactly one exposed entity fits (:func:`single_target`)."""

METADATA_SUBJECT = "subject"
"""Our sentences' metadata for a question whose only spoken slot is free text (``{subject}``):
its intent accepts the words only when they name exactly one exposed entity, so the match is
not left to the model as mostly free text."""

QUESTIONS = frozenset(
    {
        "HassGetState",
        "HassClimateGetTemperature",
        "HassGetWeather",
        "HassGetCurrentTime",
        "HassGetCurrentDate",
        "HomeAgentSensorValue",
        "HomeAgentStateCheck",
        "HomeAgentWeatherCondition",
        "HomeAgentOutsideTemperature",
        "HomeAgentListItems",
        "HomeAgentCalendarEvents",
    }
)
"""Intents that only answer: with a model, the ``local_questions`` option decides who answers.

Home Assistant's pipeline leaves ``HassGetState`` to an LLM agent even with "prefer local
intents" (``_async_local_fallback_intent_filter``); we answer it locally by default, with Home
Assistant's response templates, because an exact match reads the same states the model would.
Our own question intents (``HomeAgent…``, :mod:`addon.home.actions.questions`) are questions too.
"""

_MODEL_ERRORS = frozenset(
    {
        ErrorCode.NO_INTENT_MATCH,
        ErrorCode.NO_VALID_TARGETS,
        ErrorCode.INVALID_SLOTS,
        ErrorCode.UNKNOWN_INTENT,
    }
)


@dataclass(frozen=True, slots=True)
class LocalMatch:
    """A sentence Home Assistant's templates recognised, ready for ``handle_intent``."""

    intent: str
    slots: JsonObject
    """Slot values as ``handle_intent`` takes them (``{"name": "Kitchen Lights"}``): the
    arguments of the intent's tool call, as a model would send them."""
    response_key: str | None
    """Which of the intent's response templates the matched sentence asks for."""
    text: str
    ms: float
    """How long recognition took, slot list building included."""
    language: str = "en"
    """The intents language that matched (the variant loaded, e.g. "en" for "en-GB")."""
    speech_slots: dict[str, object] = field(default_factory=dict)
    """Each slot's spoken text, for response templates ("50" rather than 50)."""
    templates: ResponseTemplates | None = field(default=None, repr=False, compare=False)
    stage: Stage = Stage.HOME_ASSISTANT
    matched_text: str = ""
    """The text the sentences matched: ``text`` with its typos corrected, for the tolerant stage."""

    @property
    def exact(self) -> bool:
        """Whether the sentence matched as it was said (no typo corrected)."""
        return self.stage is not Stage.TOLERANT


@dataclass(frozen=True, slots=True)
class UnknownNames:
    """A sentence that one set's templates match only with words the home has no name for.

    Home Assistant's third stage (``_recognize_unknown_names``): not something to act on, only
    what its agent says when its own sentences match nothing else ("Sorry, I am not aware of
    any device called all the doors").
    """

    intent: str
    unmatched: dict[str, str]
    """Slot → the words said where a name, area or floor was expected and none fits."""
    matched: dict[str, str]
    """Slot → the spoken text of each slot that did match (an area, a floor)."""
    language: str
    templates: ResponseTemplates = field(repr=False, compare=False)


def answered_locally(result: IntentResult) -> bool:
    """Whether to speak ``result`` or hand the sentence to the model after all.

    Home Assistant's ``async_handle_intents`` (the local-first path of LLM agents) drops a
    result whose error is about matching (no such device, nothing in that area) so the model
    can try; a failure while acting (``failed_to_handle``, ``unknown``) is spoken as it is.
    """
    return not (result.is_error and result.error_code in _MODEL_ERRORS)


def answered_nothing(result: IntentResult) -> bool:
    """Whether ``result`` answers a question about nothing: no entity matched at all.

    Home Assistant's HassGetState answers "0" or "No" when the words named no entity of the
    home (2025.4's German "wie viele Lichter sind an" asks for binary sensors of class light):
    another stage's reading of the same words may name what was meant, so it is tried first.
    """
    return (
        result.intent == "HassGetState"
        and not result.is_error
        and not result.matched_states
        and not result.unmatched_states
    )


@dataclass(frozen=True, slots=True)
class _Reading:
    """One text being read through every set: what each stage's pass shares."""

    text: str
    model: HomeModel
    sets: Sequence[Sentences]
    own: Sentences | None
    preferred_area_id: str | None
    ambiguous: bool
    seen: set[str]
    """The keys of the matches given so far: a later pass never gives one again."""
    memo: TextMemo


class LocalMatcher:
    """Recognises sentences against a home's names, in the configured language or another.

    A request may come in any language (Home Assistant passes the pipeline's); each language's
    templates are loaded and parsed on its first use and kept, with the template filter read
    from them. Codes with a region read as the language shipped for them ("de-DE" as "de",
    "de-CH" as itself); a language with no templates is not matched locally at all. The first
    recognition in a language costs about 100 ms, which :meth:`prepare` pays up front (number
    ranges such as brightness still compile on first use, about 10 ms each). Slot lists do not
    depend on the language and are built once per :class:`HomeModel` object: the home's sync
    swaps in a new model when a registry changes, while state changes happen in place and leave
    names alone. Recognition is synchronous and CPU-bound (about 0.1-0.3 ms for a sentence no
    template matches, about 1 ms for a command); it may run in a worker thread, so loading is
    guarded by a lock.
    """

    def __init__(
        self,
        language: str,
        *,
        intents: Collection[str] | None = None,
        prefilter: bool = True,
        library: SentenceLibrary | None = None,
    ) -> None:
        """``intents`` limits matching to those intents (default: :data:`LOCAL_INTENTS`).

        ``prefilter=False`` hands hassil every template, as a reference for the filter's tests.
        ``library`` shares parsed sentences with other matchers (the app's agent and its
        evaluation runs); it must have been made with the same ``intents`` and ``prefilter``.
        """
        if library is None:
            library = SentenceLibrary(intents=intents, prefilter=prefilter)
        elif intents is not None or not prefilter:
            raise ValueError("intents and prefilter belong to the shared library")
        self._language = language
        self._library = library
        self._intent_names = library.intent_names
        self._lock = threading.Lock()
        self._model: HomeModel | None = None
        self._revision = 0
        self._slot_lists: HomeSlotLists | None = None
        self._values = ValueCache()
        self._vocabulary: Vocabulary | None = None
        self._unexposed: tuple[HomeSlotLists, ValueCache] | None = None
        """The names of the entities not exposed, for :meth:`unexposed`, with their analysis."""

    @property
    def language(self) -> str:
        """The configured language, matched when a request names none."""
        return self._language

    def loaded(self, language: str | None = None) -> bool:
        """Whether ``language`` (default: the configured) needs no loading before matching."""
        return self._library.loaded(language or self._language)

    def error_templates(
        self, language: str | None = None, version: str | None = None
    ) -> ResponseTemplates | None:
        """The error sentences Home Assistant ``version``'s agent says in ``language``.

        Those of the sentence set the connected release matches with (the first set when the
        release is not known); None when the language has no sentences.
        """
        loaded = self._library.load(language or self._language)
        if loaded is None or not loaded.sets:
            return None
        own = release_stage(version)
        chosen = next((s for s in loaded.sets if s.stage is own), loaded.sets[0])
        return chosen.templates

    def prepare(self, language: str | None = None) -> bool:
        """Load and compile ``language``'s templates now; False when it has none.

        ``language`` defaults to the configured one.
        """
        return self._library.prepare(language or self._language)

    def recognize(
        self,
        text: str,
        model: HomeModel,
        *,
        preferred_area_id: str | None = None,
        language: str | None = None,
    ) -> LocalMatch | None:
        """The intent call for ``text`` if Home Assistant's templates handle it, else None.

        ``preferred_area_id`` is the area of the satellite that heard it: it fills an omitted
        area ("turn on the lights") and is passed on to break ties between same-named devices.
        ``language`` is the request's (default: the configured one); a language Home Assistant
        ships no sentences for is left to the model. The first exact match of
        :meth:`candidates`.
        """
        return next(
            self.candidates(text, model, preferred_area_id=preferred_area_id, language=language),
            None,
        )

    def candidates(
        self,
        text: str,
        model: HomeModel,
        *,
        preferred_area_id: str | None = None,
        language: str | None = None,
        tolerant: bool = False,
        ambiguous: bool = False,
    ) -> Iterator[LocalMatch]:
        """Each stage's match for ``text``, in order, worked out only when asked for.

        The order is the library's, with the home's release's own sentences first
        (:func:`~addon.local.library.release_order`).

        The caller acts on the first and asks for the next only when the home had nothing
        for it (a matching failure): a later stage never overrides an earlier one that
        acted. A stage that matches what an earlier one did is skipped. ``tolerant`` adds
        the matches of the text with its typos corrected, when there are any. ``ambiguous``
        keeps a match whose name several devices share (without a model, so that the
        handler's failure says so, as Home Assistant does), which otherwise goes to the model.
        """
        start = time.perf_counter()
        loaded = self._load(language or self._language)
        if loaded is None or not text.strip():
            return
        text = without_answer_format(text, language or self._language)
        text = without_now(text, language or self._language)
        # The connected release's own sentences first (library.release_order).
        sets = release_order(loaded.sets, model.ha_version)
        own = sets[0] if release_stage(model.ha_version) is Stage.HOME_ASSISTANT else None
        seen: set[str] = set()
        memo = TextMemo()
        reading = _Reading(text, model, sets, own, preferred_area_id, ambiguous, seen, memo)
        yield from self._each_stage(reading, text, start)
        plain = without_request(text, language or self._language)
        if not seen and plain != text:
            # "tell me if the lights are on": tried again as the question it stands for.
            yield from self._each_stage(reading, plain, start, memo=False)
        first = first_alternative(plain, language or self._language)
        if not seen and first != plain:
            # "is it playing, paused or stopped": asked of the first state, whose answer says
            # the state it is in; only ever a question, never a command cut short.
            yield from self._each_stage(reading, first, start, memo=False, questions_only=True)
        if not tolerant:
            return
        corrected = correct(text, (self._home_vocabulary(model), loaded.words()))
        if corrected is None:
            return
        _LOGGER.debug("Trying %r as %r", text, corrected)
        yield from self._each_stage(reading, corrected, time.perf_counter(), stage=Stage.TOLERANT)

    def _each_stage(
        self,
        reading: _Reading,
        form: str,
        start: float,
        *,
        memo: bool = True,
        questions_only: bool = False,
        stage: Stage | None = None,
    ) -> Iterator[LocalMatch]:
        """Each set's match for ``form`` of the text, in order, not one read before.

        A reading the home's own release disowns (:meth:`_disowned`) is passed over; with
        ``questions_only`` only questions count; ``stage`` marks where the matches came from
        when it is not their set's (typos corrected). ``memo=False`` matches without the text's
        memo (a form cut from the text is matched as itself).
        """
        for sentences in reading.sets:
            match = self._recognize(
                reading.text,
                form,
                reading.model,
                sentences,
                reading.preferred_area_id,
                start,
                reading.ambiguous,
                memo=reading.memo if memo else None,
            )
            if match is None or (questions_only and match.intent not in QUESTIONS):
                continue
            if self._disowned(
                match, reading.own, reading.model, reading.preferred_area_id, reading.memo
            ):
                continue
            if _key(match) not in reading.seen:
                reading.seen.add(_key(match))
                yield match if stage is None else replace(match, stage=stage)

    def _disowned(
        self,
        match: LocalMatch,
        own: Sentences | None,
        model: HomeModel,
        preferred_area_id: str | None,
        memo: TextMemo,
    ) -> bool:
        """Whether the home's own (older) sentences give a reading by kind another kind.

        Home Assistant 2025.4's sentences have forms only its test script reaches, behind a
        ``requires_context`` domain its agent never passes ("mach im Flur die Türen auf":
        unlock the hallway's locks). The newer sentences read the same words as another kind
        of device (open the hallway's door covers). On a home that runs 2025.4 (``own`` is its
        set) a later stage's reading is dropped when the older set, told a domain the reading
        does not name, reads the text: the two releases disagree on what is meant, so the
        sentence goes to the model rather than act on what the person may not have meant.
        """
        if own is None or match.stage in (own.stage, Stage.CUSTOM) or "name" in match.slots:
            # A reading by name acts on the named device, whatever kind other words name.
            return False
        home_lists, values = self._slot_lists_for(model)
        key = (id(home_lists), match.matched_text)
        slot_lists = memo.slot_lists.get(key)
        if slot_lists is None:
            slot_lists = home_lists.for_text(match.matched_text)
        candidates = (
            own.intents.intents
            if own.filter is None
            else own.filter.reduce(match.matched_text, slot_lists, values, memo)
        )
        if candidates is None:
            return False
        said = _domains(match.slots.get("domain"))
        required = {
            str(data.requires_context["domain"])
            for intent in candidates.intents.values()
            for data in intent.data
            if isinstance(data.requires_context.get("domain"), str)
        }
        area = model.areas.get(preferred_area_id) if preferred_area_id is not None else None
        for domain in sorted(required - said):
            context: dict[str, object] = {"domain": domain}
            if area is not None:
                context["area"] = {"value": area.name, "text": area.name}
            for result in recognize_all(
                match.matched_text,
                candidates,
                slot_lists=slot_lists,
                intent_context=context,
                language=own.intents.language,
            ):
                if result.intent.name in self._intent_names:
                    _LOGGER.debug(
                        "%s match %s for %r is a %s %s in the home's release; left to the model",
                        match.stage,
                        match.intent,
                        match.matched_text,
                        domain,
                        result.intent.name,
                    )
                    return True
        return False

    def _recognize(
        self,
        said: str,
        text: str,
        model: HomeModel,
        sentences: Sentences,
        preferred_area_id: str | None,
        start: float,
        ambiguous: bool = False,
        lists: tuple[HomeSlotLists, ValueCache] | None = None,
        memo: TextMemo | None = None,
    ) -> LocalMatch | None:
        """``text`` matched against one set of sentences (``said``: what was said).

        ``lists`` replaces the home's slot lists (the unexposed names, :meth:`unexposed`);
        ``memo`` keeps what the text needs for the other sets.
        """
        intents = sentences.intents
        home_lists, values = self._slot_lists_for(model) if lists is None else lists
        key = (id(home_lists), text)
        slot_lists = memo.slot_lists.get(key) if memo is not None else None
        if slot_lists is None:
            slot_lists = home_lists.for_text(text)
            if memo is not None:
                memo.slot_lists[key] = slot_lists
        candidates = (
            intents.intents
            if sentences.filter is None
            else sentences.filter.reduce(text, slot_lists, values, memo)
        )
        if candidates is None:
            _LOGGER.debug("No %s match for %r (no template can match)", sentences.stage, text)
            return None
        area = model.areas.get(preferred_area_id) if preferred_area_id is not None else None
        context = None if area is None else {"area": {"value": area.name, "text": area.name}}
        result = best_reading(
            recognize_all(
                text,
                candidates,
                slot_lists=slot_lists,
                intent_context=context,
                language=intents.language,
            ),
            best_metadata_key=METADATA_CUSTOM_SENTENCE,
            best_slot_name="name",
            present=lambda domains, classes: _present(model, domains, classes),
        )
        if result is None:
            _LOGGER.debug("No %s match for %r", sentences.stage, text)
            return None
        name = result.intent.name
        if name in HANDED_TO_HOME_ASSISTANT and name in self._intent_names:
            # Home Assistant's agent reads the sentence again: its free text (a broadcast's
            # message, a timer's command) is its to judge, and the slots only show in the trace.
            slots = handed_slots(result)
        else:
            own = self._own_slots(result, text, model, preferred_area_id, ambiguous)
            if own is None:
                return None
            slots = own
        return LocalMatch(
            intent=name,
            slots=slots,
            response_key=result.response,
            text=said,
            ms=(time.perf_counter() - start) * 1000.0,
            language=intents.language,
            speech_slots=speech_slots(result),
            templates=sentences.templates,
            stage=sentences.stage,
            matched_text=text,
        )

    def _own_slots(
        self,
        result: RecognizeResult,
        text: str,
        model: HomeModel,
        preferred_area_id: str | None,
        ambiguous: bool,
    ) -> JsonObject | None:
        """The slots of a reading we carry out ourselves; None when it is not ours to act on."""
        name = result.intent.name
        spec = INTENTS.get(name)
        if spec is None or name not in self._intent_names:
            return None
        if spec.since is not None and model.release < spec.since:
            _LOGGER.debug("Local match %s for %r is newer than the home's release", name, text)
            return None
        metadata = result.intent_metadata or {}
        if wildcard_heavy(result, text, model) and not metadata.get(METADATA_SUBJECT):
            _LOGGER.debug(
                "Local match %s for %r is mostly free text; left to the model", name, text
            )
            return None
        slots = intent_slots(result, spec, preferred_area_id=preferred_area_id)
        if slots is None:
            _LOGGER.debug("Local match %s for %r has a slot we do not take", name, text)
            return None
        if not ambiguous and shared_name(model, slots, name):
            _LOGGER.debug("Local match %s for %r names several devices", name, text)
            return None
        if metadata.get(METADATA_SINGLE_TARGET) and not single_target(model, name, slots):
            _LOGGER.debug("Local match %s for %r does not fit exactly one device", name, text)
            return None
        return slots

    def unexposed(
        self,
        text: str,
        model: HomeModel,
        *,
        preferred_area_id: str | None = None,
        language: str | None = None,
        stage: Stage | None = None,
    ) -> LocalMatch | None:
        """``text`` matched with the names of entities *not* exposed to Assist, or None.

        ``stage`` limits it to that set of sentences (a release's own, as its agent tries).

        Home Assistant's second stage, asked only when nothing matched with the exposed names
        and no model will answer: the handler, which only acts on exposed entities, then
        fails, and the listener hears "Sorry, Front Door is not exposed" rather than that the
        sentence was not understood. The names are read once per home model, on first use.
        """
        start = time.perf_counter()
        loaded = self._load(language or self._language)
        if loaded is None or not text.strip():
            return None
        self._slot_lists_for(model)  # forgets an earlier model's unexposed names
        with self._lock:
            if self._unexposed is None:
                self._unexposed = (HomeSlotLists.build(model, exposed=False), ValueCache())
            lists = self._unexposed
        memo = TextMemo()
        for sentences in _only(loaded.sets, stage):
            match = self._recognize(
                text, text, model, sentences, preferred_area_id, start, True, lists, memo
            )
            if match is not None and "name" in match.slots:
                return match
        return None

    def unknown_names(
        self,
        text: str,
        model: HomeModel,
        stage: Stage,
        *,
        preferred_area_id: str | None = None,
        language: str | None = None,
    ) -> UnknownNames | None:
        """``text`` matched by ``stage``'s sentences with names the home lacks, or None.

        Home Assistant 2026.11's ``_recognize_unknown_names``: of hassil's matches that leave
        slots unmatched, the one with the most literal text, then the most matched slots, the
        fewest unmatched, unmatched numbers before names, and one with a name. Its templates
        are only ours of Home Assistant's intents, so a sentence of another intent is not
        found here.
        """
        loaded = self._load(language or self._language)
        sentences = next((s for s in loaded.sets if s.stage is stage), None) if loaded else None
        if sentences is None or not text.strip():
            return None
        text = without_answer_format(text, language or self._language)
        home_lists, _values = self._slot_lists_for(model)
        area = model.areas.get(preferred_area_id) if preferred_area_id is not None else None
        best: tuple[tuple[int, int, int, int, bool], RecognizeResult] | None = None
        for result in recognize_all(
            text,
            sentences.intents.intents,
            slot_lists=home_lists.for_text(text),
            intent_context=None
            if area is None
            else {"area": {"value": area.name, "text": area.name}},
            language=sentences.intents.language,
            allow_unmatched_entities=True,
        ):
            if result.text_chunks_matched < 1:
                continue  # nothing of the sentence's own words matched
            rank = _unknown_rank(result)
            if best is None or _better(rank, best[0]):
                best = (rank, result)
        if best is None:
            return None
        result = best[1]
        unmatched = {
            slot: entity.text.strip()
            for slot, entity in result.unmatched_entities.items()
            if isinstance(entity, UnmatchedTextEntity) and entity.text != MISSING_ENTITY
        }
        matched = {
            slot: str(entity.text or entity.value).strip()
            for slot, entity in result.entities.items()
            if slot not in result.unmatched_entities
        }
        return UnknownNames(
            result.intent.name, unmatched, matched, sentences.intents.language, sentences.templates
        )

    def _load(self, language: str) -> Language | None:
        """``language``'s sentences from the library; None if none ship."""
        return self._library.load(language)

    def _home_vocabulary(self, model: HomeModel) -> Vocabulary:
        """The words of ``model``'s names, areas and floors, built on first use per model."""
        self._slot_lists_for(model)
        with self._lock:
            if self._vocabulary is None:
                names = [
                    text
                    for entity in model.exposed_entities()
                    for text in (entity.name, *entity.aliases)
                ]
                for area in model.areas.values():
                    names.extend((area.name, *area.aliases))
                for floor in model.floors.values():
                    names.extend((floor.name, *floor.aliases))
                self._vocabulary = Vocabulary.build((), names, min_length=NAME_MIN_LENGTH)
            return self._vocabulary

    def _slot_lists_for(self, model: HomeModel) -> tuple[HomeSlotLists, ValueCache]:
        """The slot lists of ``model``, rebuilt when another model (or revision of it) arrives.

        With them, what the template filter has learnt about their values, which goes with them.
        """
        with self._lock:
            if (
                self._model is not model
                or self._revision != model.revision
                or self._slot_lists is None
            ):
                self._slot_lists = HomeSlotLists.build(model)
                self._values = ValueCache()
                self._vocabulary = None
                self._unexposed = None
                self._model, self._revision = model, model.revision
                _LOGGER.debug("Built slot lists: %d names", self._slot_lists.name_count)
            return self._slot_lists, self._values


def _only(sets: tuple[Sentences, ...], stage: Stage | None) -> tuple[Sentences, ...]:
    """``sets``, or only the one of ``stage`` when one is given."""
    return sets if stage is None else tuple(s for s in sets if s.stage is stage)


def _unknown_rank(result: RecognizeResult) -> tuple[int, int, int, int, bool]:
    """Literal text matched, slots matched, slots unmatched, numbers unmatched, a name in it."""
    matched = sum(1 for e in result.entities_list if e.name not in result.unmatched_entities)
    unmatched = ranges = 0
    for entity in result.unmatched_entities_list:
        if isinstance(entity, UnmatchedRangeEntity):
            ranges += 1
            unmatched += 1
        elif not isinstance(entity, UnmatchedTextEntity) or entity.text != MISSING_ENTITY:
            unmatched += 1
    named = "name" in result.entities or "name" in result.unmatched_entities
    return result.text_chunks_matched, matched, unmatched, ranges, named


def _better(rank: tuple[int, int, int, int, bool], best: tuple[int, int, int, int, bool]) -> bool:
    """Whether a match ranked ``rank`` replaces the ``best`` so far, as Home Assistant decides."""
    text, matched, unmatched, ranges, named = rank
    best_text, best_matched, best_unmatched, best_ranges, _named = best
    if text != best_text:
        return text > best_text
    return (
        matched > best_matched
        or (matched == best_matched and unmatched < best_unmatched)
        or (matched == best_matched and unmatched == best_unmatched and ranges > best_ranges)
        or (unmatched == best_unmatched and ranges == best_ranges and named)
    )


def _key(match: LocalMatch) -> str:
    """What makes two matches the same call: intent and slots."""
    return f"{match.intent}:{sorted(match.slots.items())!r}"


def handed_slots(result: RecognizeResult) -> JsonObject:
    """A handed-over sentence's slots as hassil read them, for the trace.

    Whole numbers as ints ("5 minutes" is 5), text as said: Home Assistant reads the sentence
    again, so these only show what was heard.
    """
    slots: JsonObject = {}
    for entity in result.entities_list:
        value = entity.value
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        elif not isinstance(value, (int, float, str)):
            value = str(entity.text or value)
        slots[entity.name] = value
    return slots


def _domains(value: object) -> frozenset[str]:
    """A ``domain`` slot's value or values (empty when none)."""
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(str(item) for item in value)
    return frozenset()


def _present(model: HomeModel, domains: frozenset[str], classes: frozenset[str]) -> bool:
    """Whether an exposed entity of one of ``domains`` (and ``classes``, if any) exists."""
    index = model.index
    for domain in domains:
        for entity_id in index.by_domain.get(domain, ()):
            if classes and not any(
                entity_id in index.by_device_class.get(kind, ()) for kind in classes
            ):
                continue
            if model.is_exposed(entity_id):
                return True
    return False
