"""The rules that keep secrets, passing states, the time, the weather and trivia out of memory."""

from __future__ import annotations

import pytest

from addon.memory.candidates import MemoryKind, candidate
from addon.memory.rules import RejectReason, check, screen


def reason(text: str, kind: MemoryKind = MemoryKind.FACT) -> RejectReason | None:
    """Why ``text`` is rejected, or None when it is kept."""
    rejection = check(candidate(text, kind, 0.5))
    return None if rejection is None else rejection.reason


@pytest.mark.parametrize(
    "text",
    [
        "The alarm code is 4821.",
        "4821 is the code for the garage door.",
        "The front door PIN is 1 2 3 4.",
        "The wifi password is hunter2.",
        "Anna's API key is stored in the office.",
        "The OpenAI key is sk-proj-abcdefghijklmnopqrstuvwx.",
        "The GitHub token ghp_abcdefghijklmnopqrstuvwx1234 is in use.",
        "Der Alarmcode lautet 4821.",
        "Die PIN der Haustür ist 1234.",
        "Das WLAN-Passwort ist Sonne123.",
        "Le code de la porte est 1234.",
        "La contraseña del wifi es gato99.",
        "Het wachtwoord van de router is kat2024.",
        "Il codice dell'allarme è 4821.",
        "Kod do alarmu to 4821.",
        "A senha do alarme é 4821.",
    ],
)
def test_secrets_are_rejected(text: str) -> None:
    """Passwords, keys, tokens, codes and PINs in any of the languages are never kept."""
    assert reason(text) is RejectReason.SECRET


def test_secret_rejection_does_not_repeat_the_secret() -> None:
    """The rejection keeps neither the text nor the code, so traces and logs cannot leak it."""
    rejection = check(candidate("The alarm code is 4821.", MemoryKind.FACT, 0.9))
    assert rejection is not None
    assert rejection.content is None
    assert "4821" not in repr(rejection)


@pytest.mark.parametrize(
    "text",
    [
        "The living room light is on now.",
        "The garage door is open.",
        "The TV in the lounge is currently playing.",
        "Das Licht im Flur ist gerade an.",
        "Die Haustür ist offen.",
        "La lumière du salon est allumée.",
    ],
)
def test_transient_states_are_rejected(text: str) -> None:
    """What holds only at the moment is the home's live state, not a memory."""
    assert reason(text, MemoryKind.CONTEXT) is RejectReason.TRANSIENT


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is 3 pm in the afternoon.", RejectReason.TIME),
        ("Today is Monday, the user said.", RejectReason.TIME),
        ("Es ist 15 Uhr am Nachmittag.", RejectReason.TIME),
        ("The weather is sunny and warm today.", RejectReason.WEATHER),
        ("It is raining in the garden.", RejectReason.WEATHER),
        ("Morgen regnet es den ganzen Tag.", RejectReason.WEATHER),
    ],
)
def test_time_and_weather_are_rejected(text: str, expected: RejectReason) -> None:
    """The clock and the sky change by themselves; they are never remembered."""
    assert reason(text, MemoryKind.CONTEXT) is expected


@pytest.mark.parametrize(
    "text",
    [
        "Thanks!",
        "Ok",
        "Hello there, good to see you.",
        "The user said thank you for the help.",
        "Danke schön für die Hilfe heute.",
        "What is the temperature in the kitchen?",
        "The user asked which lights are on.",
    ],
)
def test_trivia_is_rejected(text: str) -> None:
    """Greetings, thanks, very short text and questions are not memories."""
    assert reason(text, MemoryKind.EVENT) is RejectReason.TRIVIA


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The cat is called Miso.", MemoryKind.FACT),
        ("Anna is an engineer who works from home on Fridays.", MemoryKind.FACT),
        ("Anna wakes up at 6:30 on weekdays.", MemoryKind.PREFERENCE),
        ("The back door is locked every night at 22:00.", MemoryKind.FACT),
        ("Guests are staying in the guest room until Sunday.", MemoryKind.CONTEXT),
        ("The boiler was serviced on 3 May 2026.", MemoryKind.EVENT),
        ("Die Katze heißt Miso und schläft in der Küche.", MemoryKind.FACT),
        ("Anna prefers the bedroom at 19 degrees at night.", MemoryKind.PREFERENCE),
    ],
)
def test_worthwhile_memories_are_kept(text: str, kind: MemoryKind) -> None:
    """Facts, habits, plans and events pass every rule."""
    assert reason(text, kind) is None


def test_screen_keeps_order_and_gives_each_rejection_its_reason() -> None:
    """A batch splits into the kept ones, in order, and the rejections with reasons."""
    batch = (
        candidate("The cat is called Miso.", "fact", 0.7),
        candidate("The light is on now.", "context", 0.2),
        candidate("The door code is 1234.", "fact", 0.9),
        candidate("Anna likes jazz in the morning.", "preference", 0.5),
    )
    kept, rejected = screen(batch)
    assert [c.content for c in kept] == [
        "The cat is called Miso.",
        "Anna likes jazz in the morning.",
    ]
    assert [(r.content, r.reason) for r in rejected] == [
        ("The light is on now.", RejectReason.TRANSIENT),
        (None, RejectReason.SECRET),
    ]


def test_a_candidate_longer_than_2000_characters_is_refused_unscreened() -> None:
    """Nothing longer than the panel's limit reaches the patterns; its text is not kept."""
    rejection = check(candidate("code-" * 4800, MemoryKind.FACT, 0.5))
    assert rejection is not None
    assert (rejection.reason, rejection.content) == (RejectReason.TOO_LONG, None)


def test_a_long_mixed_run_is_still_key_like() -> None:
    """The key rule, now one scan per run, still finds a long letters-and-digits token."""
    rejection = check(candidate("remember abcdefghij0123456789xyz please", MemoryKind.FACT, 0.5))
    assert rejection is not None
    assert rejection.reason is RejectReason.SECRET
