"""Side by side: the same sentences through Home Assistant's own agent and through Home Agent.

``python -m devtools.side_by_side devtools/homes/*.yaml`` boots a real Home Assistant (2025.4.4, or
the release ``--ha-version`` names) per task file, builds the file's home in it with the
``synthetic_home`` integration (devtools/ha_synthetic_home), and starts Home Agent in this process
with no model (local path only), reached the way a user reaches it: Home Assistant's ``wyoming``
integration pointed at our Wyoming server. Each task then runs twice, once per agent, through
``POST /api/conversation/process``: reset the home and apply the task's setup, send the sentence,
read every entity, score. Task files are read and scored by the product's own evaluation code
(addon/eval/tasks.py, addon/eval/scoring.py), so the harness and the Evaluate page judge alike. A
table per home follows; ``run_files`` returns the typed results for the benchmark and the test.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from aiohttp import web

from addon import keys
from addon.app import create_app
from addon.config.settings import Options, Settings
from addon.errors import TaskFileInvalid
from addon.eval.scoring import EntityView, Score, Snapshot, compared_attributes, same, score
from addon.eval.tasks import Task, TaskFile, load_task_file
from devtools.home_assistant import (
    OLDEST_VERSION,
    REPO_ROOT,
    SUPPORTED_VERSIONS,
    HomeAssistantProcess,
    build_template,
)
from devtools.questions import SECTION, is_question_file, load_questions, question_files
from devtools.standalone import standalone_settings

INTEGRATION = REPO_ROOT / "devtools" / "ha_synthetic_home" / "custom_components" / "synthetic_home"
HOMES_DIR = REPO_ROOT / "devtools" / "homes"
HA_AGENT = "conversation.home_assistant"
OURS, HA = "ours", "ha"
COMMANDS = "commands"
AGENTS = (OURS, HA)
SETUP_TIMEOUT_S = 60.0
SYNC_TIMEOUT_S = 10.0
_LOGGER = logging.getLogger(__name__)


class HarnessError(RuntimeError):
    """The harness could not build a home or reach an agent; the message says which."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What an agent said, and whether Home Assistant marked it a failure (``error``)."""

    text: str
    failed: bool


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """One task run through one agent."""

    task: Task
    agent: str
    reply: Reply
    score: Score
    seconds: float


@dataclass(frozen=True, slots=True)
class Tally:
    """Passed out of run, and the wrong actions among them."""

    passed: int
    total: int
    wrong_actions: int

    @property
    def share(self) -> float:
        """The passed share (0 when nothing ran)."""
        return self.passed / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class HomeResult:
    """Every task of one task file through both agents."""

    name: str
    file: str
    """The task file's stem."""
    language: str
    outcomes: tuple[TaskOutcome, ...]
    section: str = COMMANDS
    """``commands`` (a home's task file) or ``questions`` (a question file on that home)."""

    def of(self, agent: str) -> tuple[TaskOutcome, ...]:
        """The outcomes of one agent, in task order."""
        return tuple(outcome for outcome in self.outcomes if outcome.agent == agent)

    def tally(self, agent: str, tag: str | None = None) -> Tally:
        """Passed, total and wrong actions of ``agent``, over one tag or all tasks."""
        picked = [o for o in self.of(agent) if tag is None or tag in o.task.tags]
        return Tally(
            passed=sum(o.score.passed for o in picked),
            total=len(picked),
            wrong_actions=sum(len(o.score.wrong_actions) for o in picked),
        )

    @property
    def tags(self) -> list[str]:
        """Every tag used, sorted."""
        return sorted({tag for outcome in self.outcomes for tag in outcome.task.tags})


@dataclass(frozen=True, slots=True)
class RunResult:
    """A whole run: one result per home."""

    homes: tuple[HomeResult, ...]

    def tally(self, agent: str, section: str | None = None) -> Tally:
        """Over every home (of one section: ``commands`` or ``questions``)."""
        tallies = [
            home.tally(agent) for home in self.homes if section is None or home.section == section
        ]
        return Tally(
            passed=sum(t.passed for t in tallies),
            total=sum(t.total for t in tallies),
            wrong_actions=sum(t.wrong_actions for t in tallies),
        )


