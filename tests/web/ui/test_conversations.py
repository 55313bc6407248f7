"""The conversation list (pages, search, filters) and one conversation's trace."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import text

from addon.store.queries.conversations import PAGE_SIZE
from addon.store.turns import ToolCallRecord
from tests.web.ui.conftest import UI
from tests.web.ui.html import parse
from tests.web.ui.seed import T0, model_call, seed_many, seed_trace, seed_turn, tool_call


def listed(html: str) -> list[str]:
    """The conversation ids the list links to, in order."""
    return [
        ref.url.rsplit("/", 1)[1]
        for ref in parse(html).references
        if ref.attributes.get("class") == "row-title"
    ]


def link(html: str, label: str) -> str:
    """The href of the pager link with ``label``, as the browser would follow it."""
    for line in html.splitlines():
        if label in line and "href=" in line:
            return parse(line).references[0].url
    raise AssertionError(f"no {label!r} link")


async def follow(ui: UI, html: str, label: str) -> str:
    """Follow a pager link of the page (prefix removed, as the ingress proxy does)."""
    return await ui.page(link(html, label).removeprefix(ui.prefix).replace("&amp;", "&"))


async def test_list_shows_newest_activity_first(ui: UI) -> None:
    """Conversations are listed by their latest activity, newest first."""
    ids = await seed_many(ui.store, 3)
    await seed_turn(ui.store, ids[0], "and again", "Again.", at=T0 + timedelta(hours=1))
    assert listed(await ui.page("/conversations")) == [ids[0], ids[2], ids[1]]


async def test_pages_walk_the_whole_list_once(ui: UI) -> None:
    """Older links visit every conversation exactly once, then stop."""
    ids = await seed_many(ui.store, 2 * PAGE_SIZE + 5)
    html = await ui.page("/conversations")
    seen = listed(html)
    while "Older →" in html:
        html = await follow(ui, html, "Older →")
        seen += listed(html)
    assert seen == list(reversed(ids))


async def test_newer_link_returns_to_the_previous_page(ui: UI) -> None:
    """From the second page, Newer shows the first page again."""
    await seed_many(ui.store, PAGE_SIZE + 3)
    first = await ui.page("/conversations")
    second = await follow(ui, first, "Older →")
    back = await follow(ui, second, "← Newer")
    assert listed(back) == listed(first)
    assert "← Newer" not in back


async def test_paging_keeps_the_filters(ui: UI) -> None:
    """The pager links carry the search and filters along."""
    await seed_many(ui.store, PAGE_SIZE + 3)
    html = await ui.page("/conversations?q=lamp&source=wyoming")
    older = link(html, "Older →")
    assert "q=lamp" in older
    assert "source=wyoming" in older
    assert len(listed(await follow(ui, html, "Older →"))) == 3


async def test_search_matches_said_and_replied_text(ui: UI) -> None:
    """A word from the user's text or from the reply finds the conversation."""
    await seed_many(ui.store, 3)
    conversation_id, _ = await seed_trace(ui.store)
    assert listed(await ui.page("/conversations?q=switch+kitchen")) == [conversation_id]
    assert listed(await ui.page("/conversations?q=turned+lights")) == [conversation_id]


@pytest.mark.urls
async def test_search_shows_the_matching_turn(ui: UI) -> None:
    """A result quotes the turn that matched and links straight to it."""
    conversation_id, turn_id = await seed_trace(ui.store)
    html = await ui.page("/conversations?q=kitchen")
    assert f"{ui.prefix}/conversations/{conversation_id}#turn-{turn_id}" in html
    assert "“switch on the kitchen lights please”" in parse(html).text


async def test_search_text_is_never_query_syntax(ui: UI) -> None:
    """Quotes, operators and stray brackets are searched for, not parsed."""
    await seed_many(ui.store, 2)
    for query in ('"', "NEAR(", "lamp AND", "*", "a OR b", "col:x"):
        response = await ui.get("/conversations", params={"q": query})
        assert response.status == 200, query


