"""What Home Agent tells a Wyoming client about itself in answer to ``describe``.

Home Assistant's Wyoming integration builds its conversation entity from this: the program's
name becomes the agent's name (``conversation.home_agent``), the model's languages the languages
the agent is offered for, and ``supports_home_control`` makes newer releases mark the agent as
one that controls devices (``ConversationEntityFeature.CONTROL``); 2025.4 ignores the flag.
"""

from __future__ import annotations

from home_assistant_intents import get_languages
from wyoming.info import Attribution, HandleModel, HandleProgram, Info

from addon import __version__

PROGRAM_NAME = "Home Agent"
MODEL_NAME = "home-agent"
PROJECT_URL = "https://github.com/home-agent/home-agent-addon"
DESCRIPTION = "LLM voice and chat agent that acts through Assist intents"


def supported_languages(configured: str) -> list[str]:
    """Every language Home Assistant's sentence templates ship, plus the configured one.

    A model can answer in any language, but Home Assistant only offers an agent for a pipeline
    whose language the agent lists, so we list explicitly what the local path knows, and the
    configured language even when no templates exist for it (the model path still works).
    """
    return sorted({*get_languages(), configured, "en"})


def build_info(language: str) -> Info:
    """The ``info`` answer: one installed handle program with one model."""
    attribution = Attribution(name="Home Agent", url=PROJECT_URL)
    model = HandleModel(
        name=MODEL_NAME,
        attribution=attribution,
        installed=True,
        description=DESCRIPTION,
        version=__version__,
        languages=supported_languages(language),
    )
    program = HandleProgram(
        name=PROGRAM_NAME,
        attribution=attribution,
        installed=True,
        description=DESCRIPTION,
        version=__version__,
        models=[model],
        supports_handled_streaming=True,
        supports_home_control=True,
    )
    return Info(handle=[program])
