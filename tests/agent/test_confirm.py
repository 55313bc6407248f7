"""Who may answer a held question: the same conversation, or the satellite that heard it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from addon.agent.confirm import Pending, PendingConfirmations, question_for
from addon.agent.turn_setup import TurnSetup
from addon.home.actions.confirmation import ConfirmationPolicy, HeldAction, PolicyEntry
from addon.home.model.live import HomeModel

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


@pytest.mark.parametrize(
    ("language", "asked"),
    [
        ("en", "Turn off the Living Room (area) and upper floor (floor)? Say yes to confirm."),
        (
            "de",
            "Living Room (Bereich) und upper floor (Etage) ausschalten? Sag ja, um zu bestätigen.",
        ),
    ],
)
def test_a_call_on_an_area_is_asked_by_the_areas_name(
    demo_model: HomeModel, language: str, asked: str
) -> None:
    """A held call on an area and a floor names them as the home calls them, never by id.

    The floor is not in the home (so what it holds cannot be known, which holds the call); its
    id is said in words.
    """
    policy = ConfirmationPolicy.of([PolicyEntry(1, "domain", "light", ("turn_off",))])
    holds = TurnSetup(None, lambda: policy).holds(demo_model)
    assert holds is not None
    groups = {"area_id": ["living_room"], "floor_id": ["upper_floor"]}
    held = holds.check("light", "turn_off", [], {}, groups=groups)
    assert held is not None
    assert question_for((held,), language) == asked


@pytest.mark.parametrize(
    ("domain", "service", "asked"),
    [
        ("homeassistant", "restart", "Run homeassistant restart? Say yes to confirm."),
        ("mcp", "notes__clear_notes", "Run notes clear notes? Say yes to confirm."),
    ],
)
def test_a_call_on_nothing_named_is_asked_as_the_action_in_words(
    domain: str, service: str, asked: str
) -> None:
    """A held action with no target (a domain's entry, an MCP tool) is said, never its id."""
    policy = ConfirmationPolicy.of([PolicyEntry(1, "domain", domain, (service,))])
    held = TurnSetup(None, lambda: policy).holds(None)
    assert held is not None
    action = held.check(domain, service, [], {})
    assert action is not None
    assert question_for((action,), "en") == asked