async def test_search_without_matches_says_so(ui: UI) -> None:
    """A search that finds nothing says no conversation matches."""
    await seed_many(ui.store, 2)
    html = await ui.page("/conversations?q=zeppelin")
    assert listed(html) == []
    assert "No conversations match." in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("source=http", ["from-http"]),
        ("device=hall-satellite", ["failed-one"]),
        ("handled_by=failed", ["failed-one"]),
        ("handled_by=llm", ["from-http"]),
        ("error=1", ["failed-one"]),
        ("flagged=1", ["flagged-one"]),
        ("since=2026-11-21", ["flagged-one"]),
        ("until=2026-11-20", ["failed-one", "from-http"]),
    ],
)
async def test_filters_narrow_the_list(ui: UI, query: str, expected: list[str]) -> None:
    """Each filter keeps only the conversations it describes."""
    await seed_turn(ui.store, "from-http", "hi", "Hello.", at=T0, source="http")
    await seed_turn(
        ui.store,
        "failed-one",
        "hi",
        "Sorry.",
        at=T0 + timedelta(hours=1),
        device_id="hall-satellite",
        handled_by="failed",
        error="timeout",
    )
    await seed_turn(
        ui.store,
        "flagged-one",
        "hi",
        "I've turned on the light.",
        at=T0 + timedelta(days=2),
        handled_by="local",
        flagged=True,
    )
    assert listed(await ui.page(f"/conversations?{query}")) == expected


async def seed_home_and_evaluation(ui: UI) -> None:
    """One conversation of the household and, later, one of an evaluation run."""
    await seed_turn(ui.store, "said-at-home", "hello lamp", "Hello.", at=T0)
    later = T0 + timedelta(hours=1)
    await seed_turn(ui.store, "evaluation-task", "hello lamp", "Hello.", at=later, source="eval")


@pytest.mark.parametrize("query", ["", "q=lamp"])
async def test_evaluation_runs_are_hidden_by_default(ingress_ui: UI, query: str) -> None:
    """The list and its search leave evaluation conversations out unless asked for."""
    await seed_home_and_evaluation(ingress_ui)
    assert listed(await ingress_ui.page(f"/conversations?{query}")) == ["said-at-home"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("evaluation=1", ["evaluation-task", "said-at-home"]),
        ("source=eval", ["evaluation-task"]),
    ],
)
async def test_a_filter_shows_evaluation_runs(
    ingress_ui: UI, query: str, expected: list[str]
) -> None:
    """Ticking "Include evaluation runs", or choosing the source eval, lists them."""
    await seed_home_and_evaluation(ingress_ui)
    assert listed(await ingress_ui.page(f"/conversations?{query}")) == expected


@pytest.mark.parametrize(
    "query",
    ["after=garbage", "before=2026-13-01T00:00:00_x", "since=yesterday", "handled_by=robot"],
)
async def test_malformed_parameters_are_a_400_page(ui: UI, query: str) -> None:
    """A hand-edited query string gets a 400 page, not an error."""
    response = await ui.get(f"/conversations?{query}")
    assert response.status == 400
    assert response.content_type == "text/html"


async def test_trace_shows_the_kind_of_a_failure(ui: UI) -> None:
    """A failed turn's error is shown with its kind, so a timeout reads apart from a bad key."""
    await seed_turn(
        ui.store,
        "failed-auth",
        "hi",
        "Sorry, the language model rejected my API key.",
        at=T0,
        handled_by="failed",
        error="the model endpoint refused the API key",
        error_kind="llm_auth",
    )
    page = parse(await ui.page("/conversations/failed-auth")).text
    assert "Error llm auth the model endpoint refused the API key" in page


async def test_trace_shows_a_large_homes_selection_and_its_reasons(ui: UI) -> None:
    """A large home's turn shows the entities selected and why, and how many were left out."""
    context = {
        "selected": [
            {"entity_id": "light.lounge", "name": "Ceiling Light", "reasons": ["area", "name"]},
            {"entity_id": "light.desk", "name": "Desk Lamp", "reasons": ["search"]},
        ],
        "areas": ["living_room"],
        "floors": [],
        "kinds": ["light"],
        "unlisted": {"light": 212},
        "select_ms": 0.21,
    }
    await seed_turn(ui.store, "large-1", "big light on", "Done.", at=T0, context=context)
    page = parse(await ui.page("/conversations/large-1")).text
    assert "Context selected (2 entities, large home)" in page
    assert "areas: living_room" in page
    assert "not listed: 212 more light" in page
    assert "Ceiling Light light.lounge area, name" in page
    assert "Desk Lamp light.desk search" in page


