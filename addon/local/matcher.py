"""Local first: Home Assistant's sentence matcher before the language model.

A command Home Assistant's own templates recognise ("turn on the kitchen lights", "what is the
temperature in the office") is answered in a few milliseconds without a model: the match
becomes an intent call and the language's response template says what was done. Anything else
(a question, chit-chat, a name the home does not have, a sentence carried by free text, a name
several devices share) returns None and goes to the model.

Recognition follows Home Assistant 2025.4's ``DefaultAgent._recognize_strict``: exposed
entities only, ``recognize_best`` preferring a match with an entity name (``best_slot_name``)
over one with only an area, and the satellite's area as ``intent_context`` so "turn on the
lights" means the lights where it was said. Home Assistant's later stages (unexposed names,
fuzzy matching with unmatched entities) only produce error messages, which the model gives
better, so they are left out.

Every turn passes through here first, so a sentence no template can match must cost little:
:mod:`addon.local.prefilter` hands hassil only the templates the text could match (none, for
most chatter), which leaves hassil's answer unchanged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from hassil.intents import SlotList, TextSlotList
from hassil.recognize import recognize_best

from addon.home.actions.intents import INTENTS
from addon.home.actions.response import ErrorCode, IntentResult
from addon.home.model import HomeModel
from addon.local.language import LanguageIntents, load_language, supported_variant
from addon.local.prefilter import TemplateFilter
from addon.local.response_templates import ResponseTemplates
from addon.local.slots import (
    HomeSlotLists,
    intent_slots,
    shared_name,
    speech_slots,
    wildcard_heavy,
)
from addon.local.values import ValueCache

_LOGGER = logging.getLogger(__name__)

METADATA_CUSTOM_SENTENCE = "hass_custom_sentence"
"""Home Assistant's metadata key that makes a custom sentence win over a built-in one."""

LEFT_TO_MODEL = frozenset({"HassGetState"})
"""Intents Home Assistant's pipeline leaves to an LLM agent even with "prefer local intents".

``assist_pipeline``'s ``_async_local_fallback_intent_filter`` (2025.x): a state question is
answered better by a model that sees the states ("No, on" is what the template says).
"""

LOCAL_INTENTS = frozenset(INTENTS) - LEFT_TO_MODEL
"""What the matcher answers by default: every intent we handle, less :data:`LEFT_TO_MODEL`."""

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
    slots: dict[str, Any]
    """Slot values as ``handle_intent`` takes them (``{"name": "Kitchen Lights"}``)."""
    response_key: str | None
    """Which of the intent's response templates the matched sentence asks for."""
    text: str
    ms: float
    """How long recognition took, slot list building included."""
    language: str = "en"
    """The intents language that matched (the variant loaded, e.g. "en" for "en-GB")."""
    speech_slots: dict[str, Any] = field(default_factory=dict)
    """Each slot's spoken text, for response templates ("50" rather than 50)."""
    templates: ResponseTemplates | None = field(default=None, repr=False, compare=False)


def answered_locally(result: IntentResult) -> bool:
    """Whether to speak ``result`` or hand the sentence to the model after all.

    Home Assistant's ``async_handle_intents`` (the local-first path of LLM agents) drops a
    result whose error is about matching (no such device, nothing in that area) so the model
    can try; a failure while acting (``failed_to_handle``, ``unknown``) is spoken as it is.
    """
    return not (result.is_error and result.error_code in _MODEL_ERRORS)


