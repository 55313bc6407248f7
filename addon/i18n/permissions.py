"""What the agent says when a person's or a satellite's rule refuses an action, per language.

The action is named as the confirmation question names it (:func:`addon.i18n.confirmation.
action_phrase`, "unlock the Front Door"), after who may not do it: "Kids Room Speaker can't
unlock the Front Door." Never a service id, which a satellite would read aloud.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from addon.i18n.codes import base_language
from addon.i18n.confirmation import action_phrase, listed

REFUSALS: Mapping[str, str] = MappingProxyType(
    {
        "en": "{who} can't {action}.",
        "de": "{who} darf das nicht: {action}.",
        "fr": "{who} ne peut pas {action}.",
        "es": "{who} no puede {action}.",
        "nl": "{who} mag dit niet: {action}.",
        "it": "{who} non può {action}.",
        "pl": "{who} nie może {action}.",
        "pt": "{who} não pode {action}.",
    }
)
"""The refusal per language: ``{who}`` is the rule's name, ``{action}`` the action phrase in the
form that follows another word (lower case where the language writes it so)."""


def refusal(who: str, domain: str, service: str, names: Sequence[str], language: str) -> str:
    """The refusal in ``language`` (English for others): "Kids Room Speaker can't unlock…"."""
    code = base_language(language or "en")
    template = REFUSALS.get(code, REFUSALS["en"])
    phrase = action_phrase(service, domain, listed(names, code), code, after_first=True)
    return template.format(who=who, action=phrase)
