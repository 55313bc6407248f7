"""Polling for conditions that offer no event to wait on (a model's state, a counter)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    """Return once ``condition()`` holds; fail with TimeoutError after ``seconds``."""
    async with asyncio.timeout(seconds):
        while not condition():  # noqa: ASYNC110 - the state itself is all there is to watch
            await asyncio.sleep(0.01)
