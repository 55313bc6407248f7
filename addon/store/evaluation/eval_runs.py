"""Evaluation runs: created when a run starts, a result appended per task, finished or interrupted.

The results are the runner's plain mappings (``addon.eval.runner.TaskResult.as_dict``): the store
imports nothing above it, so it keeps them as given and hands them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import EvalRun, utcnow
from addon.store.rows import record_of, stored_row
from addon.text import JsonValue

RunStatus = Literal["running", "done", "failed", "interrupted"]


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A run as the pages show it."""

    id: int
    created_at: datetime
    finished_at: datetime | None
    status: str
    name: str
    settings: Mapping[str, JsonValue]
    total: int
    passed: int
    results: tuple[Mapping[str, JsonValue], ...]
    error: str | None
    tasks_text: str

    @property
    def done(self) -> int:
        """How many tasks have a result."""
        return len(self.results)


def _stored(row: EvalRun) -> StoredRun:
    return record_of(
        StoredRun, row, settings=dict(row.settings or {}), results=tuple(row.results or ())
    )


async def create_run(
    session: AsyncSession,
    *,
    name: str,
    settings: Mapping[str, JsonValue],
    total: int,
    tasks_text: str,
) -> int:
    """A new run, ``running``, with no results yet; returns its id."""
    row = EvalRun(
        name=name[:200],
        settings=dict(settings),
        total=total,
        tasks_text=tasks_text,
        status="running",
        results=[],
        passed=0,
    )
    session.add(row)
    await session.flush()
    return row.id


async def add_result(session: AsyncSession, run_id: int, result: Mapping[str, JsonValue]) -> None:
    """Append one task's result (its ``passed`` counts towards the run's)."""
    row = await _row(session, run_id)
    row.results = [*(row.results or []), dict(result)]
    row.passed += bool(result.get("passed"))


async def finish_run(
    session: AsyncSession, run_id: int, status: RunStatus, error: str | None = None
) -> None:
    """Close the run as ``done``, ``failed`` (with why) or ``interrupted``."""
    row = await _row(session, run_id)
    row.status = status
    row.error = error
    row.finished_at = utcnow()


async def interrupt_running(session: AsyncSession) -> int:
    """Mark every run still ``running`` as interrupted (the add-on restarted); returns how many."""
    found = await session.execute(
        update(EvalRun)
        .where(EvalRun.status == "running")
        .values(status="interrupted", finished_at=utcnow(), error="the add-on restarted mid-run")
    )
    return int(getattr(found, "rowcount", 0) or 0)


async def get_run(session: AsyncSession, run_id: int) -> StoredRun:
    """One run; :class:`NotFoundError` if there is none of that id."""
    return _stored(await _row(session, run_id))


async def list_runs(session: AsyncSession, limit: int = 200) -> list[StoredRun]:
    """The latest runs first."""
    rows = await session.scalars(select(EvalRun).order_by(EvalRun.id.desc()).limit(limit))
    return [_stored(row) for row in rows]


async def _row(session: AsyncSession, run_id: int) -> EvalRun:
    return await stored_row(session, EvalRun, run_id, f"There is no evaluation run {run_id}.")
