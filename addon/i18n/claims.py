"""Whether a reply says that something in the home was just changed, per language.

The outcome check (:mod:`addon.agent.outcome`) flags a reply that claims an action when no tool
acted. Such a claim is worded differently in every language, so each has its own patterns; a
reply is read with those of the request's language and with English ones (a model often answers
in English whatever it was asked in). A language without patterns is not judged by its words
at all: English patterns would never find its claims, and a miss is better than a false flag.

The patterns look for a change just made ("turned on", "ich habe … eingeschaltet", "is now
open"), not for a state ("the light is on"), which a reply may report after reading the home.
A claim with a negation in it or just before it ("ich habe … nicht eingeschaltet", "I haven't
turned on") is not one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from addon.i18n.codes import base_language

_GAP = r"[^.!?;:\n]{0,80}?"
"""The words between "I have" and the participle, within one clause."""
_LOOK_BACK = 24
"""Characters before a claim searched for a negation ("I haven't", "no he", "non ho")."""
_CLAUSE_END = re.compile(r"[.!?;:,\n]")


@dataclass(frozen=True, slots=True)
class ClaimPatterns:
    """One language's way of saying an action was done, and of saying it was not."""

    claim: re.Pattern[str]
    negation: re.Pattern[str] | None = None


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


CLAIMS: Mapping[str, ClaimPatterns] = MappingProxyType(
    {
        "en": ClaimPatterns(
            _compile(
                r"\b(turned (on|off)|switched (on|off)"
                r"|(i'?ve|i have) (locked|unlocked|opened|closed|set|started)"
                r"|is now (on|off|locked|unlocked|open|closed)|are now (on|off|open|closed))\b"
            ),
            _compile(r"\b(not|never)\b|n't\b"),
        ),
        "de": ClaimPatterns(
            _compile(
                rf"\b(ich habe {_GAP}\b(eingeschaltet|ausgeschaltet|angeschaltet|abgeschaltet"
                r"|angemacht|ausgemacht|eingestellt|geöffnet|geschlossen|verriegelt|entriegelt"
                r"|abgeschlossen|aufgeschlossen|gestartet|gedimmt)"
                rf"|(wurde|wurden) {_GAP}\b(eingeschaltet|ausgeschaltet|geöffnet|geschlossen"
                r"|verriegelt|entriegelt|abgeschlossen|aufgeschlossen|gestartet)"
                r"|(ist|sind) (jetzt|nun) (an|aus|eingeschaltet|ausgeschaltet|offen|geöffnet"
                r"|geschlossen|verriegelt|entriegelt|abgeschlossen))\b"
            ),
            _compile(r"\b(nicht|kein\w*|nie)\b"),
        ),
        "fr": ClaimPatterns(
            _compile(
                rf"\bj['’]ai {_GAP}\b(allumée?s?|éteinte?s?|ouverte?s?|fermée?s?"
                r"|verrouillée?s?|déverrouillée?s?|réglée?s?|démarrée?s?|lancée?s?)(?!\w)"
                r"|\b(est|sont) (maintenant|désormais) (allumée?s?|éteinte?s?|ouverte?s?"
                r"|fermée?s?|verrouillée?s?|déverrouillée?s?)(?!\w)"
            ),
            _compile(r"\b(pas|jamais)\b"),
        ),
        "es": ClaimPatterns(
            _compile(
                rf"\b(he {_GAP}\b(encendido|apagado|abierto|cerrado|bloqueado|desbloqueado"
                r"|ajustado|iniciado)"
                r"|(encendí|apagué|abrí|cerré|bloqueé|desbloqueé)"
                r"|(ahora (está|están)|(está|están) ahora) (encendid|apagad|abiert|cerrad"
                r"|bloquead|desbloquead)[oa]s?)(?!\w)"
            ),
            _compile(r"\b(no|nunca)\b"),
        ),
        "nl": ClaimPatterns(
            _compile(
                rf"\b(ik heb {_GAP}\b(aangezet|uitgezet|ingeschakeld|uitgeschakeld|aangedaan"
                r"|uitgedaan|geopend|gesloten|vergrendeld|ontgrendeld|ingesteld|gestart)"
                r"|(is|zijn) nu (aan|uit|open|dicht|gesloten|vergrendeld|ontgrendeld"
                r"|ingeschakeld|uitgeschakeld))\b"
            ),
            _compile(r"\b(niet|geen|nooit)\b"),
        ),
        "it": ClaimPatterns(
            _compile(
                rf"\b(ho {_GAP}\b(acces[oaie]|spent[oaie]|apert[oaie]|chius[oaie]"
                r"|bloccat[oaie]|sbloccat[oaie]|impostat[oaie]|regolat[oaie]|avviat[oaie])"
                r"|(è|sono) (ora|adesso) (acces|spent|apert|chius|bloccat|sbloccat)[oaie]"
                r"|(ora|adesso) (è|sono) (acces|spent|apert|chius|bloccat|sbloccat)[oaie])(?!\w)"
            ),
            _compile(r"\b(non|mai)\b"),
        ),
        "pl": ClaimPatterns(
            _compile(
                r"\b(włączył[ae]m|wyłączył[ae]m|otworzył[ae]m|zamknąłem|zamknęłam"
                r"|zablokował[ae]m|odblokował[ae]m|ustawił[ae]m|uruchomił[ae]m"
                r"|włączono|wyłączono|otwarto|zamknięto|zablokowano|odblokowano|uruchomiono"
                r"|(jest|są) teraz (włączon|wyłączon|otwart|zamknięt|zablokowan|odblokowan)\w*)"
                r"(?!\w)"
            ),
            _compile(r"\b(nie|nigdy)\b"),
        ),
        "pt": ClaimPatterns(
            _compile(
                r"\b(liguei|desliguei|acendi|apaguei|abri|fechei|tranquei|destranquei"
                r"|(agora (está|estão)|(está|estão) agora) (ligad|desligad|aces|apagad|abert"
                r"|fechad|trancad|destrancad)[oa]s?)(?!\w)"
            ),
            _compile(r"\b(não|nunca)\b"),
        ),
    }
)
"""Claim patterns by language code without region; only these languages are judged by words."""


def claims_action(reply: str, language: str) -> bool:
    """Whether ``reply`` says an action was just done, in ``language`` or in English."""
    codes = dict.fromkeys((base_language(language), "en"))
    return any(_claims(reply, CLAIMS[code]) for code in codes if code in CLAIMS)


def _claims(reply: str, patterns: ClaimPatterns) -> bool:
    for match in patterns.claim.finditer(reply):
        if patterns.negation is None:
            return True
        # A negation may stand inside the claim ("habe … nicht eingeschaltet") or just before
        # it ("no he encendido", "haven't turned on"), within the same clause.
        before = _CLAUSE_END.split(reply[max(0, match.start() - _LOOK_BACK) : match.start()])[-1]
        if not patterns.negation.search(before + match.group(0)):
            return True
    return False