async def test_trace_shows_each_step_of_a_turn(ui: UI) -> None:
    """The timeline holds what was heard, the model call, the tool call, the reply, the check."""
    conversation_id, turn_id = await seed_trace(ui.store)
    page = parse(await ui.page(f"/conversations/{conversation_id}"))
    text = page.text
    for expected in (
        "Heard switch on the kitchen lights please",
        "Model call 1 · scripted-model",
        "412 prompt + 23 completion tokens",
        "first token 180 ms",
        "finish: stop",
        "Tool HassTurnOn virtual",
        "Replied I've turned on the kitchen lights.",
        "Outcome check confirmed",
    ):
        assert expected in text, expected
    assert f'id="turn-{turn_id}"' in await ui.page(f"/conversations/{conversation_id}")


async def test_a_call_without_reported_usage_shows_tokens_unknown(ui: UI) -> None:
    """A stream that reported no usage reads "tokens unknown", never "0 prompt + 0"."""
    call = replace(model_call("hello", "Hi.", at=T0), prompt_tokens=0, completion_tokens=0)
    await seed_turn(ui.store, "no-usage", "hello", "Hi.", at=T0, llm_calls=[call])
    text = parse(await ui.page("/conversations/no-usage")).text
    assert "tokens unknown" in text
    assert "0 prompt" not in text


async def test_trace_holds_the_exact_messages_in_details(ui: UI) -> None:
    """The messages sent to the model are in a collapsed details element, as JSON too."""
    conversation_id, _ = await seed_trace(ui.store)
    html = await ui.page(f"/conversations/{conversation_id}")
    assert "<summary>Messages sent" in html
    assert "You are a voice assistant for a home." in html
    assert "&#34;role&#34;: &#34;system&#34;" in html


async def test_trace_shows_the_tools_offered(ui: UI) -> None:
    """The tool list sent with a model call is in its own details element."""
    conversation_id, _ = await seed_trace(ui.store)
    html = await ui.page(f"/conversations/{conversation_id}")
    assert '<summary>Tools offered <span class="muted">(1)</span>' in html
    assert "&#34;name&#34;: &#34;HassTurnOn&#34;" in html


async def test_trace_shows_calls_stored_before_payloads_were_shared(ui: UI) -> None:
    """A model call stored with its prompt and tools inline (an older version) still shows."""
    turn_id = await seed_turn(ui.store, "inline-1", "hello", "Hi.", at=T0)
    messages = [
        {"role": "system", "content": "An inline prompt."},
        {"role": "user", "content": "hello"},
    ]
    offered = [{"type": "function", "function": {"name": "InlineTool"}}]
    async with ui.store.sessionmaker.begin() as session:
        await session.execute(
            text(
                "INSERT INTO llm_calls (turn_id, seq, started_at, model, streamed, "
                "request_messages, request_tools, response, prompt_tokens, completion_tokens, "
                "duration_ms) VALUES (:turn, 1, '2026-11-20 09:00:00.000000', 'old-model', 0, "
                ":messages, :tools, '{}', 0, 0, 0.0)"
            ),
            {"turn": turn_id, "messages": json.dumps(messages), "tools": json.dumps(offered)},
        )
    html = await ui.page("/conversations/inline-1")
    assert "Model call 1 · old-model" in parse(html).text
    assert "<pre>An inline prompt.</pre>" in html
    assert "&#34;name&#34;: &#34;InlineTool&#34;" in html


async def test_trace_shows_a_local_match(ui: UI) -> None:
    """A turn answered locally shows the sentence match and the intent it ran."""
    await seed_turn(
        ui.store,
        "local-1",
        "turn on the kitchen lights",
        "Turned on the lights",
        at=T0,
        handled_by="local",
        tool_calls=[
            tool_call(
                "HassTurnOn", {"name": "kitchen lights"}, {"speech": {}}, at=T0, llm_call=None
            )
        ],
    )
    text = parse(await ui.page("/conversations/local-1")).text
    assert "Local sentence match" in text
    assert "Tool HassTurnOn" in text
    assert "Model call" not in text


