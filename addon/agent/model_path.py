"""The model path of a turn: the prompt, the tools, recalled memories, and the tool loop.

The system prompt and the tool list stay byte-identical from turn to turn, so an endpoint's
prefix cache holds; what changes every turn (the time, the memories, a large home's devices
selected for the request) rides on the user's message after them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from addon.agent.answer import Answer
from addon.agent.confirm import question_for
from addon.agent.context import HomeContext, HomePrefix, TurnContext
from addon.agent.conversation import ConversationRequest, HandledBy
from addon.agent.loop import ToolProgress, run_tool_loop
from addon.agent.prompt import (
    PromptInputs,
    build_system_prompt,
    timed_user_content,
    turn_context_block,
    turn_user_content,
    user_words,
)
from addon.agent.spoken import SpokenStream, join_spoken, spoken_reply
from addon.agent.tool_budget import budgeted
from addon.agent.toolbox import Toolbox
from addon.agent.trace import TurnTrace
from addon.agent.truth import FailureSpeech, TruthCheck, check_reply, failed_action
from addon.config.settings import Options
from addon.llm.client import LLMClient
from addon.llm.fallback import Fallback
from addon.llm.messages import AssistantMessage, ChatMessage, SystemMessage, UserMessage
from addon.memory.records import RecalledMemory, RecallRequest
from addon.memory.service import MemoryService
from addon.tools.base import ToolContext
from addon.tools.registry import ToolOutcome, ToolRegistry
from addon.tools.search_tool import SEARCH_TOOL

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _ModelRequest:
    """What a turn sends the model, and what history keeps of the user's message."""

    system: str
    registry: ToolRegistry
    user_message: UserMessage
    """The user's message as history keeps it: with its time and memories, without devices."""
    sent_message: UserMessage
    """The user's message as sent this turn, a large home's selected devices included."""
    selected: TurnContext | None
    """A large home's devices selected for the request; None when the overview holds them all."""


@dataclass(frozen=True, slots=True)
class ModelPath:
    """Answers a turn through the model; every collaborator is the agent's own."""

    llm: LLMClient
    fallback: Fallback | None
    options: Options
    toolbox: Toolbox
    home_context: HomeContext
    memory: MemoryService | None
    failure_speech: Callable[[ToolContext], FailureSpeech] | None = None
    """How a failed call is said to a person in the turn's language (Home Assistant's words)."""

    async def answer(
        self,
        request: ConversationRequest,
        context: ToolContext,
        history: list[ChatMessage],
        trace: TurnTrace,
        spoken: SpokenStream | None,
        progress: ToolProgress,
    ) -> Answer:
        """Ask the model, run its tools, repeat; the messages returned start with the user's."""
        asked = await self._request(request, context, history, trace)
        loop_started = time.perf_counter()
        result = await run_tool_loop(
            llm=self.llm,
            messages=[SystemMessage(asked.system), *history, asked.sent_message],
            registry=asked.registry,
            context=context,
            trace=trace,
            max_iterations=self.options.max_tool_iterations,
            stream=spoken is not None,
            spoken=spoken,
            progress=progress,
            fallback=self.fallback,
            # After a failed action the model's words wait for the truth check below.
            holds_words=failed_action if self.failure_speech is not None else None,
        )
        trace.timings["loop"] = (time.perf_counter() - loop_started) * 1000
        if asked.selected is not None and context.home is not None:
            trace.context = asked.selected.trace(
                self.home_context.index(context.home), _searched(result.outcomes)
            )
        handled_by: HandledBy = "failed" if result.error and not result.outcomes else "llm"
        question = await _held_question(context, spoken)
        final = question if question is not None else result.reply
        # Text the model wrote beside its tool calls was streamed out: the reply holds it too.
        reply = spoken_reply(result.messages, final)
        error = result.error
        checked = None
        if self.failure_speech is not None and error is None and question is None:
            # What the person hears must match what happened; the model's words stay in history.
            # (A loop that failed or was cut short already says so in its own words.)
            checked = check_reply(result.outcomes, reply, self.failure_speech(context))
        checked = await _spoken_after_check(spoken, checked)
        messages = _history_messages(asked.user_message, result.messages, final)
        if checked is not None:
            _LOGGER.info("The model's reply was corrected: %s", checked.error)
            return Answer(
                checked.reply,
                messages,
                handled_by,
                error or checked.error,
                tuple(result.outcomes),
                actions_failed=checked.all_failed,
            )
        return Answer(reply, messages, handled_by, error, tuple(result.outcomes))

    async def _request(
        self,
        request: ConversationRequest,
        context: ToolContext,
        history: list[ChatMessage],
        trace: TurnTrace,
    ) -> _ModelRequest:
        """The system prompt, the tools and the user's message this turn sends the model.

        The time, the memories and a large home's devices change every turn, so they ride on
        the user's message, after the system prompt and the tools: both stay byte-identical and
        a prefix cache holds. History keeps the message with its time and memories (the next
        turn starts with the same bytes) but without the devices, as each turn selects its own.
        """
        model = context.home
        prompt_started = time.perf_counter()
        prefix = self.home_context.prefix(model) if model is not None else None
        registry = await self.toolbox.registry(
            model, trace, search=prefix is not None and prefix.large
        )
        area_name = model.areas[context.area_id].name if model and context.area_id else None
        system = self.prompt_for(self.options, prefix, area_name)
        trace.timings["prompt"] = (time.perf_counter() - prompt_started) * 1000
        person = context.actor.person_key if context.actor is not None else None
        recalled = await self._recall(request.text, area_name, history, trace, person)
        user_message = UserMessage(timed_user_content(request.text, context.now, recalled))
        selected = await self._selection(
            request,
            context,
            history,
            prefix,
            memory_entity_ids=[entity for memory in recalled for entity in memory.entity_ids],
        )
        blocks = [turn_context_block(selected.text)] if selected is not None else []
        if self.options.tool_budget and model is not None:
            # A small home lists everything in the prompt; the selection here picks tools only.
            chosen = selected or await self.home_context.select(
                model, request.text, speaker_area_id=context.area_id, history=history
            )
            registry = budgeted(registry, chosen.selection)
        # Without blocks the message sent is the one history keeps, byte for byte: made once.
        sent_message = (
            UserMessage(turn_user_content(request.text, context.now, blocks, recalled))
            if blocks
            else user_message
        )
        return _ModelRequest(system, registry, user_message, sent_message, selected)

    @staticmethod
    def prompt_for(options: Options, prefix: HomePrefix | None, area_name: str | None) -> str:
        """The system prompt over the home's cached prefix, for a speaker in ``area_name``."""
        return build_system_prompt(
            PromptInputs(
                static_overview=prefix.overview if prefix is not None else None,
                extra_instructions=options.extra_instructions,
                area_name=area_name,
                large_home=prefix is not None and prefix.large,
            )
        )

    async def _recall(
        self,
        text: str,
        area_name: str | None,
        history: list[ChatMessage],
        trace: TurnTrace,
        person: str | None = None,
    ) -> tuple[RecalledMemory, ...]:
        """The memories for this turn's request; a failing store costs the turn its memories.

        ``area_name`` is the speaker's area, whose memories count for more; ``person`` who
        asks: their memories and the household's, never another person's.
        """
        if self.memory is None:
            return ()
        started = time.perf_counter()
        earlier = next(
            (
                user_words(message.content)
                for message in reversed(history)
                if isinstance(message, UserMessage)
            ),
            "",
        )
        try:
            recalled = await self.memory.recall(
                RecallRequest(utterance=text, area=area_name, history=earlier, person_id=person)
            )
        except Exception:  # the turn goes on without memories
            _LOGGER.exception("Could not recall memories; this turn goes without them")
            recalled = ()
        trace.recalled_memories = tuple(memory.id for memory in recalled)
        trace.timings["memory"] = (time.perf_counter() - started) * 1000
        return recalled

    async def _selection(
        self,
        request: ConversationRequest,
        context: ToolContext,
        history: list[ChatMessage],
        prefix: HomePrefix | None,
        memory_entity_ids: Sequence[str] = (),
    ) -> TurnContext | None:
        """A large home's devices for this request, listed after the cached prefix.

        None while the whole overview fits the budget (it is in the prompt already).
        ``memory_entity_ids`` are the entities named by the memories recalled for the turn.
        """
        if prefix is None or not prefix.large or context.home is None:
            return None
        return await self.home_context.select(
            context.home,
            request.text,
            speaker_area_id=context.area_id,
            history=history,
            memory_entity_ids=memory_entity_ids,
        )


