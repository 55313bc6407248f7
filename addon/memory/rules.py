"""What must never be remembered, however the extraction model judged it.

The model is asked not to propose these, but a prompt is a wish, not a guarantee: these rules run
on every candidate, and a rejected one is dropped with its reason (the extraction's trace keeps the
reasons, never the text of a secret). They err on the side of forgetting: a lost memory can be said
again, a stored door code cannot be unsaid. Patterns cover the add-on's eight languages (en, de, fr,
es, nl, it, pl, pt), English and German most thoroughly.

Every pattern runs in time linear in the text: no unbounded run is followed by something it
could give back (a run that must be re-scanned from each start is what made 24,000 characters
take ten seconds), and nothing longer than :data:`MAX_CONTENT` is screened at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from addon.memory.candidates import Candidate, MemoryKind

MIN_CHARS = 12
MIN_WORDS = 3
MAX_CONTENT = 2000
"""The longest memory, however it arrives (panel, ``remember`` from the model or over MCP,
extraction): a memory is a sentence or two."""
_KEY_RUN = re.compile(r"[A-Za-z0-9_\-]{20,}")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[A-Za-z]")


class RejectReason(StrEnum):
    """Why a candidate was not kept."""

    SECRET = "secret"
    TRANSIENT = "transient"
    TIME = "time"
    WEATHER = "weather"
    TRIVIA = "trivia"
    TOO_LONG = "too_long"


@dataclass(frozen=True, slots=True)
class Rejection:
    """A dropped candidate and why; ``detail`` names the rule.

    ``content`` is None for a secret, so nothing downstream (a trace, a log, the event) can keep
    what the rule was there to drop.
    """

    content: str | None
    kind: MemoryKind
    reason: RejectReason
    detail: str


def _words(*alternatives: str) -> str:
    return "(?:" + "|".join(alternatives) + ")"


# Words that name a secret on their own: whatever follows them is not for keeping.
_PASSWORD = _words(
    r"password", r"passwort", r"passcode", r"passphrase", r"kennwort", r"mot de passe",
    r"contraseña", r"wachtwoord", r"hasło", r"hasla", r"senha", r"palavra-passe",
    r"api[ -]?key", r"api[ -]?schlüssel", r"clé d'api", r"access token", r"secret key",
    r"zugangsdaten", r"geheimzahl", r"credentials?",
)  # fmt: skip
# Words that name a secret only when a value comes with them ("the alarm code is 4821").
_CODE = _words(
    r"code", r"codes", r"pin", r"pins", r"pincode", r"pin-code", r"key", r"token", r"combination",
    r"schlüssel", r"zahlenkombination", r"clé", r"clave", r"código", r"codigo", r"sleutel",
    r"codice", r"chiave", r"kod", r"kodu", r"klucz", r"chave", r"combinaison", r"combinación",
)  # fmt: skip
# A value mixing digits and letters: each run is bounded and possessive (``{0,64}+``), so a
# long run after a code word is read once from each start, never given back and re-read.
_VALUE = (
    r"(?:\d[\d\s-]{2,40}\d|\d{3,}"
    r"|[A-Za-z_\-]{0,64}+\d[0-9_\-]{0,64}+[A-Za-z]"
    r"|[0-9_\-]{0,64}+[A-Za-z][A-Za-z_\-]{0,64}+\d)"
)
# German and Dutch write compounds ("Alarmcode", "Türcode", "Geheimzahl", "pincode").
_COMPOUND = r"\w*(?:code|pin|zahl|schlüssel|kod|kode)"
_SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\b{_PASSWORD}\b", re.IGNORECASE), "a password or key is named"),
    (
        re.compile(rf"\b(?:{_CODE}|{_COMPOUND})\b[^.!?\n]{{0,30}}?{_VALUE}", re.IGNORECASE),
        "a code or PIN with its value",
    ),
    (
        re.compile(rf"\b\d{{3,}}\b[^.!?\n]{{0,30}}?\b{_CODE}\b", re.IGNORECASE),
        "a value given as a code or PIN",
    ),
    (
        re.compile(
            r"\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abp]-[A-Za-z0-9-]{10,}"
            r"|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})"
        ),
        "a key-like token",
    ),
)
# Long runs mixing letters and digits look like keys, not like anything said in a home: found
# by :func:`_key_like` run by run (one scan), not by lookaheads from every word boundary.
_KEY_LIKE = "a key-like token"


def _key_like(text: str) -> bool:
    return any(
        _DIGIT.search(run.group()) and _LETTER.search(run.group())
        for run in _KEY_RUN.finditer(text)
    )


# "Now"-words: what holds at the moment of speaking is the home's live state, not a memory.
_NOW = re.compile(
    r"\b"
    + _words(
        r"right now", r"just now", r"currently", r"at the moment", r"at present", r"now",
        r"jetzt", r"gerade", r"momentan", r"im moment", r"zurzeit", r"derzeit", r"aktuell",
        r"maintenant", r"actuellement", r"en ce moment", r"ahora", r"actualmente",
        r"en este momento", r"momenteel", r"op dit moment", r"adesso", r"attualmente",
        r"in questo momento", r"teraz", r"obecnie", r"w tej chwili", r"agora", r"atualmente",
        r"neste momento",
    )
    + r"\b",
    re.IGNORECASE,
)  # fmt: skip
# A device's state ("the garage door is open"), unless said as a habit ("always", "every night").
# Verbs and states pair per language, so English "is an engineer" is not German "ist an".
_STATES: dict[str, tuple[str, str]] = {
    "en": (r"is|are|was|were", r"on|off|open|closed|locked|unlocked|playing|paused|running|idle"),
    "de": (r"ist|sind", r"an|aus|offen|geschlossen|abgeschlossen|eingeschaltet|ausgeschaltet"),
    "fr": (r"est|sont", r"allumée?s?|éteinte?s?|ouverte?s?|fermée?s?"),
    "es": (r"está|están", r"encendid[oa]s?|apagad[oa]s?|abiert[oa]s?|cerrad[oa]s?"),
    "nl": (r"is|zijn|staat|staan", r"aan|uit|open|dicht"),
    "it": (r"è|sono", r"acces[oaie]|spent[oaie]|apert[oaie]|chius[oaie]"),
    "pl": (r"jest|są", r"włączon[yae]|wyłączon[yae]|otwart[yae]|zamknięt[yae]"),
    "pt": (r"está|estão", r"ligad[oa]s?|desligad[oa]s?|abert[oa]s?|fechad[oa]s?"),
}
_STATE = re.compile(
    "|".join(
        rf"\b(?:{verbs})\s+(?:turned\s+|switched\s+)?(?:{states})\b"
        for verbs, states in _STATES.values()
    ),
    re.IGNORECASE,
)
_HABIT = re.compile(
    r"\b"
    + _words(
        r"always", r"usually", r"every", r"each", r"never", r"prefers?", r"likes?", r"wants?",
        r"immer", r"jeden", r"jede", r"jedes", r"meistens", r"nie", r"mag", r"möchte",
        r"toujours", r"chaque", r"siempre", r"cada", r"altijd", r"elke", r"sempre", r"ogni",
        r"zawsze", r"codziennie", r"todos", r"todas",
    )
    + r"\b",
    re.IGNORECASE,
)  # fmt: skip
_TIME = re.compile(
    r"\b"
    + _words(
        r"(?:it is|it's|the time is)\s+(?:now\s+)?\d{1,2}(?:[:.]\d{2})?",
        r"(?:today|tomorrow) is\s+\w+day", r"the (?:current )?(?:time|date) is",
        r"o'clock", r"es ist\s+\d{1,2}(?:[:.]\d{2})?(?:\s+uhr)?", r"heute ist", r"die uhrzeit",
        r"il est\s+\d{1,2}\s*h", r"son las\s+\d", r"es la\s+\d", r"het is\s+\d{1,2}\s+uur",
        r"sono le\s+\d", r"jest (?:godzina\s+)?\d{1,2}[:.]\d{2}", r"são\s+\d{1,2}\s*h",
    ),
    re.IGNORECASE,
)  # fmt: skip
_WEATHER = re.compile(
    r"\b"
    + _words(
        r"weather", r"forecast", r"raining", r"rains", r"snowing", r"sunny", r"cloudy",
        r"windy", r"thunderstorm", r"degrees outside", r"wetter", r"regnet", r"schneit",
        r"sonnig", r"bewölkt", r"vorhersage", r"gewitter", r"météo", r"pleut", r"neige",
        r"ensoleillé", r"nuageux", r"clima", r"llueve", r"nieva", r"soleado", r"nublado",
        r"pronóstico", r"regent", r"sneeuwt", r"zonnig", r"bewolkt", r"weerbericht", r"meteo",
        r"piove", r"nevica", r"soleggiato", r"nuvoloso", r"previsioni", r"pogoda", r"pada",
        r"słonecznie", r"pochmurno", r"prognoza", r"chove", r"neva", r"ensolarado", r"nublado",
        r"previsão",
    )
    + r"\b",
    re.IGNORECASE,
)  # fmt: skip
_GREETING = re.compile(
    r"^\W*(?:the user\s+(?:said|says|greeted|thanked)\W*)?"
    + _words(
        r"hi", r"hello", r"hey", r"good (?:morning|evening|night|afternoon)", r"thanks?",
        r"thank you", r"bye", r"goodbye", r"ok(?:ay)?", r"hallo", r"guten (?:morgen|abend|tag)",
        r"danke", r"tschüss", r"bonjour", r"bonsoir", r"merci", r"salut", r"hola", r"gracias",
        r"adiós", r"dank je(?: wel)?", r"bedankt", r"goedemorgen", r"ciao", r"grazie",
        r"buongiorno", r"cześć", r"dzięki", r"dziękuję", r"dzień dobry", r"olá", r"obrigad[oa]",
        r"bom dia", r"tchau",
    )
    + r"\b",
    re.IGNORECASE,
)  # fmt: skip
_ASKED = re.compile(
    r"^\W*(?:the )?(?:user|speaker)\s+(?:asked|asks|wanted to know|wants to know|requested|"
    r"inquired)\b",
    re.IGNORECASE,
)


def check(candidate: Candidate) -> Rejection | None:
    """The first rule ``candidate`` breaks, secrets first; None when it may be kept."""
    text = candidate.content
    if len(text) > MAX_CONTENT:
        # Not screened, so not shown either: it may hold a secret.
        detail = f"longer than {MAX_CONTENT} characters"
        return Rejection(None, candidate.kind, RejectReason.TOO_LONG, detail)
    for pattern, detail in _SECRET_PATTERNS:
        if pattern.search(text):
            return Rejection(None, candidate.kind, RejectReason.SECRET, detail)
    if _key_like(text):
        return Rejection(None, candidate.kind, RejectReason.SECRET, _KEY_LIKE)
    if len(text) < MIN_CHARS or len(text.split()) < MIN_WORDS:
        return _reject(candidate, RejectReason.TRIVIA, "too short to be worth keeping")
    if _GREETING.match(text):
        return _reject(candidate, RejectReason.TRIVIA, "a greeting or thanks")
    if text.rstrip().endswith("?") or _ASKED.match(text):
        return _reject(candidate, RejectReason.TRIVIA, "a question, not something learned")
    if _TIME.search(text):
        return _reject(candidate, RejectReason.TIME, "the time or date")
    if _WEATHER.search(text):
        return _reject(candidate, RejectReason.WEATHER, "the weather")
    habitual = candidate.kind is MemoryKind.PREFERENCE or _HABIT.search(text)
    if not habitual and _NOW.search(text):
        return _reject(candidate, RejectReason.TRANSIENT, "a state of the moment")
    if not habitual and _STATE.search(text):
        return _reject(candidate, RejectReason.TRANSIENT, "a device's current state")
    return None


def _reject(candidate: Candidate, reason: RejectReason, detail: str) -> Rejection:
    return Rejection(candidate.content, candidate.kind, reason, detail)


def screen(
    candidates: tuple[Candidate, ...],
) -> tuple[tuple[Candidate, ...], tuple[Rejection, ...]]:
    """Split ``candidates`` into those kept and those rejected, each rejection with its reason."""
    kept: list[Candidate] = []
    rejected: list[Rejection] = []
    for candidate in candidates:
        rejection = check(candidate)
        if rejection is None:
            kept.append(candidate)
        else:
            rejected.append(rejection)
    return tuple(kept), tuple(rejected)
