"""``python -m addon.eval TASKS.yaml``: run a task file and print each verdict and the totals.

The model endpoint comes from ``--llm-base-url``/``--llm-api-key`` or the ``HOME_AGENT_LLM_*``
variables the add-on reads standalone; with none, only the local path answers. Turns are stored
in ``--database`` (a throwaway file by default), where the panel can show their traces.
Exit codes: 0 when the run completed (whatever it scored), 2 for a bad task file or flag, 3 when
the store cannot be opened.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from pydantic import SecretStr, ValidationError

from addon.config.settings import Options
from addon.errors import StoreError, TaskFileInvalid
from addon.eval.runner import (
    MAX_INSTRUCTIONS,
    Evaluation,
    RunSettings,
    TaskResult,
    Totals,
    make_llm,
)
from addon.eval.tasks import TaskFile, load_task_file
from addon.local.matcher import LocalMatcher
from addon.store.database import Store
from addon.store.turns import ConversationRecords

ENV_PREFIX = "HOME_AGENT_"


def parser() -> argparse.ArgumentParser:
    """The command line."""
    made = argparse.ArgumentParser(
        prog="python -m addon.eval",
        description="Run an evaluation task file against the agent on a virtual copy of its home.",
    )
    made.add_argument("tasks", type=Path, help="the task file (YAML)")
    made.add_argument("--model", help="the model to ask (default: HOME_AGENT_LLM_MODEL)")
    made.add_argument(
        "--no-local-first",
        action="store_true",
        help="send every sentence to the model, skipping the local path",
    )
    made.add_argument("--instructions", type=Path, help="a file of extra instructions")
    made.add_argument(
        "--llm-base-url", help="OpenAI-compatible endpoint (or HOME_AGENT_LLM_BASE_URL)"
    )
    made.add_argument("--llm-api-key", help="its API key (or HOME_AGENT_LLM_API_KEY)")
    made.add_argument("--timeout", type=float, default=120.0, help="seconds per task at most")
    made.add_argument("--database", type=Path, help="keep the turns in this SQLite file")
    return made


async def run_cli(argv: Sequence[str], environ: Mapping[str, str], out: TextIO) -> int:
    """Run the command; returns the exit code."""
    args = parser().parse_args(argv)
    try:
        task_file = load_task_file(args.tasks)
        instructions = _instructions(args.instructions)
        options = Options(
            llm_base_url=args.llm_base_url or environ.get(ENV_PREFIX + "LLM_BASE_URL", ""),
            llm_api_key=SecretStr(args.llm_api_key or environ.get(ENV_PREFIX + "LLM_API_KEY", "")),
            llm_model=args.model or environ.get(ENV_PREFIX + "LLM_MODEL") or "gpt-4o-mini",
            language=task_file.home.language,
        )
    except TaskFileInvalid as err:
        out.write(f"error: {args.tasks}: invalid task file\n")
        out.writelines(f"  {path or '(file)'}: {message}\n" for path, message in err.problems)
        return 2
    except (ValidationError, ValueError) as err:
        out.write(f"error: {err}\n")
        return 2
    settings = RunSettings(options.llm_model, not args.no_local_first, instructions)
    with tempfile.TemporaryDirectory(prefix="home-agent-eval-") as scratch:
        path = args.database or Path(scratch) / "eval.db"
        try:
            store = await Store.open(path)
        except StoreError as err:
            out.write(f"error: cannot open the store {path}: {err}\n")
            return 3
        try:
            results = await _run(store, options, settings, task_file, args.timeout, out)
        finally:
            await store.close()
    _print_totals(Totals.of(results), out)
    return 0


async def _run(
    store: Store,
    options: Options,
    settings: RunSettings,
    task_file: TaskFile,
    task_timeout: float,
    out: TextIO,
) -> list[TaskResult]:
    llm = make_llm(options, settings.model)
    local = LocalMatcher(task_file.home.language) if settings.local_first else None
    if local is not None:
        local.prepare()
    total = len(task_file.tasks)
    where = f"model {settings.model}" if llm is not None else "no model (local only)"
    out.write(
        f"{task_file.name}: {total} tasks on {task_file.home.name!r}, {where}, "
        f"local first {'on' if settings.local_first else 'off'}\n"
    )

    async def progress(result: TaskResult, done: int) -> None:
        verdict = "PASS" if result.passed else "FAIL"
        out.write(
            f"[{done}/{total}] {verdict} {result.task_id} ({result.latency_ms:.0f} ms, "
            f"{result.handled_by}) {result.sentence!r} -> {result.reply!r}\n"
        )
        out.writelines(f"    {problem}\n" for problem in result.problems)
        out.flush()

    evaluation = Evaluation(
        records=ConversationRecords(store),
        base_options=options,
        llm=llm,
        local=local,
        task_timeout=task_timeout,
    )
    try:
        return await evaluation.run(task_file, settings, progress)
    finally:
        if llm is not None:
            await llm.close()


def _instructions(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the instructions {path}: {err}") from err
    if len(text) > MAX_INSTRUCTIONS:
        raise ValueError(f"the instructions are longer than {MAX_INSTRUCTIONS} characters")
    return text


def _print_totals(totals: Totals, out: TextIO) -> None:
    out.write(
        f"accuracy {totals.accuracy:.1%} ({totals.passed}/{totals.tasks}), "
        f"wrong actions {totals.wrong_actions}, latency p50 {totals.latency_p50_ms:.0f} ms "
        f"(mean {totals.latency_mean_ms:.0f} ms), tokens {totals.prompt_tokens} prompt + "
        f"{totals.completion_tokens} completion\n"
    )