@dataclass(frozen=True, slots=True)
class _Language:
    """What one loaded language matches with: its templates, their filter, its responses."""

    intents: LanguageIntents
    filter: TemplateFilter | None
    templates: ResponseTemplates


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
        self, language: str, *, intents: Collection[str] | None = None, prefilter: bool = True
    ) -> None:
        """``intents`` limits matching to those intents (default: :data:`LOCAL_INTENTS`).

        ``prefilter=False`` hands hassil every template, as a reference for the filter's tests.
        """
        self._language = language
        self._prefilter = prefilter
        self._intent_names = frozenset(LOCAL_INTENTS if intents is None else intents)
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        # By the shipped code that serves a request's language: at most one entry per
        # language home-assistant-intents ships, None for one that failed to load.
        self._languages: dict[str, _Language | None] = {}
        self._model: HomeModel | None = None
        self._slot_lists: HomeSlotLists | None = None
        self._values = ValueCache()

    @property
    def language(self) -> str:
        """The configured language, matched when a request names none."""
        return self._language

    def loaded(self, language: str | None = None) -> bool:
        """Whether ``language`` (default: the configured) needs no loading before matching."""
        variant = supported_variant(language or self._language)
        return variant is None or variant in self._languages

    def prepare(self, language: str | None = None) -> bool:
        """Load and compile ``language``'s templates now; False when it has none.

        ``language`` defaults to the configured one.
        """
        language = language or self._language
        loaded = self._load(language)
        if loaded is None:
            _LOGGER.warning(
                "No Home Assistant sentences for language %r; its requests go to the model",
                language,
            )
            return False
        intents = loaded.intents
        # hassil parses each block's sentence templates on first use; parse them all now.
        for intent in intents.intents.intents.values():
            for data in intent.data:
                _ = data.sentences
        empty: dict[str, SlotList] = {
            name: TextSlotList(name=name, values=[]) for name in ("name", "area", "floor")
        }
        recognize_best("turn on", intents.intents, slot_lists=empty, language=intents.language)
        return True

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
        ships no sentences for is left to the model.
        """
        start = time.perf_counter()
        loaded = self._load(language or self._language)
        if loaded is None or not text.strip():
            return None
        intents = loaded.intents
        home_lists, values = self._slot_lists_for(model)
        slot_lists = home_lists.for_text(text)
        candidates = (
            intents.intents
            if loaded.filter is None
            else loaded.filter.reduce(text, slot_lists, values)
        )
        if candidates is None:
            _LOGGER.debug("No local match for %r (no template can match)", text)
            return None
        area = model.areas.get(preferred_area_id) if preferred_area_id is not None else None
        context = None if area is None else {"area": {"value": area.name, "text": area.name}}
        result = recognize_best(
            text,
            candidates,
            slot_lists=slot_lists,
            intent_context=context,
            language=intents.language,
            best_metadata_key=METADATA_CUSTOM_SENTENCE,
            best_slot_name="name",
        )
        if result is None:
            _LOGGER.debug("No local match for %r", text)
            return None
        name = result.intent.name
        spec = INTENTS.get(name)
        if spec is None or name not in self._intent_names:
            return None
        if wildcard_heavy(result, text):
            _LOGGER.debug(
                "Local match %s for %r is mostly free text; left to the model", name, text
            )
            return None
        slots = intent_slots(result, spec, preferred_area_id=preferred_area_id)
        if slots is None:
            _LOGGER.debug("Local match %s for %r has a slot we do not take", name, text)
            return None
        if shared_name(model, slots):
            _LOGGER.debug("Local match %s for %r names several devices", name, text)
            return None
        return LocalMatch(
            intent=name,
            slots=slots,
            response_key=result.response,
            text=text,
            ms=(time.perf_counter() - start) * 1000.0,
            language=intents.language,
            speech_slots=speech_slots(result),
            templates=loaded.templates,
        )

    def _load(self, language: str) -> _Language | None:
        """``language``'s templates, loading them on its first use; None if none ship."""
        variant = supported_variant(language)
        if variant is None:
            _LOGGER.debug("No sentences for language %r; left to the model", language)
            return None
        if variant in self._languages:
            return self._languages[variant]
        # A lock of its own: loading a new language takes a while, and recognising in the
        # languages already loaded must not wait for it.
        with self._load_lock:
            if variant not in self._languages:
                intents = load_language(variant, self._intent_names)
                if intents is None:
                    self._languages[variant] = None
                else:
                    _LOGGER.info("Loaded Home Assistant's sentences for language %r", variant)
                    self._languages[variant] = _Language(
                        intents,
                        TemplateFilter(intents.intents) if self._prefilter else None,
                        ResponseTemplates(intents.responses),
                    )
        return self._languages[variant]

    def _slot_lists_for(self, model: HomeModel) -> tuple[HomeSlotLists, ValueCache]:
        """The slot lists of ``model``, rebuilt only when a different model object arrives.

        With them, what the template filter has learnt about their values, which goes with them.
        """
        with self._lock:
            if self._model is not model or self._slot_lists is None:
                self._slot_lists = HomeSlotLists.build(model)
                self._values = ValueCache()
                self._model = model
                _LOGGER.debug("Built slot lists: %d names", self._slot_lists.name_count)
            return self._slot_lists, self._values
