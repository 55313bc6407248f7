"""``python -m addon.eval`` on a task file: local first only, and with the scripted model."""

from __future__ import annotations

import io
import sqlite3
from contextlib import closing
from pathlib import Path

from addon.eval.cli import run_cli
from devtools.scripted_llm import ScriptedLLM
from tests.eval.tasks import TASKS_YAML, write_tasks


async def test_local_first_only_passes_every_command(tmp_path: Path) -> None:
    """With no model the local path carries out all three commands, and says so per task."""
    out = io.StringIO()
    code = await run_cli([str(write_tasks(tmp_path))], {}, out)
    printed = out.getvalue()
    assert code == 0, printed
    assert "[1/3] PASS light-on" in printed
    assert "[3/3] PASS dim" in printed
    assert "accuracy 100.0% (3/3), wrong actions 0" in printed


async def test_scripted_model_run_counts_tokens_and_stores_turns(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    """Without local first the model acts; its tokens are summed, and each turn is stored."""
    scripted_llm.tool_calls(("HassTurnOn", {"name": "Kitchen ceiling light"})).reply("On.")
    scripted_llm.reply("I would rather not.", usage={"prompt_tokens": 100, "completion_tokens": 5})
    path = write_tasks(tmp_path, TASKS_YAML.split("  - id: dim")[0])
    database = tmp_path / "eval.db"
    out = io.StringIO()
    code = await run_cli(
        [
            str(path),
            "--no-local-first",
            "--model",
            "scripted-model",
            "--llm-base-url",
            scripted_llm.base_url,
            "--database",
            str(database),
        ],
        {"HOME_AGENT_LLM_API_KEY": "test"},
        out,
    )
    printed = out.getvalue()
    assert code == 0, printed
    assert "[1/2] PASS light-on" in printed
    assert "[2/2] FAIL kettle-on" in printed
    assert "switch.kettle: state is 'off', expected 'on'" in printed
    assert "accuracy 50.0% (1/2)" in printed
    assert "tokens 0 prompt" not in printed
    with closing(sqlite3.connect(database)) as connection:
        sources = connection.execute(
            "SELECT source FROM conversations"
            " JOIN turns ON turns.conversation_id = conversations.id"
        ).fetchall()
    assert sources == [("eval",), ("eval",)]


async def test_instructions_reach_the_model(tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    """``--instructions FILE`` is added to the system prompt the model gets."""
    scripted_llm.reply("No.")
    instructions = tmp_path / "rules.txt"
    instructions.write_text("Always answer in rhyme.", encoding="utf-8")
    path = write_tasks(tmp_path, TASKS_YAML.split("  - id: kettle-on")[0])
    out = io.StringIO()
    code = await run_cli(
        [str(path), "--no-local-first", "--instructions", str(instructions),
         "--llm-base-url", scripted_llm.base_url],
        {},
        out,
    )  # fmt: skip
    assert code == 0, out.getvalue()
    system = scripted_llm.chat_requests[0].messages[0]["content"]
    assert "Always answer in rhyme." in system


async def test_bad_file_exits_2_with_every_problem(tmp_path: Path) -> None:
    """An unknown entity in expect ends the command with code 2 and names the place."""
    path = write_tasks(
        tmp_path,
        TASKS_YAML.replace('{switch.kettle: {state: "on"}}', '{switch.kettel: {state: "on"}}'),
    )
    out = io.StringIO()
    code = await run_cli([str(path)], {}, out)
    assert code == 2
    assert "tasks[1].expect.switch.kettel: no such entity in the home" in out.getvalue()
