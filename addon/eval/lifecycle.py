"""Evaluation as an app resource: runs cut off by a restart are marked, runs in progress stop."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from addon import keys
from addon.agent.lifecycle import compiled_policy
from addon.eval.service import Evaluations


async def eval_ctx(app: web.Application) -> AsyncIterator[None]:
    """Hold the evaluation runner for the app's lifetime; needs only the store and the options."""
    evaluations = Evaluations(
        app[keys.STORE],
        app[keys.SETTINGS].options,
        sentences=app[keys.SENTENCES],
        confirmation=compiled_policy(app[keys.CONFIRMATION_POLICY]),
    )
    await evaluations.recover()
    app[keys.EVALUATIONS] = evaluations
    try:
        yield
    finally:
        await evaluations.close()
