"""The ``tool_budget`` option: only the tools the request's selected entities need are offered."""

from __future__ import annotations

from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import MakeAgent, ask


async def offered(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, text: str, **options: object
) -> set[str]:
    """The tool names the model was offered for ``text``."""
    scripted_llm.reply("Done.")
    await make_agent(llm=scripted_llm, local_first=False, **options).process(ask(text))
    return {tool["function"]["name"] for tool in scripted_llm.chat_requests[-1].tools}


async def test_off_by_default_every_tool_is_offered(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """Without the option a light request still gets the thermostat and media tools."""
    names = await offered(make_agent, scripted_llm, "kitchen lights off")
    assert {"HassLightSet", "HassClimateSetTemperature", "HassMediaPause"} <= names


async def test_a_light_request_gets_the_light_tools_and_the_always_on_ones(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """The light's domain brings HassLightSet; other domains' intents stay out."""
    full = await offered(make_agent, scripted_llm, "ceiling lights off")
    names = await offered(make_agent, scripted_llm, "ceiling lights off", tool_budget=True)
    assert {"HassTurnOn", "HassTurnOff", "HassLightSet", "GetLiveContext", "GetDateTime"} <= names
    assert "HassClimateSetTemperature" not in names
    assert "HassMediaPause" not in names
    assert names < full
    assert "HassMediaPause" in full


async def test_a_thermostat_request_gets_the_climate_tool(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """A selected climate entity brings the climate intent, and not the light's."""
    names = await offered(
        make_agent, scripted_llm, "set the ecobee thermostat to 21 degrees", tool_budget=True
    )
    assert "HassClimateSetTemperature" in names
    assert "HassLightSet" not in names