def fixture_ids(task_file: TaskFile) -> tuple[str, ...]:
    """Every fixture entity, in fixture order."""
    return tuple(entity.entity_id for entity in task_file.home.entities)


def snapshot(states: Iterable[dict[str, Any]], entity_ids: Iterable[str]) -> Snapshot:
    """The fixture entities of ``GET /api/states``."""
    wanted = set(entity_ids)
    return {
        state["entity_id"]: EntityView(str(state["state"]), dict(state["attributes"]))
        for state in states
        if state["entity_id"] in wanted
    }


class HomeRun:
    """One booted home: Home Assistant with the synthetic home, Home Agent wired in by Wyoming."""

    def __init__(
        self,
        home: HomeAssistantProcess,
        task_file: TaskFile,
        app: web.Application,
        *,
        section: str = COMMANDS,
    ):
        self.home = home
        self.task_file = task_file
        self.app = app
        self.section = section
        """``commands`` or ``questions``: in the questions section answers count only as whole
        words of the reply."""
        self.ours_agent_id = ""
        self._compared = compared_attributes(task_file.home, task_file.tasks)

    async def reset(self, task: Task) -> Snapshot:
        """Fixture states, then the task's setup; returns the home as the sentence finds it."""
        states = {
            entity_id: {
                **({"state": change.state} if change.state is not None else {}),
                "attributes": dict(change.attributes),
            }
            for entity_id, change in task.setup.items()
        }
        await self.home.request("POST", "/api/services/synthetic_home/reset", {"states": states})
        return snapshot(await self.home.states(), fixture_ids(self.task_file))

    async def until_ours_sees(self, expected: Snapshot) -> None:
        """Wait until Home Agent's mirror of the home (fed by events) agrees with ``expected``."""
        sync = self.app[keys.HOME_SYNC]
        async with asyncio.timeout(SYNC_TIMEOUT_S):
            while not self._mirror_agrees(sync.model, expected):  # noqa: ASYNC110 - no event to await
                await asyncio.sleep(0.01)

    def _mirror_agrees(self, model: Any, expected: Snapshot) -> bool:
        if model is None:
            return False
        for entity_id, view in expected.items():
            mirrored = model.state(entity_id)
            if mirrored is None or mirrored.state != view.state:
                return False
            for name in self._compared.get(entity_id, ()):
                if not same(view.attributes.get(name), mirrored.attributes.get(name), name):
                    return False
        return True

    async def ask(self, agent_id: str, sentence: str) -> Reply:
        """One sentence through ``/api/conversation/process``, as the Assist pipeline sends it."""
        answer = await self.home.request(
            "POST",
            "/api/conversation/process",
            {"text": sentence, "agent_id": agent_id, "language": self.task_file.home.language},
        )
        response = answer["response"]
        speech = ((response.get("speech") or {}).get("plain") or {}).get("speech") or ""
        return Reply(text=str(speech), failed=response.get("response_type") == "error")

    async def run_task(self, task: Task, agent: str) -> TaskOutcome:
        """Reset, send, read, score."""
        before = await self.reset(task)
        if agent == OURS:
            await self.until_ours_sees(before)
        agent_id = self.ours_agent_id if agent == OURS else HA_AGENT
        started = time.perf_counter()
        reply = await self.ask(agent_id, task.sentence)
        seconds = time.perf_counter() - started
        after = snapshot(await self.home.states(), fixture_ids(self.task_file))
        verdict = score(
            task,
            before=before,
            after=after,
            compared=self._compared,
            reply=reply.text,
            failed=reply.failed,
            whole_words=self.section == SECTION,
        )
        return TaskOutcome(task=task, agent=agent, reply=reply, score=verdict, seconds=seconds)

    async def run(self) -> HomeResult:
        """Every task through both agents."""
        outcomes = [
            await self.run_task(task, agent) for task in self.task_file.tasks for agent in AGENTS
        ]
        return HomeResult(
            name=self.task_file.home.name,
            file=self.task_file.name,
            language=self.task_file.home.language,
            outcomes=tuple(outcomes),
            section=self.section,
        )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "home"


