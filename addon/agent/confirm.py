"""Actions held for confirmation, and the user's next words that confirm or cancel them.

A turn whose call the policy held (:mod:`addon.home.actions.confirmation`) ends with a question; the
held actions wait here, by conversation, with the device that asked. Only the next utterance
of the same conversation, or from the same satellite, within ``confirmation_timeout`` seconds
can perform them: a yes (or the PIN) performs exactly what was held, anything else cancels.
Newer Home Assistant releases (2026.x) name both in a Wyoming transcript: a typed "yes" in the
same Assist dialog keeps the conversation id; a satellite woken again for its "yes" starts a new
conversation but names the same device, which is why the satellite answers too. A "yes" from
another conversation and another device answers nothing.
A tool call never reaches here, so a model cannot confirm for the user. Kept in memory, on the
agent: a restart forgets what was held, which cancels it.

Home Assistant 2025.4 tells us neither: its Wyoming client sends the transcript's text alone
(wyoming 1.5.4's ``Transcript.event`` drops the context Home Assistant gives it). Such a
request comes from "the voice pipeline", one anonymous source (:func:`from_voice_pipeline`):
what one of them held waits in a slot of its own, which only the next such request answers.
A turn that says where it comes from (a conversation, a device: HTTP, chat, MCP, a newer
Home Assistant) never answers it, and an anonymous request never answers theirs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from addon.agent.conversation import ConversationRequest
from addon.home.actions.confirmation import ConfirmationPolicy, HeldAction, pin_checks
from addon.i18n.confirmation import (
    Asked,
    asked_question,
    listed,
    says_no,
    says_yes,
    still,
    words_for,
)
from addon.text import JsonObject

Answer = Literal["confirmed", "cancelled", "wrong_pin", "locked"]
PIN_MASK = "••••"
"""What is stored, traced and logged in place of an utterance answering a PIN question."""

MAX_WRONG_PINS = 3
"""Wrong PINs from one conversation or satellite, within :data:`PIN_LOCKOUT`, that lock it out."""
PIN_LOCKOUT = timedelta(minutes=5)
"""How long PIN confirmation stays locked, and how long a wrong PIN is counted."""
PIN_DIGITS = range(3, 13)
"""How many digits an utterance that may be a PIN has: only those are hashed and compared."""

_DIGITS = re.compile(r"\d")
_LETTERS = re.compile(r"[^\W\d_]")


@dataclass(frozen=True, slots=True)
class Pending:
    """What one conversation's last turn held, and who may confirm it until when."""

    conversation_id: str
    device_id: str | None
    held: tuple[HeldAction, ...]
    asked_at: datetime
    anonymous: bool = False
    """Held by a request from the voice pipeline that said nothing of where it came from."""
    satellite_id: str | None = None
    """The satellite that heard the question, when the request named one."""
    dry_run: bool = False
    """Asked in a dry run: the answer performs it virtually, whatever the answering turn is."""

    def heard_by(self, device_id: str | None, satellite_id: str | None) -> bool:
        """Whether a request from this device or satellite comes from where the question was."""
        return (device_id is not None and device_id == self.device_id) or (
            satellite_id is not None and satellite_id == self.satellite_id
        )

    @property
    def pin(self) -> bool:
        """Whether a PIN confirms it (any held action asking for one)."""
        return any(held.method == "pin" for held in self.held)

    def as_dict(self) -> JsonObject:
        """The answer's ``needs_confirmation``: the held actions and how to confirm them."""
        return {
            "actions": [held.as_dict() for held in self.held],
            "method": "pin" if self.pin else "yes",
        }


def from_voice_pipeline(request: ConversationRequest) -> bool:
    """Whether a request is Home Assistant's voice pipeline saying nothing of who speaks.

    Home Assistant 2025.4 sends a Wyoming transcript's text alone: no conversation, no device,
    no satellite. Every such request is one source, so a question asked through it is answered
    by the next one (whichever satellite, or Assist dialog, it came from).
    """
    return request.source == "wyoming" and not (
        request.conversation_id or request.device_id or request.satellite_id
    )


