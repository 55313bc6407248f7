"""What a question says about its answer's form ("answer yes or no"), taken off before matching.

People (and other assistants' users) add "answer yes or no", "just yes or no" or "ja oder
nein?" to a yes/no question. Home Assistant's sentences have no room for it, so "is the
kitchen light on, answer yes or no" would match nothing; Home Assistant's yes/no responses
already begin with the yes or no asked for, so the words are dropped and the question matched
as it would be without them. Only a whole phrase at the start or end of the text is dropped,
and never when nothing would be left.
"""

from __future__ import annotations

import re

from addon.i18n.codes import base_language

_PHRASES: dict[str, tuple[str, ...]] = {
    "en": (
        r"(?:please\s+)?(?:just\s+|only\s+)?(?:answer|reply|respond|say)\s+(?:with\s+)?"
        r"(?:a\s+|just\s+|only\s+)?(?:simple\s+)?(?:yes\s+or\s+no|yes/no)",
        r"(?:just\s+|only\s+)?(?:yes\s+or\s+no|yes/no)(?:\s+(?:please|only))?",
    ),
    "de": (
        r"(?:bitte\s+)?(?:antworte|antworten\s+sie|sag)\s+(?:bitte\s+)?(?:nur\s+)?(?:mit\s+)?"
        r"(?:ja\s+oder\s+nein|ja/nein)",
        r"(?:nur\s+)?(?:ja\s+oder\s+nein|ja/nein)(?:\s+bitte)?",
    ),
    "fr": (
        r"(?:r[ée]ponds?|r[ée]pondez)\s+(?:par\s+)?(?:oui\s+ou\s+non)",
        r"oui\s+ou\s+non",
    ),
    "es": (r"(?:responde|contesta)\s+(?:con\s+)?(?:s[ií]\s+o\s+no)", r"s[ií]\s+o\s+no"),
    "it": (r"(?:rispondi)\s+(?:con\s+)?(?:s[iì]\s+o\s+no)", r"s[iì]\s+o\s+no"),
    "nl": (r"(?:antwoord)\s+(?:met\s+)?(?:ja\s+of\s+nee)", r"ja\s+of\s+nee"),
    "pt": (r"(?:responda|responde)\s+(?:com\s+)?(?:sim\s+ou\s+n[ãa]o)", r"sim\s+ou\s+n[ãa]o"),
    "pl": (r"(?:odpowiedz)\s+(?:tak\s+lub\s+nie|tak\s+czy\s+nie)", r"tak\s+(?:lub|czy)\s+nie"),
}

_SEPARATORS = r"[\s,;:.!?()\-–—]*"


def _compile(phrases: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The phrase at the end, and at the start, of a text."""
    either = "|".join(f"(?:{phrase})" for phrase in phrases)
    return (
        re.compile(rf"{_SEPARATORS}(?:{either}){_SEPARATORS}$", re.IGNORECASE),
        re.compile(rf"^{_SEPARATORS}(?:{either}){_SEPARATORS}", re.IGNORECASE),
    )


_PATTERNS = {language: _compile(phrases) for language, phrases in _PHRASES.items()}


def without_answer_format(text: str, language: str) -> str:
    """``text`` without an "answer yes or no" phrase at its end or start (else unchanged)."""
    patterns = _PATTERNS.get(base_language(language))
    if patterns is None:
        return text
    stripped = text
    for pattern in patterns:
        stripped = pattern.sub("", stripped)
    stripped = stripped.strip()
    return stripped if stripped and stripped != text.strip() else text
