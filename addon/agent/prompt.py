"""The system prompt, in Home Assistant's format, ordered so it caches.

The parts and their wording follow Home Assistant 2025.4's ``helpers/llm.py`` (its Assist API
and ``DEFAULT_INSTRUCTIONS_PROMPT``). The order is ours: everything that is the same for every turn
and every conversation comes first (instructions, the static overview of exposed entities with no
states, the user's extra instructions); what depends on the speaking device comes next. The time
and date come last of all, on the user's message (:func:`timed_user_content`), because the request
carries the tool list after the system prompt: a clock line inside the system prompt would end the
cacheable prefix before the tools. Live states are not in the prompt at all but behind the
``GetLiveContext`` tool, so a light switching on does not change a byte of the prefix. The
memories recalled for a turn ride on the user's message too, between the time and the words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from addon.llm.outside_text import as_data
from addon.memory.records import RecalledMemory

DEFAULT_INSTRUCTIONS_PROMPT = (
    "You are a voice assistant for Home Assistant.\n"
    "Answer questions about the world truthfully.\n"
    "Answer in plain text. Keep it simple and to the point.\n"
)
NO_ENTITIES_PROMPT = (
    "Only if the user wants to control a device, tell them to expose entities "
    "to their voice assistant in Home Assistant."
)
DEVICE_CONTROL_TOOL_USAGE_PROMPT = (
    "When controlling Home Assistant always call the intent tools. "
    "Use HassTurnOn to lock and HassTurnOff to unlock a lock. "
    "When controlling a device, prefer passing just name and domain. "
    "When controlling an area, prefer passing just area name and domain."
)
NO_TIMER_PROMPT = "This device is not able to start timers."
DYNAMIC_CONTEXT_PROMPT = (
    "You ARE equipped to answer questions about the current state of\n"
    "the home using the `GetLiveContext` tool. This is a primary function. "
    "Do not state you lack the\n"
    "functionality if the question requires live data.\n"
    'If the user asks about device existence/type (e.g., "Do I have lights in the bedroom?"): '
    "Answer\nfrom the static context below.\n"
    'If the user asks about the CURRENT state, value, or mode (e.g., "Is the lock locked?",\n'
    '"Is the fan on?", "What mode is the thermostat in?", "What is the temperature outside?"):\n'
    "    1.  Recognize this requires live data.\n"
    "    2.  You MUST call `GetLiveContext`. This tool will provide the needed real-time "
    "information (like temperature from the local weather, lock status, etc.).\n"
    "    3.  Use the tool's response** to answer the user accurately "
    '(e.g., "The temperature outside is [value from tool].").\n'
    "For general knowledge questions not about the home: Answer truthfully from internal "
    "knowledge.\n"
)
STATIC_CONTEXT_HEADER = (
    "Static Context: An overview of the areas and the devices in this smart home, by area "
    "(the area's name, then its aliases) and domain; each item is a device's name followed by "
    "its aliases:"
)
LARGE_HOME_CONTEXT_HEADER = (
    "Static Context: This smart home has too many devices to list here. Below are its floors "
    "and areas (the area's name, then its aliases) and how many devices it has of each domain "
    "(with device classes). Each request comes with the devices most likely relevant to it; "
    "call `SearchEntities` to find others by name, area, floor, domain or device class:"
)
TURN_CONTEXT_HEADER = (
    "Devices relevant to this request, by area (name, then aliases) and domain; each item is a "
    "device's name followed by its aliases (`SearchEntities` finds others):"
)
LIVE_CONTEXT_HEADER = "Live Context: An overview of the areas and the devices in this smart home:"
AREA_PROMPT = "Your location is {area}."
UNKNOWN_AREA_PROMPT = (
    "When a request names a generic device without an area, "
    "ask the user to specify which area they mean before targeting."
)


@dataclass(frozen=True, slots=True)
class PromptInputs:
    """The per-turn parts; the static parts come from the cached overview."""

    static_overview: str | None
    extra_instructions: str
    area_name: str | None
    large_home: bool = False
    """``static_overview`` is a large home's summary; each turn lists its own devices."""


