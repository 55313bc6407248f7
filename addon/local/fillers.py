"""Words a question carries that change nothing it asks, tried without when it matched nothing.

"Is the kitchen light *currently* on", "*please tell me if* the kitchen lights are on":
Home Assistant's sentences have no room for a time adverb or a request to tell, so such a
question matched nothing, or a catch-all took the filler into a name ("kitchen lights
currently").

* :func:`without_now` takes out time adverbs that only say "now" (currently, right now,
  gerade, actuellement...), in every served language, before matching: a catch-all would
  otherwise read them into a name.
* :func:`without_request` is tried when the text as said matched nothing: a request to tell
  ("can you tell me whether", "sag mir, ob", "dis-moi si"...) is taken off the front, and
  the clause it leaves turned back into the question it stands for where the language's word
  order makes that a plain swap (English "the lights are on" → "are the lights on", German
  "ob die Lichter an sind" → "sind die Lichter an"); elsewhere the clause is tried as it is.

* :func:`first_alternative` is tried last, for questions only: "is the TV playing, paused or
  stopped?" is asked as "is the TV playing?", whose answer names the state it is in ("No,
  paused"). A command with alternatives is never cut short this way.

Only whole words are removed, and never everything.
"""

from __future__ import annotations

import re

from addon.i18n.codes import base_language

_NOW: dict[str, str] = {
    "en": r"currently|right now|at the moment|at present|presently",
    "de": r"gerade|momentan|derzeit|aktuell|im moment|zurzeit|jetzt gerade",
    "fr": r"actuellement|en ce moment|pr[ée]sentement|à l'heure actuelle",
    "es": r"actualmente|ahora mismo|en este momento|en estos momentos",
    "it": r"attualmente|al momento|in questo momento|adesso",
    "nl": r"momenteel|op dit moment|op het moment|nu",
    "pt": r"atualmente|neste momento|agora mesmo|no momento",
    "pl": r"obecnie|aktualnie|w tej chwili|teraz",
}
"""Adverbs that only say "now": a state question is about now anyway."""

_TELL: dict[str, str] = {
    "en": (
        r"(?:please\s+)?(?:(?:can|could|would)\s+you\s+(?:please\s+)?)?"
        r"(?:tell|let)\s+me\s+(?:know\s+)?(?:if|whether)|do\s+you\s+know\s+(?:if|whether)|"
        r"i\s+(?:want|would\s+like|'d\s+like)\s+to\s+know\s+(?:if|whether)"
    ),
    "de": r"(?:kannst\s+du\s+mir\s+sagen|sag\s+mir|weißt\s+du)\s*,?\s+ob",
    "fr": r"(?:peux-tu\s+me\s+dire|dis-moi|tu\s+sais)\s+si",
    "es": r"(?:puedes\s+decirme|dime|sabes)\s+si",
    "it": r"(?:puoi\s+dirmi|dimmi|sai)\s+se",
    "nl": r"(?:kun\s+je\s+me\s+vertellen|vertel\s+me|weet\s+je)\s*,?\s+of",
    "pt": r"(?:podes\s+dizer-me|pode\s+me\s+dizer|diz-me|me\s+diga|sabes)\s+se",
    "pl": r"(?:powiedz\s+mi|czy\s+wiesz)\s*,?\s+czy",
}
"""A request to tell whether something holds, at the front of a yes/no question."""

_OR: dict[str, str] = {
    "en": "or",
    "de": "oder",
    "fr": "ou",
    "es": "o|u",
    "it": "o|oppure",
    "nl": "of",
    "pt": "ou",
    "pl": "lub|czy|albo",
}
"""The word that joins the last of several alternatives."""

_SEPARATORS = r"[\s,;:!]*"


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w)(?:{pattern})(?!\w)", re.IGNORECASE)


_NOW_PATTERNS = {language: _words(words) for language, words in _NOW.items()}
_ALTERNATIVES = {
    language: re.compile(
        rf"^(.+?\s\w+)(?:\s*,\s*\w+)*\s*,?\s+(?:{words})\s+\w+\s*([?.!]*)$", re.IGNORECASE
    )
    for language, words in _OR.items()
}
_TELL_PATTERNS = {
    language: re.compile(rf"^{_SEPARATORS}(?:{words}){_SEPARATORS}", re.IGNORECASE)
    for language, words in _TELL.items()
}
_ENGLISH_CLAUSE = re.compile(r"^(.+?)\s+(is|are)\s+(.+?)([?.!]*)$", re.IGNORECASE)


def without_now(text: str, language: str) -> str:
    """``text`` without time adverbs that only say "now" (else ``text`` itself)."""
    now = _NOW_PATTERNS.get(base_language(language))
    return _tidy(text, now.sub(" ", text)) if now is not None else text


def without_request(text: str, language: str) -> str:
    """``text`` as the question a leading "tell me whether" stands for (else ``text``)."""
    base = base_language(language)
    tell = _TELL_PATTERNS.get(base)
    if tell is None or not tell.search(text):
        return text
    return _tidy(text, _as_question(tell.sub("", text).strip(), base))


def first_alternative(text: str, language: str) -> str:
    """``text`` with only the first of the states it offers ("playing, paused or stopped")."""
    pattern = _ALTERNATIVES.get(base_language(language))
    found = pattern.match(text.strip()) if pattern is not None else None
    if found is None:
        return text
    return _tidy(text, found.group(1) + found.group(2))


def _tidy(text: str, stripped: str) -> str:
    """``stripped`` with its spacing mended, or ``text`` if nothing (or everything) went."""
    stripped = re.sub(r"\s+([?.!,])", r"\1", " ".join(stripped.split()))
    return stripped if stripped and stripped != " ".join(text.split()) else text


def _as_question(clause: str, language: str) -> str:
    """The yes/no question a "whether" clause stands for.

    English and German, Dutch move the verb to the front ("the lights are on" → "are the
    lights on"; "ob die Lichter an sind" → "sind die Lichter an"); French asks with "est-ce
    que", Polish with "czy"; Spanish, Italian and Portuguese ask in the clause's own order.
    """
    if language == "en" and (found := _ENGLISH_CLAUSE.match(clause)):
        subject, verb, rest, end = found.groups()
        return f"{verb} {subject} {rest}{end}"
    if language in _VERB_LAST and (found := _VERB_LAST[language].match(clause)):
        rest, verb, end = found.groups()
        return f"{verb} {rest}{end}"
    if language in _ASKED_WITH:
        return f"{_ASKED_WITH[language]} {clause}"
    return clause


_VERB_LAST = {
    "de": re.compile(r"^(.+?)\s+(ist|sind)([?.!]*)$", re.IGNORECASE),
    "nl": re.compile(r"^(.+?)\s+(is|zijn|staat|staan)([?.!]*)$", re.IGNORECASE),
}
"""A subordinate clause whose verb comes last, which a question puts first."""
_ASKED_WITH = {"fr": "est-ce que", "pl": "czy"}
"""The word a yes/no question starts with, before the clause as it is."""
