"""Loading Home Assistant's sentence templates and response templates for one language.

``home-assistant-intents`` ships one JSON file per language with the sentences (``intents``),
shared ``lists``/``expansion_rules``/``skip_words`` and the ``responses`` Home Assistant speaks.
We keep only the intents our actions can carry out: a sentence for an intent we cannot handle
must fall through to the model rather than match here and fail later, and fewer templates also
make matching faster.

Three sets per language: the 2025.3.28 release (the sentences Home Assistant 2025.4.4 itself
matches with, whose area, device class and whole-home forms the newer package dropped; installed
unchanged from the registry beside the interpreter, :data:`LEGACY_DIR`), the pinned package's,
and our own in ``addon/local/custom`` (common forms neither has: "dim the lamp to 20%", "pause",
"send the vacuum home"), written in the same format and read with the pinned package's lists
and expansion rules. The matcher tries them in that order.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from hassil import Intents
from home_assistant_intents import get_intents, get_languages

from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LanguageIntents:
    """One language's parsed sentence templates and its response templates."""

    language: str
    """The variant actually loaded ("en" for "en-GB" when only "en" ships)."""
    intents: Intents
    responses: Mapping[str, Mapping[str, str]]
    """Intent name → response key → Jinja template, as Home Assistant renders them."""
    errors: Mapping[str, str] = field(default_factory=dict)
    """Error key (``no_entity``, ``no_domain_in_area_exposed``…) → Jinja template: what Home
    Assistant's agent says when a sentence matched but its target did not."""


def language_variants(language: str) -> Iterator[str]:
    """The codes to try for ``language``, most specific first (``en_US`` → en-US, en).

    The same fallbacks as Home Assistant's ``_get_language_variations``.
    """
    yield language
    parts = re.split(r"([-_])", language)
    if len(parts) == 3:
        base, separator, region = parts
        if separator == "_":
            yield f"{base}-{region}"
        yield base


def supported_variant(language: str) -> str | None:
    """The shipped language code that serves ``language``, or None when none does."""
    shipped = {code.casefold(): code for code in get_languages()}
    for variant in language_variants(language.strip()):
        if (code := shipped.get(variant.casefold())) is not None:
            return code
    return None


LEGACY_VERSION = "2025.3.28"
"""The ``home-assistant-intents`` release Home Assistant 2025.4.4 matches with."""
LEGACY_DIR = Path(sys.prefix) / "share" / "home-agent" / f"home-assistant-intents-{LEGACY_VERSION}"
"""Where the image and ``make venv`` install that release, unchanged from the registry
(``requirements-intents.txt``): beside the interpreter, not in site-packages, where the newer
pinned package owns the import name."""


def load_language(language: str, intent_names: Collection[str]) -> LanguageIntents | None:
    """Parse the templates of ``intent_names`` for ``language``; None if the language has none.

    ``Intents.from_dict`` is cheap (about 10 ms); hassil parses each sentence template on first
    use, so the first recognition after loading costs about 100 ms more than the rest.
    """
    variant = supported_variant(language)
    if variant is None:
        return None
    return _parse(variant, get_intents(variant), intent_names)


def load_legacy(
    language: str, intent_names: Collection[str], root: Path = LEGACY_DIR
) -> LanguageIntents | None:
    """The same from Home Assistant 2025.4's sentences; None for a language they lack.

    ``language`` is a shipped code (:func:`supported_variant`), matched to the release's file
    names without regard to case ("pt-BR" reads ``pt-br.json``). Without the release installed
    (a development checkout that skipped ``make venv``) every language lacks them: the local
    path then matches with the newer sentences alone, which the log says once.
    """
    data_dir = root / "home_assistant_intents" / "data"
    if not data_dir.is_dir():
        _LOGGER.warning(
            "Home Assistant 2025.4's sentences are not installed at %s (pip install --target "
            "it -r requirements-intents.txt); matching %r with the newer sentences alone",
            root,
            language,
        )
        return None
    path = next(
        (p for p in data_dir.glob("*.json") if p.stem.casefold() == language.casefold()), None
    )
    if path is None:
        return None
    with path.open(encoding="utf-8") as file:
        data = _object(json.load(file))
    return _parse(language, data, intent_names)


CUSTOM_DIR = Path(__file__).resolve().parent / "custom"
"""Our own sentences, one YAML file a language, in Home Assistant's custom sentence format."""


def load_custom(language: str, intent_names: Collection[str]) -> LanguageIntents | None:
    """Our sentences for ``language`` (a shipped code); None for a language without a file.

    They use the pinned package's lists and expansion rules (``{brightness}``, ``<the>``) as
    Home Assistant's custom sentences use its built-in ones; what the file defines wins. Their
    responses are the pinned package's for the same intents, and the file's own (``responses:
    intents:``, Home Assistant's format) for our own intents, which the package has not.
    """
    path = CUSTOM_DIR / f"{language.casefold()}.yaml"
    if not path.is_file():
        return None
    base = get_intents(language) or {}
    with path.open(encoding="utf-8") as file:
        custom = _object(yaml.safe_load(file))
    base_responses = _object(base.get("responses"))
    data: JsonObject = {
        **base,
        "intents": _object(custom.get("intents")),
        "lists": {**_object(base.get("lists")), **_object(custom.get("lists"))},
        "expansion_rules": {
            **_object(base.get("expansion_rules")),
            **_object(custom.get("expansion_rules")),
        },
        "responses": {
            **base_responses,
            "intents": {
                **_object(base_responses.get("intents")),
                **_object(_object(custom.get("responses")).get("intents")),
            },
        },
    }
    return _parse(language, data, intent_names)


def _parse(
    variant: str, data: JsonObject | None, intent_names: Collection[str]
) -> LanguageIntents | None:
    """One set of sentences with only ``intent_names`` kept."""
    if not data:
        return None
    wanted = set(intent_names)
    kept = {name: body for name, body in _object(data.get("intents")).items() if name in wanted}
    intents = Intents.from_dict({**data, "intents": kept})
    responses = _object(data.get("responses"))
    by_intent = _object(responses.get("intents"))
    return LanguageIntents(
        variant,
        intents,
        {name: _texts(by_intent.get(name)) for name in kept},
        _texts(responses.get("errors")),
    )


def _object(value: JsonValue) -> JsonObject:
    """``value`` if the sentence data holds an object there; empty if it holds nothing."""
    return value if isinstance(value, dict) else {}


def _texts(value: JsonValue) -> dict[str, str]:
    """The texts of an object of response templates (name to template)."""
    return {key: text for key, text in _object(value).items() if isinstance(text, str)}
