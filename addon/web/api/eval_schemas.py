"""The evaluation API's bodies as pydantic models: what it reads, and what it answers.

``EvaluationIn`` is parsed strictly (unknown fields refused, every problem named at once);
the answers are built from the stored run, field for field as the run's page shows it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from addon.eval.runner import MAX_INSTRUCTIONS
from addon.web.ui.eval_start import MAX_MODEL_NAME, MAX_TASK_TEXT


class EvaluationIn(BaseModel):
    """A run to start: which tasks, and the settings (the options' when left out)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: Literal["suite", "suite-model", "saved", "text"] = Field(
        default="suite",
        description=(
            "`suite`: the ready-made suite from the exposed entities; `suite-model`: the same "
            "suite with local first off, so the model answers every task; `saved`: your saved "
            "tests; `text`: the task file in `task_file`."
        ),
    )
    task_file: str = Field(
        default="", max_length=MAX_TASK_TEXT, description="The task file (YAML), for `text`."
    )
    model: str | None = Field(
        default=None, min_length=1, max_length=MAX_MODEL_NAME, description="Default: llm_model."
    )
    local_first: bool | None = Field(
        default=None, description="Default: the local_first option; always off for suite-model."
    )
    instructions: str | None = Field(
        default=None, max_length=MAX_INSTRUCTIONS, description="Default: extra_instructions."
    )


class EvaluationStartedOut(BaseModel):
    """Where to follow a run just started."""

    id: int
    url: str = Field(description="This run in the API.")
    page: str = Field(description="This run's page in the panel.")


class EvaluationResultOut(BaseModel):
    """One task's verdict, as the run's page shows it."""

    task_id: str
    sentence: str
    passed: bool
    problems: list[str] = Field(description="Why it failed, in words.")
    wrong_actions: list[str]
    reply: str
    handled_by: str
    asked: str | None = Field(
        description='The agent asked before acting ("yes" or "pin"; the PIN is never shown).'
    )
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    conversation_id: str | None
    turn_id: int | None
    tags: list[str]


class EvaluationOut(BaseModel):
    """A run: its settings, how far it got, its accuracy and each task's result."""

    id: int
    name: str
    status: str = Field(description="running, done, failed or interrupted.")
    model: str
    local_first: bool
    done: int
    total: int
    passed: int
    accuracy: float
    page: str
    results: list[EvaluationResultOut]