def _addon_settings(home: HomeAssistantProcess, data_dir: Path, language: str) -> Settings:
    """Home Agent with no model: only the local path can answer."""
    return standalone_settings(
        Options(llm_base_url="", language=language, local_first=True, log_level="warning"),
        data_dir,
        ha_url=home.url,
        ha_token=home.token,
    )


async def _until_entities(home: HomeAssistantProcess, entity_ids: Sequence[str]) -> None:
    """The import flow sets the home up in the background: wait for every entity."""
    try:
        async with asyncio.timeout(SETUP_TIMEOUT_S):
            while True:
                present = {state["entity_id"] for state in await home.states()}
                if present.issuperset(entity_ids):
                    return
                await asyncio.sleep(0.1)
    except TimeoutError:
        missing = sorted(set(entity_ids) - present)
        raise HarnessError(
            f"the synthetic home never showed {missing[:5]};"
            f" log {home.log_path}:\n{home.log_tail()}"
        ) from None


async def add_wyoming_agent(home: HomeAssistantProcess, port: int) -> str:
    """Home Assistant's Wyoming integration for our server; the conversation entity it makes."""
    flows = "/api/config/config_entries/flow"
    flow = await home.request("POST", flows, {"handler": "wyoming"})
    entry = await home.request(
        "POST", f"{flows}/{flow['flow_id']}", {"host": "127.0.0.1", "port": port}
    )
    if entry.get("type") != "create_entry":
        raise HarnessError(f"the wyoming config flow ended with {entry}")
    async with asyncio.timeout(SETUP_TIMEOUT_S):
        while True:
            for state in await home.states():
                if (
                    state["entity_id"].startswith("conversation.")
                    and state["entity_id"] != HA_AGENT
                ):
                    return str(state["entity_id"])
            await asyncio.sleep(0.1)


def synthetic_home_process(
    template: Path, config_dir: Path, home_file: Path
) -> HomeAssistantProcess:
    """Home Assistant from ``template``, without the demo, building the home in ``home_file``.

    Not started: the synthetic_home integration is linked into ``config_dir`` and set up from
    ``home_file`` when Home Assistant boots.
    """
    home = HomeAssistantProcess.from_template(
        template, config_dir, demo=False, extra_config={"synthetic_home": {"home": str(home_file)}}
    )
    # A copy, not a link: a Home Assistant run in its own root sees only the config dir.
    shutil.copytree(INTEGRATION, config_dir / "custom_components" / "synthetic_home")
    return home


@asynccontextmanager
async def booted(
    task_file: TaskFile, template: Path, work_dir: Path, *, section: str = COMMANDS
) -> AsyncIterator[HomeRun]:
    """Home Assistant with the task file's home, and Home Agent linked to it, for one ``with``."""
    config_dir = work_dir / _slug(task_file.name)
    # In the config dir, which a Home Assistant run in its own root sees at the same path.
    home_file = config_dir / "synthetic-home.yaml"
    home = synthetic_home_process(template, config_dir, home_file)
    fixture = task_file.home.model_dump(mode="json", exclude_none=True)
    home_file.write_text(yaml.safe_dump(fixture, allow_unicode=True), "utf-8")
    async with home:
        await _until_entities(home, fixture_ids(task_file))
        app = create_app(_addon_settings(home, config_dir / "addon-data", task_file.home.language))
        runner = web.AppRunner(app)
        await runner.setup()
        try:
            await app[keys.HOME_SYNC].wait_ready(SETUP_TIMEOUT_S)
            run = HomeRun(home, task_file, app, section=section)
            run.ours_agent_id = await add_wyoming_agent(home, app[keys.WYOMING].bound_port)
            yield run
        finally:
            await runner.cleanup()