async def test_a_sentence_nothing_matched_is_handed_on_not_shown_as_a_match(ui: UI) -> None:
    """No sentence matched: the local step says so and that the model took over, not green."""
    await seed_turn(
        ui.store,
        "miss-1",
        "could you brighten things up",
        "Done.",
        at=T0,
        llm_calls=[model_call("could you brighten things up", "Done.", at=T0)],
        timings={"local_match": 14.0},
    )
    html = await ui.page("/conversations/miss-1")
    text = parse(html).text
    assert "Local sentence match handed to the model no sentence matched (14 ms)" in text
    assert "matched in" not in text
    assert 'class="step local-miss"' in html
    assert 'class="step local"' not in html


async def test_a_sentence_matched_but_not_done_locally_says_why_it_moved_on(ui: UI) -> None:
    """A sentence matched, its intent failed here, the model was asked: one plain line."""
    await seed_turn(
        ui.store,
        "miss-2",
        "turn on the porch light",
        "Done.",
        at=T0,
        llm_calls=[model_call("turn on the porch light", "Done.", at=T0)],
        timings={"local_match": 14.0, "local_miss": 5.0},
    )
    text = parse(await ui.page("/conversations/miss-2")).text
    assert "a sentence matched in 14 ms, but could not be done here (5 ms)" in text
    assert "no sentence matched" not in text


def gate_record(status: str) -> ToolCallRecord:
    """The gate's own line in a turn: a question held, answered or set aside."""
    return replace(
        tool_call("confirmation", {}, {"confirmation": status}, at=T0, llm_call=None),
        call_id="confirmation",
        executor="gate",
    )


async def test_a_hold_is_shown_after_the_model_call_that_asked_for_it(ui: UI) -> None:
    """The model asked to unlock, the gate held it: model call, then the hold, then the reply."""
    await seed_turn(
        ui.store,
        "held-1",
        "unlock the front door",
        "Unlock the Front Door?",
        at=T0,
        llm_calls=[model_call("unlock the front door", "", at=T0)],
        tool_calls=[
            tool_call("HassTurnOff", {"name": "Front Door"}, {}, at=T0, llm_call=0),
            gate_record("Held for confirmation"),
        ],
        timings={"local_match": 3.0},
    )
    text = parse(await ui.page("/conversations/held-1")).text
    order = [
        text.index(step)
        for step in ("Heard", "Local sentence match", "Model call 1", "Held for confirmation")
    ]
    assert order == sorted(order)
    assert text.index("Held for confirmation") < text.index("Replied")


async def test_a_question_set_aside_comes_before_the_new_request(ui: UI) -> None:
    """A new request said instead of yes: the cancelled question is the turn's first step."""
    await seed_turn(
        ui.store,
        "superseded-1",
        "lock the front door",
        "Locked.",
        at=T0,
        handled_by="local",
        tool_calls=[
            gate_record("Cancelled by a new request"),
            tool_call("HassTurnOn", {"name": "Front Door"}, {}, at=T0, llm_call=None),
        ],
        timings={"local_match": 3.0},
    )
    text = parse(await ui.page("/conversations/superseded-1")).text
    assert text.index("Cancelled by a new request") < text.index("Local sentence match")
    assert "Local sentence match matched in 3 ms Tool HassTurnOn" in text


