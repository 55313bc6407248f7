"""A drafted automation said in plain words, per served language (the local sentence family).

"every weekday at seven turn on the kitchen lights" is drafted locally
(``HomeAgentDraftAutomation``); its summary, which the question and the Automations page show,
comes from here: the days, the time and what it does, in the person's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from addon.i18n.codes import base_language


@dataclass(frozen=True, slots=True)
class AutomationWords:
    """How one language says a time-of-day automation and that it waits on the panel."""

    days: Mapping[str, str]
    """``weekdays``, ``daily``, ``weekend`` as the sentence starts: "Every weekday"."""
    turn_on: str
    """``{days}``, ``{time}`` (``07:00``) and ``{name}``."""
    turn_off: str
    on_the_page: str
    """Said when only the panel can approve the draft: it waits on the Automations page."""


EN = AutomationWords(
    {"weekdays": "Every weekday", "daily": "Every day", "weekend": "Every weekend day"},
    "{days} at {time} it turns on {name}.",
    "{days} at {time} it turns off {name}.",
    "I drafted an automation: {summary} It waits for approval on the Automations page.",
)

TABLE: Mapping[str, AutomationWords] = {
    "en": EN,
    "de": AutomationWords(
        {"weekdays": "Jeden Werktag", "daily": "Jeden Tag", "weekend": "Jeden Wochenendtag"},
        "{days} um {time} schaltet sie {name} ein.",
        "{days} um {time} schaltet sie {name} aus.",
        "Ich habe eine Automatisierung entworfen: {summary} Sie wartet auf der Seite "
        "Automatisierungen auf Freigabe.",
    ),
    "fr": AutomationWords(
        {
            "weekdays": "Chaque jour de semaine",
            "daily": "Chaque jour",
            "weekend": "Chaque jour du week-end",
        },
        "{days} à {time}, elle allume {name}.",
        "{days} à {time}, elle éteint {name}.",
        "J'ai préparé une automatisation : {summary} Elle attend votre accord sur la page "
        "Automatisations.",
    ),
    "es": AutomationWords(
        {
            "weekdays": "Cada día laborable",
            "daily": "Cada día",
            "weekend": "Cada día del fin de semana",
        },
        "{days} a las {time} enciende {name}.",
        "{days} a las {time} apaga {name}.",
        "He preparado una automatización: {summary} Espera tu aprobación en la página "
        "Automatizaciones.",
    ),
    "nl": AutomationWords(
        {"weekdays": "Elke werkdag", "daily": "Elke dag", "weekend": "Elke weekenddag"},
        "{days} om {time} zet ze {name} aan.",
        "{days} om {time} zet ze {name} uit.",
        "Ik heb een automatisering opgesteld: {summary} Die wacht op goedkeuring op de pagina "
        "Automatiseringen.",
    ),
    "it": AutomationWords(
        {
            "weekdays": "Ogni giorno feriale",
            "daily": "Ogni giorno",
            "weekend": "Ogni giorno del fine settimana",
        },
        "{days} alle {time} accende {name}.",
        "{days} alle {time} spegne {name}.",
        "Ho preparato un'automazione: {summary} Attende l'approvazione nella pagina Automazioni.",
    ),
    "pl": AutomationWords(
        {
            "weekdays": "W każdy dzień roboczy",
            "daily": "Codziennie",
            "weekend": "W każdy dzień weekendu",
        },
        "{days} o {time} włącza {name}.",
        "{days} o {time} wyłącza {name}.",
        "Przygotowałem automatyzację: {summary} Czeka na zatwierdzenie na stronie Automatyzacje.",
    ),
    "pt": AutomationWords(
        {
            "weekdays": "Todos os dias úteis",
            "daily": "Todos os dias",
            "weekend": "Todos os dias do fim de semana",
        },
        "{days} às {time} liga {name}.",
        "{days} às {time} desliga {name}.",
        "Preparei uma automação: {summary} Aguarda aprovação na página Automações.",
    ),
}


def automation_words(language: str | None) -> AutomationWords:
    """The words of ``language`` (English for a language not listed)."""
    return TABLE.get(base_language(language or "en"), EN)


def time_automation_summary(
    language: str | None, days: str, hour: int, minute: int, service: str, name: str
) -> str:
    """The summary in ``language``: "Every weekday at 07:00 it turns on Kitchen Lights."."""
    words = automation_words(language)
    said = words.turn_off if service == "turn_off" else words.turn_on
    return said.format(
        days=words.days.get(days, words.days["daily"]), time=f"{hour:02d}:{minute:02d}", name=name
    )