@dataclass(slots=True)
class PendingConfirmations:
    """Held actions by conversation (one question each), and the voice pipeline's one."""

    _by_conversation: dict[str, Pending] = field(default_factory=dict)
    _anonymous: Pending | None = None

    def hold(self, pending: Pending, timeout: float) -> None:
        """Keep ``pending``, replacing what its conversation (or the voice pipeline) held before.

        Questions nobody answered within ``timeout`` are forgotten here, so conversations that
        never come back do not keep theirs.
        """
        stale = [
            key
            for key, kept in self._by_conversation.items()
            if expired(kept, pending.asked_at, timeout)
        ]
        for key in stale:
            del self._by_conversation[key]
        if pending.anonymous:
            self._anonymous = pending
        else:
            self._by_conversation[pending.conversation_id] = pending

    def waiting(
        self,
        conversation_id: str,
        device_id: str | None,
        *,
        satellite_id: str | None = None,
        anonymous: bool = False,
    ) -> Pending | None:
        """What the next utterance of this conversation or satellite answers, if anything.

        A question asked at one satellite is answered only there: the same conversation from
        another device does not see it, while the same satellite in a new conversation does
        (the latest question it heard). An anonymous request (``anonymous``) sees only the
        voice pipeline's question, and only it does.
        """
        if anonymous:
            return self._anonymous
        pending = self._by_conversation.get(conversation_id)
        if pending is None:
            if device_id is None and satellite_id is None:
                return None
            heard = [
                kept
                for kept in self._by_conversation.values()
                if kept.heard_by(device_id, satellite_id)
            ]
            return max(heard, key=lambda kept: kept.asked_at, default=None)
        if pending.device_id is not None and device_id != pending.device_id:
            return None
        return pending

    def restore(self, pending: Pending) -> None:
        """Keep ``pending`` waiting again (a wrong PIN), unless a newer question took its place."""
        if pending.anonymous:
            if self._anonymous is None:
                self._anonymous = pending
        else:
            self._by_conversation.setdefault(pending.conversation_id, pending)

    def take(self, pending: Pending) -> None:
        """Forget ``pending`` (answered, cancelled or expired), if it is still what waits."""
        if pending.anonymous:
            if self._anonymous is pending:
                self._anonymous = None
        elif self._by_conversation.get(pending.conversation_id) is pending:
            del self._by_conversation[pending.conversation_id]


def expired(pending: Pending, now: datetime, timeout: float) -> bool:
    """Whether the question was asked more than ``timeout`` seconds before ``now``."""
    return now - pending.asked_at > timedelta(seconds=timeout)


def supersedes(pending: Pending, text: str, language: str | None) -> bool:
    """Whether ``text`` is a new request rather than an answer to ``pending``.

    An answer is a yes, a no ("no", "cancel", "stop" and their kin in the person's language or
    English), or, to a PIN question, anything with as many digits as a PIN has or more
    (checked as a PIN, and masked, so a PIN said in a sentence never leaks). Anything else
    ("lock the front door", "is it locked?", "set the heating to 21": fewer digits than any
    PIN) cancels the question and is handled as what it is.
    """
    if says_yes(text, language) or says_no(text, language):
        return False
    return not (pending.pin and len(_DIGITS.findall(text)) >= PIN_DIGITS.start)


async def answer_of(pending: Pending, text: str, language: str | None) -> Answer:
    """What the user's words do to the held actions: a PIN is checked against every hash.

    Words without a digit cancel a PIN question; digits that are not the PIN are a wrong PIN.
    (Words that are neither an answer nor a cancel never get here: :func:`supersedes`.)
    """
    if pending.pin:
        digits = "".join(_DIGITS.findall(text))
        if not digits:
            return "cancelled"
        hashes = [held.pin_hash for held in pending.held if held.method == "pin"]
        return "confirmed" if all(await pin_checks(digits, hashes)) else "wrong_pin"
    return "confirmed" if says_yes(text, language) else "cancelled"


def pin_like(text: str) -> str | None:
    """The digits of an utterance that may be a PIN ("4711", "4 7 1 1.", "PIN 4711"), else None.

    Only such utterances are hashed against the policy's PINs (:func:`says_a_pin`): a scrypt
    hash per PIN entry is too dear for every sentence, and a sentence with more letters than
    digits is a request, not a PIN.
    """
    digits = "".join(_DIGITS.findall(text))
    if len(digits) not in PIN_DIGITS or len(_LETTERS.findall(text)) >= len(digits):
        return None
    return digits


