"""What the dashboard shows, gathered from health, the Home Assistant link and the store.

Kept apart from the view so the view stays "parse, call, render" and this can be read (and
timed) on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Literal

from aiohttp import web

from addon import keys
from addon.health import ComponentHealth
from addon.store.queries import (
    HandledShare,
    Resolution,
    TurnSummary,
    confirmations_since,
    conversations_since,
    handled_share,
    latency_buckets,
    recent_failures,
    recent_flags,
)
from addon.web.ui.plots import Plot, latency_plot, slots, tokens_plot

Span = Literal["day", "month"]
SHARE_DAYS = 7
LIST_DAYS = 7
# (bucket size, bucket count, store resolution, caption) per span the dashboard offers.
SPANS: dict[Span, tuple[timedelta, int, Resolution, str]] = {
    "day": (timedelta(hours=1), 24, "hour", "per hour, last 24 hours"),
    "month": (timedelta(days=1), 30, "day", "per day, last 30 days"),
}


@dataclass(frozen=True, slots=True)
class Status:
    """One link's state as a badge: ``level`` is ok, warn or error."""

    level: str
    label: str
    detail: str


@dataclass(frozen=True, slots=True)
class Dashboard:
    """Everything the dashboard page renders."""

    home_assistant: Status
    model: Status
    backup: Status | None
    """The fallback endpoint's state, when one is configured."""
    expert: Status | None
    """The expert model's state, when one is configured."""
    store: Status
    conversations_today: int
    share: HandledShare
    share_days: int
    span: Span
    caption: str
    latency: Plot
    tokens: Plot
    failures: list[TurnSummary]
    flags: list[TurnSummary]
    list_days: int
    confirmations: dict[str, int]
    """Actions held for confirmation in the last ``share_days``, by what became of them."""


async def load_dashboard(app: web.Application, tz: tzinfo, span: Span) -> Dashboard:
    """Read health and the store once; every query is bounded by a time window."""
    _healthy, components = await app[keys.HEALTH].report()
    now = datetime.now(tz)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    step, count, resolution, caption = SPANS[span]
    starts = slots(now.replace(tzinfo=None), count, step)
    window_start = starts[0].replace(tzinfo=tz)
    offset = now.utcoffset() or timedelta(0)
    database = app[keys.STORE]
    await database.writer.flush()  # turns just answered are shown too
    async with database.sessionmaker() as session:
        today = await conversations_since(session, midnight)
        share = await handled_share(session, now - timedelta(days=SHARE_DAYS))
        buckets = await latency_buckets(
            session, window_start, resolution, int(offset.total_seconds() // 60)
        )
        failures = await recent_failures(session, now - timedelta(days=LIST_DAYS))
        flags = await recent_flags(session, now - timedelta(days=LIST_DAYS))
        confirmations = await confirmations_since(session, now - timedelta(days=SHARE_DAYS))
    llm = components.get("llm")
    store = components.get("store")
    return Dashboard(
        home_assistant=_home_assistant_status(app),
        model=_status(llm.status if llm else "down", llm.detail if llm else "not started"),
        backup=_optional(components.get("llm_backup")),
        expert=_optional(components.get("llm_expert")),
        store=_status(store.status if store else "down", store.detail if store else ""),
        conversations_today=today,
        share=share,
        share_days=SHARE_DAYS,
        span=span,
        caption=caption,
        latency=latency_plot(f"Turn latency, {caption}", starts, buckets),
        tokens=tokens_plot(f"Model tokens, {caption}", starts, buckets),
        failures=failures,
        flags=flags,
        list_days=LIST_DAYS,
        confirmations=confirmations,
    )


def _home_assistant_status(app: web.Application) -> Status:
    client = app[keys.HA_CLIENT]
    if client.connected:
        model = app[keys.HOME_SYNC].model
        exposed = len(model.exposed_entities()) if model is not None else 0
        return Status("ok", "connected", f"{exposed} entities exposed to Assist")
    return Status("error", "not connected", client.last_error or "connecting")


def _status(status: str, detail: str) -> Status:
    level = {"ok": "ok", "degraded": "warn", "not_configured": "warn"}.get(status, "error")
    label = status.replace("_", " ")
    return Status(level, label, detail)


def _optional(health: ComponentHealth | None) -> Status | None:
    return _status(health.status, health.detail) if health is not None else None
