"""Who may answer a held question: the same conversation, or the satellite that heard it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from addon.agent.confirm import Pending, PendingConfirmations
from addon.home.actions.confirmation import HeldAction

ASKED = datetime(2026, 11, 28, 7, 0, tzinfo=UTC)
UNLOCK = HeldAction(
    domain="lock",
    service="unlock",
    entity_ids=("lock.front_door",),
    data={},
    names=("Front Door",),
    method="yes",
)


def held_at(conversation_id: str, device_id: str | None, satellite_id: str | None) -> Pending:
    """The unlock, asked in ``conversation_id`` at a device and satellite."""
    return Pending(conversation_id, device_id, (UNLOCK,), ASKED, satellite_id=satellite_id)


def pending_with(*held: Pending) -> PendingConfirmations:
    """Confirmations holding ``held``, none expired."""
    pending = PendingConfirmations()
    for each in held:
        pending.hold(each, timeout=60)
    return pending


def test_the_same_conversation_answers() -> None:
    """A typed "yes" in the dialog that asked (no device) answers the question."""
    question = held_at("dialog", None, None)
    assert pending_with(question).waiting("dialog", None) is question


def test_another_conversation_without_a_device_answers_nothing() -> None:
    """A "yes" in another Assist dialog does not see the question."""
    assert pending_with(held_at("dialog", None, None)).waiting("other", None) is None


def test_the_same_satellite_in_a_new_conversation_answers() -> None:
    """Woken again for its "yes", the hall satellite starts a new conversation and still answers."""
    question = held_at("first", "hall-device", "assist_satellite.hall")
    confirmations = pending_with(question)
    assert confirmations.waiting("second", "hall-device") is question
    assert confirmations.waiting("third", None, satellite_id="assist_satellite.hall") is question


def test_another_satellite_in_a_new_conversation_answers_nothing() -> None:
    """The garden satellite's "yes" does not answer what the hall satellite asked."""
    confirmations = pending_with(held_at("first", "hall-device", "assist_satellite.hall"))
    assert (
        confirmations.waiting("second", "garden-device", satellite_id="assist_satellite.garden")
        is None
    )


def test_the_same_conversation_from_another_device_answers_nothing() -> None:
    """A question asked at one satellite is not answered from another, even in its conversation."""
    confirmations = pending_with(held_at("first", "hall-device", None))
    assert confirmations.waiting("first", "garden-device") is None


def test_a_satellite_answers_its_latest_question() -> None:
    """Two questions heard by one satellite: a "yes" in a new conversation answers the latest."""
    older = held_at("first", "hall-device", None)
    newer = Pending("second", "hall-device", (UNLOCK,), ASKED + timedelta(seconds=5))
    confirmations = pending_with(older, newer)
    assert confirmations.waiting("third", "hall-device") is newer
