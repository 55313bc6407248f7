"""The memory tools over ``/mcp``: an MCP client remembers, recalls and forgets like the model."""

from __future__ import annotations

from addon import keys
from addon.memory.service import MemoryService
from tests.web.api.conftest import AppClient
from tests.web.mcp.official import official_client


async def test_the_memory_tools_are_offered(direct: AppClient) -> None:
    """With memory on (the default) the client lists remember, recall_memories, forget_memory."""
    async with official_client(direct) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert {"remember", "recall_memories", "forget_memory"} <= names


async def test_a_client_remembers_and_recalls(direct: AppClient) -> None:
    """What a client asks to keep is stored, confirmed, and found again by a later call."""
    async with official_client(direct) as client:
        kept = await client.call_tool("remember", {"content": "The cat is called Miso."})
        found = await client.call_tool("recall_memories", {"query": "what is the cat called"})
    assert kept.is_error is False
    assert found.is_error is False
    assert "Miso" in str(found.structured_content)
    service = direct.app[keys.MEMORY_CHANGES]
    assert isinstance(service, MemoryService)
    assert [record.content for record in await service.search("cat")] == ["The cat is called Miso."]


async def test_a_secret_sent_by_a_client_is_refused(direct: AppClient) -> None:
    """The secrets rule holds for MCP clients too: nothing is stored."""
    async with official_client(direct) as client:
        refused = await client.call_tool("remember", {"content": "The alarm code is 4711."})
    service = direct.app[keys.MEMORY_CHANGES]
    assert isinstance(service, MemoryService)
    assert await service.search("alarm code") == ()
    assert "4711" not in str(refused.structured_content)


async def test_a_memory_longer_than_the_panel_allows_is_refused(direct: AppClient) -> None:
    """24,000 characters through MCP ``remember`` are refused unread, as the panel refuses them."""
    async with official_client(direct) as client:
        refused = await client.call_tool("remember", {"content": "code-" * 4800})
    assert "too_long" in str(refused.structured_content)
    service = direct.app[keys.MEMORY_CHANGES]
    assert isinstance(service, MemoryService)
    assert await service.search("code") == ()