async def says_a_pin(text: str, policy: ConfirmationPolicy) -> bool:
    """Whether ``text`` is (or its digits are) the PIN of a switched-on policy entry.

    Such an utterance is masked whether or not a PIN question waits: said too late, to the
    wrong satellite, or by habit, a PIN is still a PIN.
    """
    digits = pin_like(text)
    hashes = policy.pin_hashes
    if digits is None or not hashes:
        return False
    return any(await pin_checks(digits, hashes))


@dataclass(slots=True)
class PinAttempts:
    """Wrong PINs by where they came from, and the sources locked out of PIN confirmation.

    A source is a conversation, a device, a satellite, or the voice pipeline
    (:func:`sources_of`): a satellite woken again starts a new conversation, so counting by
    conversation alone would let it guess on. Three wrong PINs within :data:`PIN_LOCKOUT`
    lock every source of the request for :data:`PIN_LOCKOUT`; a right PIN clears the count.
    """

    _wrong: dict[str, list[datetime]] = field(default_factory=dict)
    _locked: dict[str, datetime] = field(default_factory=dict)

    def locked_until(self, sources: tuple[str, ...], now: datetime) -> datetime | None:
        """When the lockout of any of ``sources`` ends, or None when none is locked out."""
        ends = [self._locked[source] for source in sources if source in self._locked]
        return max((end for end in ends if end > now), default=None)

    def wrong(self, sources: tuple[str, ...], now: datetime) -> datetime | None:
        """Count a wrong PIN; the end of the lockout it starts, or None below the limit."""
        self._forget(now)
        counts = []
        for source in sources:
            recent = [*self._wrong.get(source, ()), now]
            self._wrong[source] = recent
            counts.append(len(recent))
        if max(counts, default=0) < MAX_WRONG_PINS:
            return None
        until = now + PIN_LOCKOUT
        for source in sources:
            self._locked[source] = until
            self._wrong.pop(source, None)
        return until

    def right(self, sources: tuple[str, ...]) -> None:
        """A right PIN: the wrong ones before it no longer count."""
        for source in sources:
            self._wrong.pop(source, None)

    def _forget(self, now: datetime) -> None:
        """Drop wrong PINs and lockouts older than :data:`PIN_LOCKOUT`, so memory stays small."""
        for source, times in list(self._wrong.items()):
            recent = [at for at in times if now - at < PIN_LOCKOUT]
            if recent:
                self._wrong[source] = recent
            else:
                del self._wrong[source]
        for source, until in list(self._locked.items()):
            if until <= now:
                del self._locked[source]


def sources_of(pending: Pending, request: ConversationRequest) -> tuple[str, ...]:
    """Where a PIN answer comes from: its conversation, device, satellite, or the voice pipeline."""
    sources = [f"conversation:{pending.conversation_id}"]
    if request.device_id:
        sources.append(f"device:{request.device_id}")
    if request.satellite_id:
        sources.append(f"satellite:{request.satellite_id}")
    if pending.anonymous:
        sources.append("voice pipeline")
    return tuple(sources)


def question_for(held: tuple[HeldAction, ...], language: str | None) -> str:
    """The question asked for the held actions: each one's verb and the names of its entities."""
    pin = any(action.method == "pin" for action in held)
    asked = [
        # A call on no entity and no group names only its service: said as the action in words.
        Asked(action.domain, action.service, action.names if targeted else (), action.groups)
        for action in held
        for targeted in (bool(action.entity_ids or action.groups),)
    ]
    return asked_question(asked, pin, language)


def reply_for(
    answer: Answer,
    pending: Pending,
    language: str | None,
    *,
    dry_run: bool,
    state_of: Callable[[str], str | None] = lambda entity_id: None,
) -> str:
    """What the agent says to the answer (a dry run's confirmation says nothing changed).

    A cancel says what is true now, read through ``state_of`` (the home's state of an entity):
    "OK, the Front Door is still locked." only when every held lock is locked.
    """
    words = words_for(language)
    if answer == "confirmed":
        return words.confirmed_dry_run if dry_run else words.confirmed
    if answer == "wrong_pin":
        return words.wrong_pin
    if answer == "locked":
        return words.locked_out.format(minutes=int(PIN_LOCKOUT.total_seconds() // 60))
    first = pending.held[0]
    same = [held for held in pending.held if held.domain == first.domain]
    each = list(dict.fromkeys(name for held in same for name in held.names))
    states = [state_of(entity_id) for held in same for entity_id in held.entity_ids]
    return still(first.domain, listed(each, language), states, language, many=len(each) > 1)
