"""The user's saved tests: tasks made from turns with "Save as test", kept until deleted.

Each task is the task file's plain mapping (``addon.eval.tasks.TaskSpec``'s fields), kept as
given: the store imports nothing above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from addon.errors import NotFoundError
from addon.store.models import EvalTask, Turn
from addon.text import JsonValue


@dataclass(frozen=True, slots=True)
class SavedTask:
    """A saved test as the pages show it."""

    id: int
    created_at: datetime
    turn_id: int | None
    task: Mapping[str, JsonValue]


async def save_task(
    session: AsyncSession, task: Mapping[str, JsonValue], turn_id: int | None
) -> int:
    """Keep ``task``; its id."""
    row = EvalTask(task=dict(task), turn_id=turn_id)
    session.add(row)
    await session.flush()
    return row.id


async def list_tasks(session: AsyncSession) -> list[SavedTask]:
    """Every saved test, the oldest first (the order they run in)."""
    rows = (await session.execute(select(EvalTask).order_by(EvalTask.id))).scalars()
    return [SavedTask(row.id, row.created_at, row.turn_id, dict(row.task or {})) for row in rows]


async def delete_task(session: AsyncSession, task_id: int) -> None:
    """Delete a saved test; NotFoundError when there is none with that id."""
    result = await session.execute(delete(EvalTask).where(EvalTask.id == task_id))
    if not getattr(result, "rowcount", 0):
        raise NotFoundError(f"no saved test {task_id}")


@dataclass(frozen=True, slots=True)
class TurnForTest:
    """What "Save as test" reads of a stored turn."""

    id: int
    user_text: str
    reply_text: str
    states: Mapping[str, JsonValue] | None
    outcome_detail: Mapping[str, JsonValue]
    tool_results: tuple[Mapping[str, JsonValue], ...]


async def turn_for_test(session: AsyncSession, turn_id: int) -> TurnForTest:
    """The turn ``turn_id`` with its tool calls' results; NotFoundError when there is none."""
    turn = await session.get(Turn, turn_id, options=[selectinload(Turn.tool_calls)])
    if turn is None:
        raise NotFoundError(f"There is no turn {turn_id}.")
    return TurnForTest(
        id=turn.id,
        user_text=turn.user_text,
        reply_text=turn.reply_text,
        states=turn.states,
        outcome_detail=dict(turn.outcome_detail or {}),
        tool_results=tuple(dict(call.result or {}) for call in turn.tool_calls),
    )
