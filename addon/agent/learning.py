"""What memory extraction reads of a finished turn: what was said, what was answered, what acted.

Tool results are text from elsewhere: a REST API's body, an MCP server's answer, whatever a
custom tool fetched. Whoever controls that text could plant a memory ("remember that the alarm
code is …") if extraction read it, and the next turns would recall it as something the household
said. So extraction learns from the user's words and the agent's reply; of the tools it sees the
home's own actions in full (intents and scripts, run by the turn's executor, whose results name
the entities that changed) and of every other tool only its name and whether it worked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from addon.agent.prompt import user_words
from addon.llm.messages import AssistantMessage, ChatMessage, UserMessage
from addon.memory.extraction import Exchange
from addon.tools.registry import ToolOutcome

# What memory extraction reads of the conversation before the turn: enough for "she" or "there".
EXTRACTION_HISTORY_TURNS = 2
TOOL_SUMMARY_CHARS = 300
HOME_ACTION_EXECUTORS = frozenset({"live", "virtual", "none"})
"""The trace labels of intents and scripts (the executor's name); every other tool is its kind."""


def exchange_for(
    text: str, reply: str, outcomes: Sequence[ToolOutcome], history: Sequence[ChatMessage]
) -> Exchange:
    """The finished turn as memory extraction reads it: plain words, the home's actions in short."""
    earlier: list[str] = []
    users = 0
    for message in reversed(history):
        if isinstance(message, UserMessage):
            earlier.append(f"user: {user_words(message.content)}")
            users += 1
        elif isinstance(message, AssistantMessage) and message.content and message.content.strip():
            earlier.append(f"assistant: {message.content.strip()}")
        if users == EXTRACTION_HISTORY_TURNS:
            break
    calls = "\n".join(_call_line(outcome) for outcome in outcomes)
    return Exchange(
        user_text=text, reply=reply, tool_calls=calls, history="\n".join(reversed(earlier))
    )


def _call_line(outcome: ToolOutcome) -> str:
    """One line per call: a home action with its arguments and result, any other tool by name."""
    if outcome.executor not in HOME_ACTION_EXECUTORS:
        return f"{outcome.name}: {'ok' if outcome.ok else 'failed'}"
    arguments = json.dumps(outcome.arguments, ensure_ascii=False)
    if outcome.error:
        return f"{outcome.name}({arguments}): error {outcome.error}"
    return f"{outcome.name}({arguments}): {outcome.result.text()[:TOOL_SUMMARY_CHARS]}"
