"""The parsed sentence sets of every language in use, loaded once and shared.

Parsing a language's templates and building their filters is the expensive, immutable part of
local matching (about 0.2 s and several megabytes a language). The agent's matcher and an
evaluation run's matcher use the same sentences with different homes, so the app holds one
:class:`SentenceLibrary` and hands it to every :class:`~addon.local.matcher.LocalMatcher`;
what depends on a home (slot lists, typo vocabulary) stays with each matcher.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from hassil.intents import SlotList, TextSlotList
from hassil.recognize import recognize_best

from addon.home.actions.intents import HANDED_TO_HOME_ASSISTANT, INTENTS
from addon.home.model.release import RELEASE_2026_11, Release
from addon.local.language import (
    LanguageIntents,
    load_custom,
    load_language,
    load_legacy,
    supported_variant,
)
from addon.local.prefilter import TemplateFilter
from addon.local.response_templates import ResponseTemplates
from addon.local.tolerant import Vocabulary, template_words

_VARIANTS_KEPT = 64
"""Language spellings whose shipped code is remembered (a home uses one or two)."""
_LOGGER = logging.getLogger(__name__)

LOCAL_INTENTS = frozenset(INTENTS) | HANDED_TO_HOME_ASSISTANT
"""What the matcher answers by default: every intent we handle, and those we hand over."""


class Stage(StrEnum):
    """Which sentences matched, in the order they are tried."""

    HOME_ASSISTANT = "home_assistant"
    """Home Assistant 2025.4.4's own sentences (``home-assistant-intents`` 2025.3.28)."""
    NEWER = "newer"
    """The pinned, newer ``home-assistant-intents``: forms 2025.4 lacks."""
    CUSTOM = "custom"
    """Our own sentences (``addon/local/custom``): common forms neither set has."""
    TOLERANT = "tolerant"
    """Either of those after correcting a typo: not an exact match."""


NEWER_RELEASE = RELEASE_2026_11
"""The first Home Assistant release known to match with the pinned ``home-assistant-intents``
(2026.11.0: hassil 3.12.1, intents 2026.10.27). The suite runs that release and 2025.4.4."""
_RELEASE = re.compile(r"\d+\.\d+")


@lru_cache(maxsize=16)
def release_stage(version: str | None) -> Stage | None:
    """The stage holding the sentences Home Assistant ``version``'s own agent matches with.

    Kept per version (a home runs one; asked a few times a turn, the parse is not free).

    :data:`Stage.NEWER` from :data:`NEWER_RELEASE` on, else :data:`Stage.HOME_ASSISTANT`
    (releases between the two, whose sentences we do not ship, are read as the older, which
    is what the local path did before it knew the release). None when no release is known
    (an evaluation suite's home, a test's) or its version does not read as one.
    """
    if version is None or not _RELEASE.match(version):
        return None
    return Stage.NEWER if Release.parse(version) >= NEWER_RELEASE else Stage.HOME_ASSISTANT


def release_order(sets: tuple[Sentences, ...], version: str | None) -> tuple[Sentences, ...]:
    """``sets`` with the one Home Assistant ``version``'s own agent matches with first.

    A sentence both sets read is read as the connected release reads it: Home Assistant
    2026.11 says "turn on the fans in the kitchen" without the 2025.4 sentences' ``name: all``,
    and its context-area forms fill the satellite's area where 2025.4's do not. The other
    sets follow in their usual order; with no release known the order is unchanged.
    """
    own = release_stage(version)
    if own is None:
        return sets
    return tuple(s for s in sets if s.stage is own) + tuple(s for s in sets if s.stage is not own)


@dataclass(frozen=True, slots=True)
class Sentences:
    """One set of sentences: its templates, their filter, its responses."""

    stage: Stage
    intents: LanguageIntents
    filter: TemplateFilter | None
    templates: ResponseTemplates