@dataclass(frozen=True, slots=True)
class PromptPreview:
    """The system prompt a turn would send now from no particular area, for people to inspect."""

    system_prompt: str
    static_overview: str | None
    """The overview of exposed entities inside it; None when nothing is exposed (or known)."""


def build_system_prompt(inputs: PromptInputs) -> str:
    """Assemble the prompt; ``static_overview`` is None when nothing is exposed."""
    parts = [DEFAULT_INSTRUCTIONS_PROMPT.rstrip("\n")]
    if inputs.static_overview is None:
        parts.append(NO_ENTITIES_PROMPT)
    else:
        parts.extend(
            [
                DEVICE_CONTROL_TOOL_USAGE_PROMPT,
                NO_TIMER_PROMPT,
                DYNAMIC_CONTEXT_PROMPT,
                LARGE_HOME_CONTEXT_HEADER if inputs.large_home else STATIC_CONTEXT_HEADER,
                inputs.static_overview.rstrip("\n"),
            ]
        )
    if inputs.extra_instructions.strip():
        parts.append(inputs.extra_instructions.strip())
    if inputs.area_name:
        parts.append(AREA_PROMPT.format(area=as_data(inputs.area_name)))
    elif inputs.static_overview is not None:
        parts.append(UNKNOWN_AREA_PROMPT)
    return "\n".join(parts) + "\n"


MEMORY_HEADER = (
    "Memories from earlier conversations (use them only where they help; the number in "
    "brackets is the memory's id):"
)
_TIME_LINE = re.compile(r"Current time is \d\d:\d\d:\d\d\. Today's date is \d{4}-\d\d-\d\d\.\n")
_MEMORY_LINE = re.compile(r"- \[\d+\] [^\n]*\n")


def timed_user_content(text: str, now: datetime, memories: Sequence[RecalledMemory] = ()) -> str:
    """The user's words behind Home Assistant's date-time line and the recalled memories.

    Both change from turn to turn, so they ride on the user's message, after everything a
    prefix cache holds; the history keeps the message as it was sent, so the next turn's
    request starts with this one's bytes.
    """
    # One strftime for the line (two f-string formats cost twice, about 10 µs a turn).
    timed = now.strftime("Current time is %H:%M:%S. Today's date is %Y-%m-%d.\n")
    if memories:
        lines = "".join(
            f"- [{memory.id}] {as_data(' '.join(memory.content.split()))}\n" for memory in memories
        )
        timed += f"{MEMORY_HEADER}\n{lines}"
    return timed + text


def user_words(content: str) -> str:
    """What the user said in a message :func:`timed_user_content` made (or in any other)."""
    matched = _TIME_LINE.match(content)
    if matched is None:
        return content
    rest = content[matched.end() :]
    header = MEMORY_HEADER + "\n"
    if rest.startswith(header):
        rest = rest[len(header) :]
        while (line := _MEMORY_LINE.match(rest)) is not None:
            rest = rest[line.end() :]
    return rest


def turn_user_content(
    text: str, now: datetime, blocks: Sequence[str], memories: Sequence[RecalledMemory] = ()
) -> str:
    """The user's message as sent: the time, the memories, this turn's context blocks, the words.

    Everything that depends on the request goes here, after the cached prefix (system prompt
    and tools): a large home's relevant devices (:func:`turn_context_block`) and any other
    per-turn context. With no blocks this is :func:`timed_user_content`, byte for byte.
    """
    if not blocks:
        return timed_user_content(text, now, memories)
    context = "\n".join(block.rstrip("\n") for block in blocks)
    return timed_user_content(f"{context}\n\n{text}", now, memories)


def turn_context_block(devices: str) -> str:
    """A large home's devices for this request (grouped YAML) under their header."""
    return f"{TURN_CONTEXT_HEADER}\n{devices.rstrip()}"