async def _held_question(context: ToolContext, spoken: SpokenStream | None) -> str | None:
    """The agent's question when the policy held a call, said in place of the model's words.

    The loop stopped at the held call: the question is the agent's, not the model's. None when
    nothing was held.
    """
    if context.holds is None or not context.holds.held:
        return None
    question = question_for(tuple(context.holds.held), context.language)
    if spoken is not None:
        await spoken.release()
        await spoken.message_sink()(question)
    return question


async def _spoken_after_check(
    spoken: SpokenStream | None, checked: TruthCheck | None
) -> TruthCheck | None:
    """Let the held-back words out, or drop them for the corrected reply; the check as said.

    The model's words after a failure were held back: a corrected reply replaces them, spoken
    after what was heard before the failure, and a reply that says every action failed then
    carries what was heard too.
    """
    if spoken is None:
        return checked
    if checked is None:
        await spoken.release()
        return None
    spoken.drop()
    if checked.all_failed and spoken.heard.strip():
        return replace(checked, reply=join_spoken([spoken.heard, checked.reply]))
    return checked


def _history_messages(
    user_message: UserMessage, added: Sequence[ChatMessage], final: str
) -> list[ChatMessage]:
    """The turn's messages for history, the user's first, ending with what the user was told.

    Failed or cut-off turns (the last message a tool call, or not the model's) end with it too.
    """
    messages: list[ChatMessage] = [user_message, *added]
    last = messages[-1]
    if not isinstance(last, AssistantMessage) or last.tool_calls:
        messages = [*messages, AssistantMessage(final)]
    return messages


def _searched(outcomes: Sequence[ToolOutcome]) -> list[str]:
    """Entity ids the model's ``SearchEntities`` calls found, for the trace's selection."""
    found: list[str] = []
    for outcome in outcomes:
        if outcome.name == SEARCH_TOOL and outcome.detail is not None:
            entity_ids = outcome.detail.get("entity_ids")
            if isinstance(entity_ids, list):
                found.extend(str(e) for e in entity_ids)
    return found
