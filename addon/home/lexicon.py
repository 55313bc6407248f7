"""Words of a request, as context selection reads them: tokens, filler, and kinds of device.

Names, aliases, areas and floors come from the home and work in any language: they are compared
as loose words (:func:`addon.home.names.loose_name`), with a plural ``s`` folded so "lights"
finds "Light". The filler words (verbs, articles, politeness) and the words for kinds of device
("lights", "blinds", "temperature") are English; in another language the kinds are simply not
recognised and selection leans on names, areas and the search tool.
"""

from __future__ import annotations

from types import MappingProxyType

from addon.home.names import loose_name

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

_KINDS: dict[str, tuple[Kind, ...]] = {
    "light": (("light", None),),
    "lamp": (("light", None),),
    "lighting": (("light", None),),
    "bulb": (("light", None),),
    "dim": (("light", None),),
    "brighten": (("light", None),),
    "brightness": (("light", None),),
    "plug": (("switch", None),),
    "socket": (("switch", None),),
    "outlet": (("switch", None),),
    "blind": (("cover", None),),
    "curtain": (("cover", None),),
    "shade": (("cover", None),),
    "shutter": (("cover", None),),
    "cover": (("cover", None),),
    "garage": (("cover", "garage"),),
    "door": (("binary_sensor", "door"), ("lock", None), ("cover", "garage")),
    "window": (("binary_sensor", "window"),),
    "lock": (("lock", None),),
    "unlock": (("lock", None),),
    "locked": (("lock", None),),
    "thermostat": (("climate", None),),
    "heating": (("climate", None),),
    "heat": (("climate", None),),
    "cooling": (("climate", None),),
    "ac": (("climate", None),),
    "fan": (("fan", None),),
    "tv": (("media_player", None),),
    "television": (("media_player", None),),
    "music": (("media_player", None),),
    "speaker": (("media_player", None),),
    "volume": (("media_player", None),),
    "play": (("media_player", None),),
    "pause": (("media_player", None),),
    "vacuum": (("vacuum", None),),
    "hoover": (("vacuum", None),),
    "valve": (("valve", None),),
    "water": (("valve", None),),
    "temperature": (("sensor", "temperature"), ("climate", None)),
    "warm": (("sensor", "temperature"), ("climate", None)),
    "cold": (("sensor", "temperature"), ("climate", None)),
    "hot": (("sensor", "temperature"), ("climate", None)),
    "humidity": (("sensor", "humidity"),),
    "humid": (("sensor", "humidity"),),
    "co2": (("sensor", "carbon_dioxide"),),
    "air": (("sensor", "carbon_dioxide"), ("sensor", "pm25")),
    "motion": (("binary_sensor", "motion"),),
    "movement": (("binary_sensor", "motion"),),
    "leak": (("binary_sensor", "moisture"),),
    "open": (("cover", None), ("binary_sensor", None), ("valve", None)),
    "close": (("cover", None), ("valve", None)),
    "closed": (("cover", None), ("binary_sensor", None), ("valve", None)),
    "scene": (("scene", None),),
    "list": (("todo", None),),
    "weather": (("weather", None),),
    "forecast": (("weather", None),),
}
KIND_WORDS = MappingProxyType(_KINDS)
"""A word (already folded by :func:`fold`) → the kinds of device it means."""


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
