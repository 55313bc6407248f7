"""The model endpoint as an app resource: built from the options, closed at shutdown."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from addon import keys
from addon.health import ComponentHealth
from addon.llm.client import LLMClient


async def _not_configured() -> ComponentHealth:
    return ComponentHealth("not_configured", "no llm_base_url set; only local commands work")


async def llm_ctx(app: web.Application) -> AsyncIterator[None]:
    """Create the client when an endpoint is configured; without one the agent runs local-only."""
    options = app[keys.SETTINGS].options
    client: LLMClient | None = None
    if options.llm_base_url:
        client = LLMClient(
            base_url=options.llm_base_url,
            api_key=options.llm_api_key.get_secret_value(),
            model=options.llm_model,
            temperature=options.temperature,
            timeout=float(options.request_timeout),
        )
        app[keys.HEALTH].register("llm", client.health)
    else:
        app[keys.HEALTH].register("llm", _not_configured)
    app[keys.LLM] = client
    try:
        yield
    finally:
        app[keys.HEALTH].unregister("llm")
        if client is not None:
            await client.close()
