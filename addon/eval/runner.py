"""Run a task file through the real agent, on a virtual copy of its home, one task at a time.

Each task gets the home as the fixture starts it, then its ``setup``; then the sentence goes to a
fresh :class:`~addon.agent.service.Agent` (a new conversation, so no task hears another's) whose
executor is a :class:`~addon.home.actions.virtual.VirtualExecutor` acting on that copy: nothing
real moves. The turn is stored like any other, so every result links to its trace. Latency is
the whole turn as the caller waited for it; tokens are those of the turn's model calls.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass

from addon.agent.automations import KeptDrafts, draft_tools
from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.agent.service import Agent
from addon.config.settings import Options
from addon.eval.home import apply_states, build_model
from addon.eval.scoring import (
    EntityView,
    Snapshot,
    automation_problems,
    compared_attributes,
    score,
)
from addon.eval.tasks import Task, TaskFile
from addon.home.actions.confirmation import ConfirmationPolicy
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.home.model.source import FixedHome
from addon.llm.client import LLMClient
from addon.local.matcher import LocalMatcher
from addon.store.json_fields import stored_float, stored_int, stored_text, stored_texts
from addon.store.turns import ConversationRecords
from addon.text import JsonObject

_LOGGER = logging.getLogger(__name__)

MAX_INSTRUCTIONS = 8000
"""As long as the ``extra_instructions`` option may be."""


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What a run varies: the model, whether the local path goes first, the instructions.

    ``base_url`` is a candidate endpoint (the Settings page's model check); empty, the
    configured one. Its key is never part of the settings (they are stored with the run).
    """

    model: str
    local_first: bool = True
    instructions: str = ""
    base_url: str = ""
    check: bool = False
    """Started by the Settings page's model check: shown beside the current model's run."""

    def as_dict(self) -> JsonObject:
        """A JSON-friendly form, as runs are stored."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class TaskResult:
    """One task's verdict, reply and cost, with the turn it was stored as."""

    task_id: str
    sentence: str
    passed: bool
    wrong_actions: tuple[str, ...]
    problems: tuple[str, ...]
    reply: str
    handled_by: str
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    conversation_id: str | None
    turn_id: int | None
    tags: tuple[str, ...] = ()
    tool_calls: int = 0
    tool_errors: int = 0
    asked: str | None = None
    """The agent asked for confirmation ("yes" or "pin") before acting; None: it did not."""

    def as_dict(self) -> JsonObject:
        """A JSON-friendly form, as runs are stored."""
        data = asdict(self)
        return {
            key: list(value) if isinstance(value, tuple) else value for key, value in data.items()
        }

    @classmethod
    def from_dict(cls, data: JsonObject) -> TaskResult:
        """Read a stored result back; a field of the wrong shape raises StoreError."""
        turn_id = data.get("turn_id")
        return cls(
            task_id=str(data["task_id"]),
            sentence=str(data["sentence"]),
            passed=bool(data["passed"]),
            wrong_actions=stored_texts(data.get("wrong_actions"), "wrong_actions"),
            problems=stored_texts(data.get("problems"), "problems"),
            reply=str(data.get("reply") or ""),
            handled_by=str(data.get("handled_by") or ""),
            latency_ms=stored_float(data.get("latency_ms"), "latency_ms"),
            prompt_tokens=stored_int(data.get("prompt_tokens"), "prompt_tokens"),
            completion_tokens=stored_int(data.get("completion_tokens"), "completion_tokens"),
            conversation_id=stored_text(data.get("conversation_id"), "conversation_id"),
            turn_id=None if turn_id is None else stored_int(turn_id, "turn_id"),
            tags=stored_texts(data.get("tags"), "tags"),
            tool_calls=stored_int(data.get("tool_calls"), "tool_calls"),
            tool_errors=stored_int(data.get("tool_errors"), "tool_errors"),
            asked=str(data["asked"]) if data.get("asked") else None,
        )


