"""Words of a request, as context selection reads them: tokens, filler, and kinds of device.

Names, aliases, areas and floors come from the home and work in any language: they are compared
as loose words (:func:`addon.home.model.names.loose_name`), with a plural ``s`` folded so "lights"
finds "Light". The filler words (verbs, articles, politeness) and the words for kinds of device
("lights", "vacuuming", "song", "Staubsauger") come from :data:`KIND_FILE`, in every language the
add-on serves; the filler words are English, and elsewhere only cost a little precision.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from addon.home.model.names import loose_name

Kind = tuple[str, str | None]
"""A domain and, optionally, a device class: ``("light", None)``, ``("sensor", "humidity")``."""

FILLER = frozenset((
    "a", "an", "the", "to", "of", "in", "on", "at", "for", "from", "by", "with", "and", "or",
    "but", "is", "are", "was", "be", "am", "it", "its", "it's", "this", "that", "these", "those",
    "there", "here", "my", "our", "your", "me", "we", "i", "you", "please", "can", "could",
    "would", "will", "should", "do", "does", "did", "what", "what's", "whats", "which", "who",
    "how", "when", "where", "why", "any", "all", "every", "some", "turn", "switch", "set", "make",
    "put", "start", "stop", "get", "give", "tell", "show", "let", "lets", "let's", "up", "down",
    "off", "out", "into", "now", "again", "too", "also", "just", "very", "much", "more", "less",
    "bit", "little", "lot", "want", "need", "like", "go", "going", "thanks", "thank", "hey", "ok",
    "okay", "currently", "right", "still", "yet", "so", "then", "than", "if", "as", "about",
    "around", "inside", "outside", "both", "each", "s", "t", "don"
))  # fmt: skip
"""Words that say what to do or hold a sentence together, never part of what is meant.

"down" and "up" are filler for "turn down the music", at the cost of a device named "Up".
"""

VERB_KINDS = frozenset({"switch"})
"""Words for a kind that are also a verb saying nothing of the device: "switch off the light
strip" is a light. Read as the verb first in the request or after :data:`VERB_LEAD`."""
VERB_LEAD = frozenset((
    "ok", "okay", "please", "pls", "you", "and", "then", "now", "just", "also", "so", "can",
    "could", "would", "will", "hey", "i", "we", "let", "lets", "quickly",
))  # fmt: skip
"""Words after which :data:`VERB_KINDS` are verbs ("ok switch it off", "could you switch...")."""

OUTSIDE = frozenset((
    "outside", "outdoor", "outdoors", "exterior", "draussen", "aussen", "dehors", "extérieur",
    "exterieur", "fuera", "afuera", "buiten", "fuori", "esterno", "zewnątrz", "dworze", "fora",
))  # fmt: skip
"""Words a request says "outdoors" with ("the temperature outside", "wie warm ist es draußen"),
in every language served: devices outdoors come first among those of the kind it names."""

OUTDOOR_STEMS = (
    "outdoor", "outside", "exterior", "garden", "yard", "patio", "porch", "terrace", "balcon",
    "veranda", "aussen", "garten", "terrass", "balkon", "extérieur", "jardin", "jardín",
    "terraza", "buiten", "tuin", "giardin", "esterno", "esterna", "terrazz", "ogród", "ogrod",
    "zewn", "quintal", "varanda",
)  # fmt: skip
"""Parts of the words that place a device or an area outdoors, also inside compounds
("Außentemperatur", "Gartenventil", "Dachterrasse"); "deck" is not one ("Deckenlampe")."""


def is_outdoor(word: str) -> bool:
    """Whether a folded word of a name says outdoors."""
    return any(stem in word for stem in OUTDOOR_STEMS)


KIND_FILE = Path(__file__).with_name("kind_words.json")
"""Language → word → kinds, written by ``devtools/kind_words.py`` from Home Assistant's intents
data and ``devtools/data/kind_words.yaml``."""


def _load_kinds() -> Mapping[str, tuple[Kind, ...]]:
    """Every served language's kind words in one table: a home's names may mix languages."""
    table: dict[str, set[Kind]] = {}
    for by_word in json.loads(KIND_FILE.read_text(encoding="utf-8")).values():
        for word, kinds in by_word.items():
            for kind in kinds:
                domain, _, device_class = kind.partition(".")
                table.setdefault(word, set()).add((domain, device_class or None))
    return MappingProxyType(
        {
            word: tuple(sorted(kinds, key=lambda k: (k[0], k[1] or "")))
            for word, kinds in table.items()
        }
    )


KIND_WORDS = _load_kinds()
"""A word (already folded by :func:`fold`) → the kinds of device it means, in any language served:
verbs ("vacuuming"), objects ("song", "door"), uses ("watering") and names of kinds ("blinds")."""


def fold(word: str) -> str:
    """One word as selection compares it: a plural "s" dropped ("lights" → "light").

    Crude on purpose (it makes "glass" "glas" on both sides alike): both the home's names and
    the request go through it, so only agreement matters, and it must cost nothing.
    """
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> tuple[str, ...]:
    """The folded words of ``text``, in order (case, punctuation and plurals folded away)."""
    return tuple(fold(word) for word in loose_name(text).split())
