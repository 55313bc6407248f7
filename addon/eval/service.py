"""Evaluation runs in the background of the add-on, stored as they go.

A run is created in the store, then runs in its own task (one run at a time: they share two
cores with the turns people are waiting for), appending each task's result as it finishes, so a
page shows progress by reading the store and a reload loses nothing. A run cut off by a
shutdown is marked ``interrupted``; one still ``running`` at start (the add-on died) is marked so
by :meth:`Evaluations.recover`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError

from addon.config.settings import Options
from addon.eval.runner import Evaluation, RunSettings, TaskResult, make_llm
from addon.eval.tasks import TaskFile
from addon.home.actions.confirmation import ConfirmationPolicy
from addon.local.library import SentenceLibrary
from addon.local.matcher import LocalMatcher
from addon.store.database import Store
from addon.store.evaluation import eval_runs
from addon.store.turns import ConversationRecords

_LOGGER = logging.getLogger(__name__)


@dataclass(slots=True)
class Evaluations:
    """Starts runs and keeps their tasks; the app holds one."""

    store: Store
    options: Options
    sentences: SentenceLibrary = field(default_factory=SentenceLibrary)
    """Parsed sentences, shared with the agent's matcher (the app's)."""
    confirmation: Callable[[], ConfirmationPolicy] | None = None
    """The app's confirmation policy: a run holds what the live agent would hold."""
    _local: LocalMatcher | None = field(init=False, default=None)
    _tasks: dict[int, asyncio.Task[None]] = field(init=False, default_factory=dict)
    _one_at_a_time: asyncio.Lock = field(init=False, default_factory=asyncio.Lock)

    async def recover(self) -> int:
        """Mark runs left ``running`` by an earlier process as interrupted; returns how many."""
        async with self.store.sessionmaker.begin() as session:
            count = await eval_runs.interrupt_running(session)
        if count:
            _LOGGER.warning("%d evaluation run(s) were cut off by a restart", count)
        return count

    async def start(
        self, task_file: TaskFile, text: str, settings: RunSettings, *, api_key: str | None = None
    ) -> int:
        """Store a new run and start it in the background; returns its id.

        ``api_key`` is a candidate endpoint's key: used for the run, never stored.
        """
        async with self.store.sessionmaker.begin() as session:
            run_id = await eval_runs.create_run(
                session,
                name=task_file.name,
                settings=settings.as_dict(),
                total=len(task_file.tasks),
                tasks_text=text,
            )
        task = asyncio.create_task(
            self._run(run_id, task_file, settings, api_key), name=f"eval-{run_id}"
        )
        self._tasks[run_id] = task
        task.add_done_callback(lambda _task: self._tasks.pop(run_id, None))
        _LOGGER.info(
            "Evaluation run %d started: %d tasks, %s", run_id, len(task_file.tasks), settings
        )
        return run_id

    async def wait(self, run_id: int) -> None:
        """Wait for a run of this process to end (at once if it is not running)."""
        task = self._tasks.get(run_id)
        if task is not None:
            await asyncio.wait([task])

    async def close(self) -> None:
        """Cancel the runs in progress; each is marked interrupted as it stops."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _run(
        self, run_id: int, task_file: TaskFile, settings: RunSettings, api_key: str | None
    ) -> None:
        llm = make_llm(self.options, settings.model, base_url=settings.base_url, api_key=api_key)
        try:
            async with self._one_at_a_time:
                local = (
                    await self._matcher(task_file.home.language) if settings.local_first else None
                )
                evaluation = Evaluation(
                    records=ConversationRecords(self.store),
                    base_options=self.options,
                    llm=llm,
                    local=local,
                    confirmation=self.confirmation,
                    # The model's own timeout bounds each call; a whole turn may make several.
                    task_timeout=float(
                        self.options.request_timeout * (self.options.max_tool_iterations + 1)
                    ),
                )

                async def stored(result: TaskResult, _done: int) -> None:
                    async with self.store.sessionmaker.begin() as session:
                        await eval_runs.add_result(session, run_id, result.as_dict())

                await evaluation.run(task_file, settings, stored)
            await self._finish(run_id, "done")
            _LOGGER.info("Evaluation run %d finished", run_id)
        except asyncio.CancelledError:
            await self._finish(run_id, "interrupted", "stopped when the add-on shut down")
            raise
        except Exception as err:  # the run's boundary: it fails, the add-on goes on
            _LOGGER.exception("Evaluation run %d failed", run_id)
            await self._finish(run_id, "failed", f"{type(err).__name__}: {err}")
        finally:
            if llm is not None:
                await llm.close()

    async def _matcher(self, language: str) -> LocalMatcher:
        if self._local is None:
            self._local = LocalMatcher(language, library=self.sentences)
        # Compiling a language's templates takes a moment: off the event loop.
        await asyncio.to_thread(self._local.prepare, language)
        return self._local

    async def _finish(
        self, run_id: int, status: eval_runs.RunStatus, error: str | None = None
    ) -> None:
        try:
            async with self.store.sessionmaker.begin() as session:
                await eval_runs.finish_run(session, run_id, status, error)
        except SQLAlchemyError:
            _LOGGER.exception("Evaluation run %d could not be marked %s", run_id, status)
