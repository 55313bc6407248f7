"""Write ``addon/home/context/kind_words.json``: the words for kinds of device, per language.

``python -m devtools.kind_words`` derives most of them from Home Assistant's own intents data
(the ``home_assistant_intents`` package): every sentence template of an intent that acts on one
domain (``HassVacuumStart``, ``HassMediaPause``, ``HassTurnOn`` with ``domain: cover`` ...) is
expanded with hassil, and a word that only that domain's sentences use becomes one of its words
("vacuum", "song", "Staubsauger", "musique"); the ``cover_classes`` list gives covers' device
classes ("blinds", "Rollläden", "volets"). Skip words, words every kind of request uses and
words shorter than three letters never count. ``devtools/data/kind_words.yaml`` adds what the
intents do not say (verbs and uses: "vacuuming", "watering", "groceries"; device classes:
"door" is a lock or a door sensor) and drops derived words that are not kinds of device. The
result is data the add-on loads; it does not import the intents package for this at run time.
Run it again after upgrading ``home-assistant-intents``.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml
from hassil import parse_sentence
from hassil.sample import sample_expression
from home_assistant_intents import get_intents

from addon.home.context.lexicon import words

LANGUAGES = ("en", "de", "fr", "es", "nl", "it", "pl", "pt")
ROOT = Path(__file__).resolve().parent.parent
HAND = ROOT / "devtools" / "data" / "kind_words.yaml"
OUT = ROOT / "addon" / "home" / "kind_words.json"
SAMPLES = 200
"""Expansions read per sentence template: enough to see every alternative's words."""

INTENT_DOMAINS = {
    "HassVacuumStart": "vacuum",
    "HassVacuumReturnToBase": "vacuum",
    "HassVacuumCleanArea": "vacuum",
    "HassMediaNext": "media_player",
    "HassMediaPrevious": "media_player",
    "HassMediaPause": "media_player",
    "HassMediaUnpause": "media_player",
    "HassMediaPlayerMute": "media_player",
    "HassMediaPlayerUnmute": "media_player",
    "HassSetVolume": "media_player",
    "HassSetVolumeRelative": "media_player",
    "HassMediaSearchAndPlay": "media_player",
    "HassListAddItem": "todo",
    "HassListCompleteItem": "todo",
    "HassListRemoveItem": "todo",
    "HassShoppingListAddItem": "todo",
    "HassShoppingListCompleteItem": "todo",
    "HassClimateGetTemperature": "climate",
    "HassClimateSetTemperature": "climate",
    "HassLightSet": "light",
    "HassFanSetSpeed": "fan",
    "HassLawnMowerDock": "lawn_mower",
    "HassLawnMowerStartMowing": "lawn_mower",
    "HassGetWeather": "weather",
}
"""Intents that act on one domain whatever their slots say."""
DOMAINS = frozenset(
    {"light", "switch", "cover", "lock", "climate", "fan", "media_player", "vacuum", "valve",
     "todo", "lawn_mower", "weather", "scene"}
)  # fmt: skip
"""Domains the overview lists and a word can name; persons and scripts are named, not kinds."""


def _domain(intent: str, data: dict[str, Any]) -> str:
    """The one domain a block of sentences acts on, or ``*`` when it is not one."""
    domain = INTENT_DOMAINS.get(intent) or (data.get("slots") or {}).get("domain")
    domain = domain or (data.get("requires_context") or {}).get("domain")
    if isinstance(domain, list):
        domain = domain[0] if len(domain) == 1 else None
    return domain if isinstance(domain, str) else "*"


def derived(language: str) -> dict[str, str]:
    """Folded word → the one domain whose sentences alone use it, from the intents data."""
    data = get_intents(language)
    if data is None:
        return {}
    rules = {name: parse_sentence(text) for name, text in data["expansion_rules"].items()}
    skip = {word for phrase in data.get("skip_words", ()) for word in words(phrase)}
    domains: dict[str, set[str]] = defaultdict(set)
    for intent, body in data["intents"].items():
        for block in body["data"]:
            domain = _domain(intent, block)
            for template in block["sentences"]:
                expanded = sample_expression(
                    parse_sentence(template).expression,
                    expansion_rules=rules,
                    expand_lists=False,
                    language=language,
                )
                for text in itertools.islice(expanded, SAMPLES):
                    for word in words(re.sub(r"\{[^}]*\}", " ", text)):
                        domains[word].add(domain)
    return {
        word: next(iter(found))
        for word, found in sorted(domains.items())
        if len(found) == 1 and next(iter(found)) in DOMAINS and word not in skip and len(word) > 2
    }


def cover_classes(language: str) -> dict[str, set[str]]:
    """Folded word → ``cover.<device class>``, from the intents' ``cover_classes`` list."""
    data = get_intents(language)
    values = ((data or {}).get("lists", {}).get("cover_classes") or {}).get("values", ())
    found: dict[str, set[str]] = {}
    for value in values:
        expanded = sample_expression(parse_sentence(value["in"]).expression, language=language)
        for text in itertools.islice(expanded, SAMPLES):
            classes = value["out"] if isinstance(value["out"], list) else [value["out"]]
            for word in words(text):
                if len(word) > 3:  # "porte de garage": not "de"
                    found.setdefault(word, set()).update(f"cover.{c}" for c in classes)
    return found


def table() -> dict[str, dict[str, list[str]]]:
    """Language → folded word → kinds (``domain`` or ``domain.device_class``), sorted."""
    hand = yaml.safe_load(HAND.read_text(encoding="utf-8"))
    result: dict[str, dict[str, list[str]]] = {}
    for language in LANGUAGES:
        spec = hand.get(language) or {}
        excluded = {word for text in spec.get("exclude", ()) for word in words(text)}
        kinds: dict[str, set[str]] = {
            word: {domain} for word, domain in derived(language).items() if word not in excluded
        }
        written: dict[str, set[str]] = defaultdict(set)
        for kind, said in (spec.get("kinds") or {}).items():
            for text in said:
                folded = words(text)
                if len(folded) == 1:
                    written[folded[0]].add(kind)
        kinds.update(written)
        # A cover's device class joins whatever else the word means ("blinds": cover.blind).
        for word, classes in cover_classes(language).items():
            if word not in excluded:
                kinds.setdefault(word, set()).update(classes)
        result[language] = {word: sorted(kinds[word]) for word in sorted(kinds)}
    return result


def render() -> str:
    """The JSON file's text."""
    return json.dumps(table(), ensure_ascii=False, indent=0, sort_keys=True) + "\n"


def main() -> None:
    """Write the file and say where."""
    OUT.write_text(render(), encoding="utf-8")
    sys.stderr.write(f"wrote {OUT.relative_to(ROOT)}\n")


if __name__ == "__main__":
    main()
