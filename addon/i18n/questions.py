"""What Home Agent says when a question has no certain local answer and no model can try.

A question the local path matched but cannot answer for certain (no sensor of that kind there,
several that fit equally, no weather entity exposed) goes to the model when there is one;
without one, guessing would be worse than saying so. Kept apart from the main table
(:mod:`addon.i18n.translations`) because it belongs to the question forms alone.
"""

from __future__ import annotations

from addon.i18n.codes import base_language

DONT_KNOW = {
    "en": "I don't know that.",
    "de": "Das weiß ich nicht.",
    "fr": "Je ne sais pas.",
    "es": "No lo sé.",
    "nl": "Dat weet ik niet.",
    "it": "Non lo so.",
    "pl": "Nie wiem.",
    "pt": "Não sei.",
}
"""The honest answer, per served language (English for the rest)."""


def dont_know(language: str) -> str:
    """The honest "I don't know that", in ``language`` (English when it is not served)."""
    return DONT_KNOW.get(base_language(language), DONT_KNOW["en"])