async def run_files(
    paths: Sequence[Path],
    work_dir: Path | None = None,
    *,
    report: bool = False,
    version: str = OLDEST_VERSION,
) -> RunResult:
    """Run every task file side by side; with ``report``, print each home's table as it ends.

    A question file (:mod:`devtools.questions`) runs as its own home in the questions section.
    ``version`` is the Home Assistant release both agents run in (its built-in agent is the one
    compared).
    """
    task_files = [
        (load_questions(path), SECTION)
        if is_question_file(path)
        else (load_task_file(path), COMMANDS)
        for path in paths
    ]
    with tempfile.TemporaryDirectory(prefix="side-by-side-") as scratch:
        root = (work_dir or Path(scratch)) / version
        template = await asyncio.to_thread(
            build_template, root / "template", demo=False, version=version
        )
        results: list[HomeResult] = []
        for task_file, section in task_files:
            async with booted(task_file, template, root, section=section) as run:
                result = await run.run()
            results.append(result)
            if report:
                _print(format_home(result))
    return RunResult(homes=tuple(results))


def format_home(result: HomeResult) -> str:
    """The per-home table: ours vs Home Assistant, overall and per tag."""
    lines = [
        f"== {result.name} ({result.file}, {result.language}, {len(result.of(OURS))} sentences)",
        f"{'tag':<22} {'ours':>13} {'ha':>13} {'wrong ours':>11} {'wrong ha':>9}",
    ]
    for tag in [None, *result.tags]:
        ours, ha = result.tally(OURS, tag), result.tally(HA, tag)
        lines.append(
            f"{tag or 'ALL':<22} {_cell(ours):>13} {_cell(ha):>13}"
            f" {ours.wrong_actions:>11} {ha.wrong_actions:>9}"
        )
    return "\n".join(lines)


def format_failures(result: HomeResult, agent: str) -> str:
    """One line per failed task of ``agent``: the sentence and why."""
    return "\n".join(
        f"  {o.task.id}: {o.task.sentence!r} -> {o.reply.text!r}: {'; '.join(o.score.problems)}"
        for o in result.of(agent)
        if not o.score.passed
    )


def _cell(tally: Tally) -> str:
    return f"{tally.passed}/{tally.total} {tally.share:4.0%}"


def _print(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def configure_logging() -> None:
    """The harness's warnings; Home Agent's own (its outcome checks) would drown the table."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("addon").setLevel(logging.ERROR)


def build_parser() -> argparse.ArgumentParser:
    """Task files (default: every home in devtools/homes) and what to print."""
    parser = argparse.ArgumentParser(prog="python -m devtools.side_by_side", description=__doc__)
    parser.add_argument("files", nargs="*", type=Path, help="task files (default: devtools/homes)")
    parser.add_argument("--failures", choices=[*AGENTS, "both"], help="list failed sentences")
    parser.add_argument("--work-dir", type=Path, help="keep config dirs and logs here")
    parser.add_argument(
        "--ha-version",
        choices=SUPPORTED_VERSIONS,
        default=OLDEST_VERSION,
        help="the Home Assistant release both agents run in",
    )
    return parser


def default_files() -> list[Path]:
    """Every task file shipped in devtools/homes (the commands section)."""
    return sorted(HOMES_DIR.glob("*.yaml"))


def main(argv: list[str] | None = None) -> int:
    """Run, print the tables (and failures if asked); exit 0 (2: a task file is invalid)."""
    args = build_parser().parse_args(argv)
    configure_logging()
    if args.work_dir:
        args.work_dir.mkdir(parents=True, exist_ok=True)
    try:
        files = args.files or [*default_files(), *question_files()]
        result = asyncio.run(run_files(files, args.work_dir, report=True, version=args.ha_version))
    except TaskFileInvalid as err:
        sys.stderr.write(f"{err}\n")
        return 2
    for home in result.homes:
        for agent in (
            AGENTS if args.failures == "both" else [args.failures] if args.failures else []
        ):
            _print(f"-- {home.name}: failed for {agent}\n{format_failures(home, agent)}")
    for section in (COMMANDS, SECTION):
        ours, ha = result.tally(OURS, section), result.tally(HA, section)
        if ours.total:
            _print(f"TOTAL {section} ours {_cell(ours)} (wrong {ours.wrong_actions})")
            _print(f"TOTAL {section} ha   {_cell(ha)} (wrong {ha.wrong_actions})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
