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
from addon.i18n.translations import has_messages

PROGRAM_NAME = "Home Agent"
MODEL_NAME = "home-agent"
PROJECT_URL = "https://github.com/home-agent/home-agent-addon"
DESCRIPTION = "LLM voice and chat agent that acts through Assist intents"


def supported_languages() -> list[str]:
    """The languages Home Agent serves in full: sentences to match and its own words to speak.

    A model can answer in any language, but Home Assistant offers an agent only for a pipeline
    whose language the agent lists, so the list promises exactly what holds: every language
    Home Assistant ships sentence templates for (regional ones such as "de-CH" included) whose
    language also has Home Agent's messages (:mod:`addon.i18n.translations`).
    """
    return sorted(code for code in get_languages() if has_messages(code))


def build_info() -> Info:
    """The ``info`` answer: one installed handle program with one model."""
    attribution = Attribution(name="Home Agent", url=PROJECT_URL)
    model = HandleModel(
        name=MODEL_NAME,
        attribution=attribution,
        installed=True,
        description=DESCRIPTION,
        version=__version__,
        languages=supported_languages(),
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
