"""The expert model as a tool: the main model hands it a question and gets text back.

For example a small local model delegating a hard question to a larger one. The expert gets the
question and, if the main model gives one, an excerpt of the conversation; never the tools, the
home or the system prompt. Its call is traced as a model call of its own, nested in the tool
call that made it, with the expert's own timeout; a failure comes back to the main model as a
tool error in the turn's language, which it can pass on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from addon.agent.trace import LLMCallTrace, TurnTrace
from addon.errors import LLMError, ToolError
from addon.i18n.translations import messages_for
from addon.llm.client import LLMClient
from addon.llm.messages import SystemMessage, UserMessage
from addon.text import JsonObject
from addon.tools.base import ToolContext, ToolReply

_LOGGER = logging.getLogger(__name__)

EXPERT_TOOL = "ask_expert"
EXPERT_INSTRUCTIONS = (
    "You are an expert consulted by a smart-home voice assistant. Answer the question "
    "accurately and briefly, in plain text the assistant can read out, in the language of the "
    "question. You cannot see or control the home; work only from what you are given."
)


@dataclass(frozen=True, slots=True)
class ExpertTool:
    """``ask_expert`` for one turn: its calls are recorded in that turn's trace."""

    client: LLMClient
    trace: TurnTrace

    @property
    def name(self) -> str:
        """The function name the model sees."""
        return EXPERT_TOOL

    @property
    def description(self) -> str:
        """When to use it, and that the expert knows only what it is told."""
        return (
            "Ask a more capable expert model a hard question (reasoning, knowledge, planning, "
            "calculation) and get its answer as text. The expert cannot see the home, the "
            "conversation or your tools: put everything it needs in the question and context."
        )

    @property
    def parameters(self) -> JsonObject:
        """The question, and optionally the part of the conversation the expert needs."""
        return {
            "type": "object",
            "properties": {
                "question": {"type": "string", "description": "The question, self-contained."},
                "context": {
                    "type": "string",
                    "description": "Optional excerpt of the conversation or facts it needs.",
                },
            },
            "required": ["question"],
        }

    @property
    def kind(self) -> str:
        """Runs in-process, asking another endpoint: traces show ``expert``."""
        return "expert"

    async def call(self, arguments: JsonObject, context: ToolContext) -> ToolReply:
        """Ask the expert once, without tools; its answer or its error goes back as the result."""
        question = str(arguments.get("question", "")).strip()
        excerpt = str(arguments.get("context") or "").strip()
        if not question:
            raise ToolError("the question for the expert is empty")
        content = f"{question}\n\nContext:\n{excerpt}" if excerpt else question
        messages = (SystemMessage(EXPERT_INSTRUCTIONS), UserMessage(content))
        call = LLMCallTrace(
            started_at=datetime.now(UTC),
            model=self.client.model,
            streamed=False,
            request_messages=messages,
            request_tools=[],
            endpoint="expert",
            tool_call_id=context.call_id,
        )
        self.trace.llm_calls.append(call)
        try:
            completion = await self.client.complete(messages, [])
        except LLMError as err:
            call.error = str(err)
            _LOGGER.warning("The expert model failed (%s): %s", err.kind, err)
            text = messages_for(context.language).for_expert_error(err.kind)
            return ToolReply(
                result={"error": f"expert_{err.kind.removeprefix('llm_')}", "error_text": text},
                error=str(err),
            )
        call.answered(completion)
        return ToolReply(result={"success": True, "answer": completion.content.strip()})
