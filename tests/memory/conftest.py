"""Fixtures for the memory tests: the real model client on the scripted model."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from addon.llm.client import LLMClient
from devtools.scripted_llm import ScriptedLLM


@pytest.fixture
async def llm(scripted_llm: ScriptedLLM) -> AsyncIterator[LLMClient]:
    """The real model client pointed at the scripted model, without retries."""
    client = LLMClient(
        base_url=scripted_llm.base_url,
        api_key="",
        model="scripted-model",
        temperature=0.0,
        timeout=5.0,
        max_retries=0,
    )
    yield client
    await client.close()