@dataclass(frozen=True, slots=True)
class Totals:
    """A run's figures: accuracy, wrong actions, latency and tokens."""

    tasks: int
    passed: int
    wrong_actions: int
    latency_p50_ms: float
    latency_mean_ms: float
    prompt_tokens: int
    completion_tokens: int
    tool_calls: int = 0
    tool_errors: int = 0

    @property
    def accuracy(self) -> float:
        """The share of tasks passed (0 for no tasks)."""
        return self.passed / self.tasks if self.tasks else 0.0

    @property
    def tool_success(self) -> float | None:
        """The share of tool calls that ran without an error; None when there were none."""
        return 1 - self.tool_errors / self.tool_calls if self.tool_calls else None

    @classmethod
    def of(cls, results: list[TaskResult]) -> Totals:
        """Sum up ``results``."""
        latencies = [result.latency_ms for result in results]
        return cls(
            tasks=len(results),
            passed=sum(result.passed for result in results),
            wrong_actions=sum(len(result.wrong_actions) for result in results),
            latency_p50_ms=statistics.median(latencies) if latencies else 0.0,
            latency_mean_ms=statistics.fmean(latencies) if latencies else 0.0,
            prompt_tokens=sum(result.prompt_tokens for result in results),
            completion_tokens=sum(result.completion_tokens for result in results),
            tool_calls=sum(result.tool_calls for result in results),
            tool_errors=sum(result.tool_errors for result in results),
        )


OnResult = Callable[[TaskResult, int], Awaitable[None]]
"""Called after each task with its result and how many tasks are done."""


@dataclass(slots=True)
class Evaluation:
    """Runs task files with the given parts; the caller owns (and closes) the model client."""

    records: ConversationRecords
    base_options: Options
    llm: LLMClient | None
    local: LocalMatcher | None
    task_timeout: float | None = None
    confirmation: Callable[[], ConfirmationPolicy] | None = None
    """The confirmation policy the agent holds actions by (the app's); None holds nothing."""
    """Seconds one task may take before it counts as failed (None: the model's own timeouts)."""

    async def run(
        self, task_file: TaskFile, settings: RunSettings, on_result: OnResult | None = None
    ) -> list[TaskResult]:
        """Every task in order; a task that crashes or times out fails, the run goes on."""
        pristine = build_model(task_file.home)
        compared = compared_attributes(task_file.home, task_file.tasks)
        options = self.base_options.model_copy(
            update={
                "local_first": settings.local_first,
                "extra_instructions": settings.instructions[:MAX_INSTRUCTIONS],
                "dry_run": False,
                "language": task_file.home.language,
                "llm_model": settings.model,
            }
        )
        results: list[TaskResult] = []
        for task in task_file.tasks:
            result = await self._one(task, pristine, compared, options, task_file.home.language)
            results.append(result)
            if on_result is not None:
                await on_result(result, len(results))
        return results

    async def _one(
        self,
        task: Task,
        pristine: HomeModel,
        compared: dict[str, frozenset[str]],
        options: Options,
        language: str,
    ) -> TaskResult:
        model = pristine.copy()
        apply_states(model, task.setup)
        before = snapshot(model)
        drafts = KeptDrafts()
        agent = Agent(
            options=options,
            records=self.records,
            home=FixedHome(model),
            live_executor=VirtualExecutor(model),
            llm=self.llm,
            local=self.local if options.local_first else None,
            outcome_delay=0.0,
            confirmation=self.confirmation,
            extra_tools=draft_tools(drafts),
        )
        request = ConversationRequest(text=task.sentence, source="eval", language=language)
        started = time.perf_counter()
        outcome: ConversationResult | str
        asked: str | None = None
        confirmation: list[str] = []
        try:
            outcome = await asyncio.wait_for(agent.process(request), self.task_timeout)
            if outcome.needs_confirmation is not None:
                asked = str(outcome.needs_confirmation.get("method") or "yes")
            confirmation = confirmation_problems(task, asked)
            answers = [task.confirm] if task.confirm is not None and asked else []
            for said in [*answers, *task.then_say]:
                # The user's next words in the same conversation ("yes" to a held action);
                # the last reply is the one scored.
                follow = ConversationRequest(
                    text=said,
                    source="eval",
                    language=language,
                    conversation_id=outcome.conversation_id,
                )
                outcome = await asyncio.wait_for(agent.process(follow), self.task_timeout)
        except TimeoutError:
            outcome = f"no reply within {self.task_timeout:g} s"
        except Exception as err:  # one task's crash is its failure, not the run's end
            _LOGGER.exception("Evaluation task %s crashed", task.id)
            outcome = f"the turn crashed: {type(err).__name__}: {err}"
        latency = (time.perf_counter() - started) * 1000
        await agent.drain()
        if isinstance(outcome, str):
            verdict = score(
                task, before=before, after=snapshot(model), compared=compared, reply="", failed=True
            )
            return TaskResult(
                task.id, task.sentence, False, verdict.wrong_actions, (outcome, *verdict.problems),
                "", "failed", latency, 0, 0, None, None, task.tags,
            )  # fmt: skip
        failed = outcome.handled_by == "failed" or outcome.error is not None
        confirmation += automation_problems(task.automation, drafts.kept)
        verdict = score(
            task,
            before=before,
            after=snapshot(model),
            compared=compared,
            reply=outcome.reply,
            failed=failed,
        )
        return TaskResult(
            task_id=task.id,
            sentence=task.sentence,
            passed=verdict.passed and not confirmation,
            wrong_actions=verdict.wrong_actions,
            problems=(*confirmation, *verdict.problems),
            reply=outcome.reply,
            handled_by=outcome.handled_by,
            latency_ms=latency,
            prompt_tokens=outcome.prompt_tokens,
            completion_tokens=outcome.completion_tokens,
            conversation_id=outcome.conversation_id,
            turn_id=outcome.turn_id,
            tags=task.tags,
            tool_calls=len(outcome.actions),
            tool_errors=sum(not action.success for action in outcome.actions),
            asked=asked,
        )