@dataclass(slots=True)
class Language:
    """What one loaded language matches with: its sets of sentences, tried in order."""

    sets: tuple[Sentences, ...]
    vocabulary: Vocabulary | None = None
    """Every word its sentences can say, for correcting typos; read on first use (about a
    second: only a home without a model corrects typos)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def words(self) -> Vocabulary:
        """:attr:`vocabulary`, read from the sentences the first time."""
        with self.lock:
            if self.vocabulary is None:
                words: set[str] = set()
                for sentences in self.sets:
                    words.update(template_words(sentences.intents.intents))
                self.vocabulary = Vocabulary.build(words)
            return self.vocabulary


class SentenceLibrary:
    """Each language's sentence sets, loaded on first use and kept for every matcher sharing it.

    ``intents`` limits the sets to those intents (default: :data:`LOCAL_INTENTS`);
    ``prefilter=False`` leaves out the template filter, as a reference for the filter's tests.
    Loading may happen in a worker thread (:meth:`prepare` runs there at start), so it is
    guarded by a lock; recognition in a language already loaded never waits for it.
    """

    def __init__(self, *, intents: Collection[str] | None = None, prefilter: bool = True) -> None:
        self.intent_names = frozenset(LOCAL_INTENTS if intents is None else intents)
        self.prefilter = prefilter
        self._load_lock = threading.Lock()
        # By the shipped code that serves a request's language: at most one entry per
        # language home-assistant-intents ships, None for one that failed to load.
        self._languages: dict[str, Language | None] = {}
        # The shipped code serving each language asked for (a request's own spelling), so the
        # list of shipped languages is not read again for every sentence.
        self._variants: dict[str, str | None] = {}

    def loaded(self, language: str) -> bool:
        """Whether ``language`` needs no loading before matching."""
        variant = self._variant(language)
        return variant is None or variant in self._languages

    def load(self, language: str) -> Language | None:
        """``language``'s sentence sets, loading them on its first use; None if none ship."""
        variant = self._variant(language)
        if variant is None:
            _LOGGER.debug("No sentences for language %r; left to the model", language)
            return None
        if variant in self._languages:
            return self._languages[variant]
        # A lock of its own: loading a new language takes a while, and recognising in the
        # languages already loaded must not wait for it.
        with self._load_lock:
            if variant not in self._languages:
                self._languages[variant] = self._read(variant)
        return self._languages[variant]

    def _variant(self, language: str) -> str | None:
        """:func:`supported_variant`, remembered for the last few dozen spellings asked for."""
        try:
            return self._variants[language]
        except KeyError:
            pass
        variant = supported_variant(language)
        if len(self._variants) >= _VARIANTS_KEPT:
            self._variants.clear()  # requests may spell languages in any number of ways
        self._variants[language] = variant
        return variant

    def prepare(self, language: str) -> bool:
        """Load and compile ``language``'s templates now; False when it has none."""
        loaded = self.load(language)
        if loaded is None:
            _LOGGER.warning(
                "No Home Assistant sentences for language %r; its requests go to the model",
                language,
            )
            return False
        # hassil parses each block's sentence templates on first use; parse them all now.
        empty: dict[str, SlotList] = {
            name: TextSlotList(name=name, values=[]) for name in ("name", "area", "floor")
        }
        for sentences in loaded.sets:
            intents = sentences.intents
            for intent in intents.intents.intents.values():
                for data in intent.data:
                    _ = data.sentences
            recognize_best("turn on", intents.intents, slot_lists=empty, language=intents.language)
        return True

    def _read(self, variant: str) -> Language | None:
        """Load the sets of ``variant``'s sentences; None without the pinned package's."""
        newer = load_language(variant, self.intent_names)
        if newer is None:
            return None
        loaded = [(Stage.NEWER, newer)]
        legacy = load_legacy(variant, self.intent_names)
        if legacy is not None:
            loaded.insert(0, (Stage.HOME_ASSISTANT, legacy))
        custom = load_custom(variant, self.intent_names)
        if custom is not None:
            loaded.append((Stage.CUSTOM, custom))
        # A response the older set lacks (HassNevermind's "") is taken from the newer one.
        responses = (
            {
                intent: {**newer.responses.get(intent, {}), **by_key}
                for intent, by_key in legacy.responses.items()
            }
            if legacy is not None
            else {}
        )
        sets = tuple(
            Sentences(
                stage,
                intents,
                TemplateFilter(intents.intents) if self.prefilter else None,
                # Error sentences from the pinned package for every set: it has each one in
                # every language it ships (docs/DECISIONS.md, "Failures spoken to a person").
                ResponseTemplates(
                    responses if stage is Stage.HOME_ASSISTANT else intents.responses,
                    newer.errors,
                ),
            )
            for stage, intents in loaded
        )
        _LOGGER.info(
            "Loaded Home Assistant's sentences for language %r (%s)",
            variant,
            ", ".join(stage for stage, _intents in loaded),
        )
        return Language(sets)
