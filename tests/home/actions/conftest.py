"""Fixtures for the intent tests: the hand-built home and a virtual executor over its copy."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from addon.home.actions.handlers import handle_intent
from addon.home.actions.response import IntentResult
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from tests.home.actions.home import build_home

NOW = datetime(2026, 3, 1, 12, 34, 56, tzinfo=UTC)

Run = Callable[..., Awaitable[IntentResult]]


@pytest.fixture
def home() -> HomeModel:
    """The hand-built home; each test gets its own."""
    return build_home()


@pytest.fixture
def virtual(home: HomeModel) -> VirtualExecutor:
    """A virtual executor acting on a copy of ``home`` (``home`` itself never changes)."""
    return VirtualExecutor(home.copy(), clock=lambda: NOW)


@pytest.fixture
def run(virtual: VirtualExecutor) -> Run:
    """Handle an intent against the virtual executor's home, as the agent would."""

    async def call(name: str, slots: dict[str, Any] | None = None, **kwargs: Any) -> IntentResult:
        return await handle_intent(
            name, slots or {}, model=virtual.model, executor=virtual, now=NOW, **kwargs
        )

    return call