async def test_the_list_says_how_each_conversation_ended(ui: UI) -> None:
    """Four "unlock the front door" conversations read apart: waiting, confirmed, failed, done."""
    door = "unlock the front door"
    endings = {
        "end-waiting": ("Unlock the Front Door?", [gate_record("Held for confirmation")], None),
        "end-failed": ("Front Door is not exposed", [], "not exposed"),
        "end-answered": ("The front door is unlocked.", [], None),
    }
    for number, (conversation_id, (reply, records, error)) in enumerate(endings.items()):
        at = T0 + timedelta(minutes=number)
        await seed_turn(
            ui.store, conversation_id, door, reply, at=at, tool_calls=records, error=error
        )
    await seed_turn(ui.store, "end-confirmed", door, "Unlock the Front Door?", at=T0)
    await seed_turn(
        ui.store,
        "end-confirmed",
        "yes",
        "Unlocked.",
        at=T0 + timedelta(minutes=5),
        tool_calls=[gate_record("Confirmed")],
    )
    rows = {
        row.attributes.get("href", "").rsplit("/", 1)[-1]: row
        for row in parse(await ui.page("/conversations")).references
        if row.attributes.get("class") == "row-title"
    }
    assert set(endings) | {"end-confirmed"} <= set(rows)
    text = parse(await ui.page("/conversations")).text
    for expected in (
        f"{door} waiting for an answer",
        "→ “Unlock the Front Door?”",
        f"{door} failed",
        f"{door} confirmed",
        "→ “Unlocked.”",
        "→ “The front door is unlocked.”",
    ):
        assert expected in text, expected


async def test_trace_shows_errors_and_flags(ui: UI) -> None:
    """A failed model call, a tool error and a flagged outcome are all visible."""
    await seed_turn(
        ui.store,
        "bad-1",
        "unlock the door",
        "I've unlocked the door.",
        at=T0,
        error="the model gave up",
        flagged=True,
        llm_calls=[model_call("unlock the door", "", at=T0, error="429 rate limited")],
        tool_calls=[tool_call("HassTurnOff", {}, {}, at=T0, llm_call=0, error="no such door")],
    )
    text = parse(await ui.page("/conversations/bad-1")).text
    assert "429 rate limited" in text
    assert "no such door" in text
    assert "Error the model gave up" in text
    assert "Outcome check mismatch flagged" in text
    assert "the reply claims an action but no tool acted" in text


async def test_a_call_that_did_not_happen_is_badged_beside_its_executor(ui: UI) -> None:
    """An intent's error answer is "failed", the gate's refusal "refused"; a done call neither."""
    not_exposed = {
        "response_type": "error",
        "data": {"code": "no_valid_targets"},
        "speech": {"plain": {"speech": "Front Door is not exposed"}},
    }
    refused = {
        "error": "ToolError",
        "error_text": "refused",
        "gate": [{"verdict": "refuse", "subject": "shell_command.wipe"}],
    }
    done = {"response_type": "action_done", "data": {"success": [], "failed": []}}
    await seed_turn(
        ui.store,
        "not-done",
        "unlock the door and wipe",
        "Sorry, Front Door is not exposed",
        at=T0,
        tool_calls=[
            tool_call("HassTurnOff", {}, not_exposed, at=T0, llm_call=None),
            tool_call("wipe", {}, refused, at=T0, llm_call=None),
            tool_call("HassTurnOn", {}, done, at=T0, llm_call=None),
        ],
    )
    html = await ui.page("/conversations/not-done")
    virtual = '<span class="badge virtual">virtual</span>'
    assert f'HassTurnOff</span> {virtual} <span class="badge failed">failed</span>' in html
    assert f'wipe</span> {virtual} <span class="badge failed">refused</span>' in html
    assert f"HassTurnOn</span> {virtual}</div>" in html


@pytest.mark.urls
async def test_entity_links_open_home_assistant_only_inside_it(ui: UI) -> None:
    """Behind ingress an acted-on entity links to its settings in HA's top window."""
    conversation_id, _ = await seed_trace(ui.store)
    references = parse(await ui.page(f"/conversations/{conversation_id}")).references
    entity_links = [ref for ref in references if ref.url.startswith("/config/entities")]
    if ui.prefix:
        assert {(ref.url, ref.attributes.get("target")) for ref in entity_links} == {
            ("/config/entities?search=light.kitchen_lights", "_top")
        }
    else:
        assert entity_links == []


@pytest.mark.urls
async def test_trace_offers_to_continue_in_chat(ui: UI) -> None:
    """The trace page links to the chat, continuing this conversation."""
    conversation_id, _ = await seed_trace(ui.store)
    html = await ui.page(f"/conversations/{conversation_id}")
    assert f'href="{ui.prefix}/chat?conversation={conversation_id}"' in html
