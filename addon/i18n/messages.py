"""The shape of what Home Agent itself says: one :class:`Messages` per language.

The words of the home (device names, Home Assistant's response templates) come from Home
Assistant; these sentences are the product's own: apologies, the reasons a turn failed, what
was done before a turn was cut off. The sentences themselves are in
:mod:`addon.i18n.translations`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from addon.errors import ErrorKind

MAX_NAMES = 4
"""Names spoken in one list before the rest are counted ("A, B, C and 2 more")."""


class Action(StrEnum):
    """What a successful action did to its targets, as far as a spoken summary tells it."""

    TURNED_ON = "turned_on"
    TURNED_OFF = "turned_off"
    TOGGLED = "toggled"
    SET = "set"
    CONTROLLED = "controlled"
    """Anything else that acted on a device (paused, started, moved to a position…)."""


@dataclass(frozen=True, slots=True)
class Done:
    """One kind of action and the names of what it acted on, in the order they were acted on."""

    action: Action
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Messages:
    """Every sentence Home Agent speaks on its own, in one language.

    Fields holding ``{names}``, ``{done}``, ``{count}``, ``{name}`` or ``{state}`` are filled in
    by the methods below; the others are spoken as they are.
    """

    no_model: str
    not_connected: str
    agent_error: str
    invalid_request: str
    llm_timeout: str
    llm_auth: str
    llm_model_not_found: str
    llm_unreachable: str
    llm_rate_limited: str
    llm_failed: str
    iteration_limit: str
    iteration_limit_done: str
    """Said at the iteration limit after some actions succeeded; ``{done}`` lists them."""
    turned_on: str
    turned_off: str
    toggled: str
    set: str
    controlled: str
    and_word: str
    more: str
    """The remainder of a list too long to speak whole: ``{count}`` names."""
    could_not_do: str
    handed_in_dry_run: str
    delayed_command_refused: str
    """A timer with a command ("in 10 minutes unlock the door") whose command cannot be done
    now without asking first: Home Assistant would run it later past the confirmation policy."""
    """A timer or broadcast in a dry run: only Home Assistant serves it, and nothing is sent."""
    done: str
    state_is: str
    expert_timeout: str
    """The expert tool's errors, read by the main model (which may tell the user)."""
    expert_unreachable: str
    expert_refused: str
    """The expert endpoint rejected the key or does not know the model: its settings."""
    expert_failed: str

    def for_error(self, kind: ErrorKind) -> str:
        """The apology for a turn that failed for ``kind``."""
        return {
            ErrorKind.LLM_TIMEOUT: self.llm_timeout,
            ErrorKind.LLM_AUTH: self.llm_auth,
            ErrorKind.LLM_MODEL_NOT_FOUND: self.llm_model_not_found,
            ErrorKind.LLM_UNREACHABLE: self.llm_unreachable,
            ErrorKind.LLM_RATE_LIMITED: self.llm_rate_limited,
            ErrorKind.ITERATION_LIMIT: self.iteration_limit,
            ErrorKind.NO_MODEL: self.no_model,
            ErrorKind.NOT_CONNECTED: self.not_connected,
            ErrorKind.INTENT_FAILED: self.could_not_do,
        }.get(kind, self.llm_failed)

    def for_expert_error(self, kind: ErrorKind) -> str:
        """What the expert tool answers when asking the expert failed for ``kind``."""
        return {
            ErrorKind.LLM_TIMEOUT: self.expert_timeout,
            ErrorKind.LLM_UNREACHABLE: self.expert_unreachable,
            ErrorKind.LLM_AUTH: self.expert_refused,
            ErrorKind.LLM_MODEL_NOT_FOUND: self.expert_refused,
        }.get(kind, self.expert_failed)

    def join(self, items: Sequence[str], *, cut: bool = True) -> str:
        """'A', 'A and B', 'A, B and C'; past :data:`MAX_NAMES` (if ``cut``), three and a count."""
        if cut and len(items) > MAX_NAMES:
            items = [*items[:3], self.more.format(count=len(items) - 3)]
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.and_word} {items[-1]}"

    def did(self, done: Done) -> str:
        """One action in words: "turned on Kitchen Lights and Porch"."""
        template = {
            Action.TURNED_ON: self.turned_on,
            Action.TURNED_OFF: self.turned_off,
            Action.TOGGLED: self.toggled,
            Action.SET: self.set,
            Action.CONTROLLED: self.controlled,
        }[done.action]
        return template.format(names=self.join(done.names))

    def stopped_at_limit(self, done: Sequence[Done]) -> str:
        """The reply at the iteration limit: what was done so far, or the plain apology."""
        if not done:
            return self.iteration_limit
        clauses = [self.did(item) for item in done]
        return _sentence(self.iteration_limit_done.format(done=self.join(clauses, cut=False)))

    def acted(self, done: Done) -> str:
        """A short sentence for one action on its own ("Turned on Kitchen Lights")."""
        return _sentence(self.did(done))

    def state(self, name: str, state: str) -> str:
        """'Kitchen Lights is on'."""
        return self.state_is.format(name=name, state=state)


def _sentence(text: str) -> str:
    """``text`` with its first letter capitalised; names inside keep their own case."""
    return text[:1].upper() + text[1:]
