"""Waiting in tests without trusting the clock.

``until`` polls a condition that offers no event to wait on (a model's state, a counter).
:class:`Pauses` stands in for :func:`asyncio.sleep` in the code under test: each pause is
reported to the test, which sees how long the code meant to wait and decides when that time
has passed. A check such as "not retried for 300 s" then holds by construction, since the
code is parked in the pause, instead of being inferred from a short real wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

# Only bounds a test whose awaited event never comes; no assertion rests on it, so it is
# generous: a loaded 2-core machine can take seconds for what usually takes milliseconds.
PATIENCE_S = 30.0


async def until(condition: Callable[[], bool], seconds: float = PATIENCE_S) -> None:
    """Return once ``condition()`` holds; fail with TimeoutError after ``seconds``."""
    async with asyncio.timeout(seconds):
        while not condition():  # noqa: ASYNC110 - the state itself is all there is to watch
            await asyncio.sleep(0.01)


@dataclass(slots=True)
class Pause:
    """One pause the code under test asked for, held until :meth:`end`."""

    seconds: float
    ended: asyncio.Future[None] = field(repr=False)

    def end(self) -> None:
        """Let the pause return, as if ``seconds`` had passed."""
        if not self.ended.done():
            self.ended.set_result(None)


@dataclass(slots=True)
class Pauses:
    """A stand-in for :func:`asyncio.sleep` whose pauses the test ends."""

    asked: list[float] = field(default_factory=list)
    _pending: asyncio.Queue[Pause] = field(default_factory=asyncio.Queue)

    async def __call__(self, seconds: float) -> None:
        pause = Pause(seconds, asyncio.get_running_loop().create_future())
        self.asked.append(seconds)
        self._pending.put_nowait(pause)
        await pause.ended

    async def next(self) -> Pause:
        """The next pause the code asks for (it is waiting in it now); TimeoutError if none."""
        async with asyncio.timeout(PATIENCE_S):
            return await self._pending.get()
