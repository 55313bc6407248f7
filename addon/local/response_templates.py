"""One language's response templates from ``home-assistant-intents``, compiled and rendered.

Kept apart from :mod:`addon.local.responses`, which decides what to say for a result: the
matcher loads the templates with the sentences and hands them on with each match, and the
responses read the match, so neither of those two needs to import the other both ways.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

_LOGGER = logging.getLogger(__name__)


_ERRORS = "errors"
"""Where the error templates sit among the intents' responses (a name no intent has)."""


class ResponseTemplates:
    """One language's response templates, each compiled on first use and then kept.

    ``errors`` are Home Assistant's error templates (``responses.errors`` of the intents
    data), rendered with :meth:`render_error`.
    """

    def __init__(
        self,
        responses: Mapping[str, Mapping[str, str]],
        errors: Mapping[str, str] | None = None,
    ) -> None:
        self._responses = {**responses, _ERRORS: errors or {}}
        # StrictUndefined: a variable our result lacks fails the render (and we fall back)
        # instead of leaving a hole in the sentence ("Turned on None", "Added ").
        self._environment = ImmutableSandboxedEnvironment(
            autoescape=False, undefined=jinja2.StrictUndefined
        )
        # Error templates test variables Home Assistant's agent does not always pass
        # ("{% if domain in translations %}" beside a state): as in Home Assistant, an
        # undefined one is empty and false there, and the template's other branch is said.
        self._lenient = ImmutableSandboxedEnvironment(autoescape=False)
        self._compiled: dict[tuple[str, str], jinja2.Template | None] = {}

    def render(self, intent: str, key: str, variables: Mapping[str, object]) -> str | None:
        """The rendered, whitespace-collapsed speech; None when missing or failing.

        An empty rendering is kept: HassNevermind's template is "" on purpose (say nothing).
        """
        template = self._template(intent, key)
        if template is None:
            return None
        try:
            text = template.render(variables)
        except (jinja2.TemplateError, TypeError, ValueError, AttributeError, LookupError):
            # A template that needs something our result lacks (an attribute HA would have)
            # must not cost the user an answer: the caller falls back to plain words.
            _LOGGER.debug("Response template %s/%s failed", intent, key, exc_info=True)
            return None
        return " ".join(text.split())

    def render_error(self, key: str, variables: Mapping[str, object]) -> str | None:
        """Home Assistant's error sentence ``key`` with ``variables``; None when missing or failing.

        An empty rendering counts as failing: a failure must be said.
        """
        return self.render(_ERRORS, key, variables) or None

    def _template(self, intent: str, key: str) -> jinja2.Template | None:
        """The compiled template, compiling it the first time it is asked for."""
        cache_key = (intent, key)
        if cache_key not in self._compiled:
            source = self._responses.get(intent, {}).get(key)
            environment = self._lenient if intent == _ERRORS else self._environment
            compiled: jinja2.Template | None = None
            if source is not None:
                try:
                    compiled = environment.from_string(source)
                except jinja2.TemplateSyntaxError:
                    _LOGGER.warning("Response template %s/%s does not compile", intent, key)
            self._compiled[cache_key] = compiled
        return self._compiled[cache_key]
