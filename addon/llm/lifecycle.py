"""The model endpoints as app resources: built from the options, closed at shutdown.

The main endpoint, its backup (the fallback) and the expert, each health-checked on its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from addon import keys
from addon.config.settings import Options
from addon.health import ComponentHealth, HealthCheck
from addon.llm.client import DEFAULT_RETRIES, LLMClient
from addon.llm.fallback import Fallback


async def _not_configured() -> ComponentHealth:
    return ComponentHealth("not_configured", "no llm_base_url set; only local commands work")


async def llm_ctx(app: web.Application) -> AsyncIterator[None]:
    """Create the clients whose endpoints are configured; without one the agent runs local-only.

    With a backup, the main client does not retry on its own: the backup is its retry, and a
    voice user should not wait through backoffs (or three timeouts) before it is asked.
    """
    options = app[keys.SETTINGS].options
    health = app[keys.HEALTH]
    client: LLMClient | None = None
    fallback: Fallback | None = None
    expert: LLMClient | None = None
    if options.llm_base_url:
        client = LLMClient(
            base_url=options.llm_base_url,
            api_key=options.llm_api_key.get_secret_value(),
            model=options.llm_model,
            temperature=options.temperature,
            timeout=float(options.request_timeout),
            max_retries=0 if options.fallback_base_url else DEFAULT_RETRIES,
        )
        if options.fallback_base_url:
            fallback = Fallback(backup_client(options))
        health.register("llm", _primary_check(client, fallback))
    else:
        health.register("llm", _not_configured)
    if fallback is not None:
        health.register("llm_backup", fallback.backup.health)
    if options.llm_base_url and options.expert_base_url:
        expert = expert_client(options)
        health.register("llm_expert", expert.health)
    app[keys.LLM] = client
    app[keys.LLM_FALLBACK] = fallback
    app[keys.LLM_EXPERT] = expert
    try:
        yield
    finally:
        for name in ("llm", "llm_backup", "llm_expert"):
            health.unregister(name)
        for opened in (client, fallback.backup if fallback else None, expert):
            if opened is not None:
                await opened.close()


def backup_client(options: Options) -> LLMClient:
    """The backup endpoint's client; an empty model name means the main model's."""
    return LLMClient(
        base_url=options.fallback_base_url,
        api_key=options.fallback_api_key.get_secret_value(),
        model=options.fallback_model or options.llm_model,
        temperature=options.temperature,
        timeout=float(options.request_timeout),
    )


def expert_client(options: Options) -> LLMClient:
    """The expert's client, with its own timeout and no retries: the timeout is the promise."""
    return LLMClient(
        base_url=options.expert_base_url,
        api_key=options.expert_api_key.get_secret_value(),
        model=options.expert_model or options.llm_model,
        temperature=options.temperature,
        timeout=float(options.expert_timeout),
        max_retries=0,
    )


def _primary_check(client: LLMClient, fallback: Fallback | None) -> HealthCheck:
    if fallback is None:
        return client.health

    async def check() -> ComponentHealth:
        return await fallback.primary_health(client)

    return check