def confirmation_problems(task: Task, asked: str | None) -> list[str]:
    """Why the question the agent asked (or did not) fails the task; empty when as expected.

    A task saying ``confirm:`` expects one; a task without it (and without ``then_say`` words
    to answer one) expects none: an unexpected question leaves the action undone.
    """
    if task.confirm is not None and asked is None:
        # Never the PIN itself: results are shown and downloaded.
        return ["the task expects a question before acting (confirm:), and none came"]
    if task.confirm is not None and asked == "pin" and not task.confirm.isdigit():
        return ["the agent asked for a PIN; give it as confirm: {pin: ...}"]
    if task.confirm is None and asked is not None and not task.then_say:
        return [
            f"the agent asked for confirmation ({asked}), which the task does not expect;"
            " add confirm: yes (or the PIN) if the action should ask first"
        ]
    return []


def snapshot(model: HomeModel) -> Snapshot:
    """Every entity's state and attributes now."""
    found: dict[str, EntityView] = {}
    for entity_id in model.entity_ids():
        state = model.state(entity_id)
        if state is not None:
            found[entity_id] = EntityView(state.state, dict(state.attributes))
    return found


def make_llm(
    options: Options, model: str, *, base_url: str = "", api_key: str | None = None
) -> LLMClient | None:
    """A model client for a run (None when no endpoint is configured: local only).

    ``base_url`` and ``api_key`` name a candidate endpoint; the configured key goes only to
    the configured endpoint, never to another one.
    """
    if base_url and base_url != options.llm_base_url:
        key = api_key or ""
    else:
        base_url = options.llm_base_url
        key = api_key or options.llm_api_key.get_secret_value()
    if not base_url:
        return None
    return LLMClient(
        base_url=base_url,
        api_key=key,
        model=model,
        temperature=options.temperature,
        timeout=float(options.request_timeout),
    )
