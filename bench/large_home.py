"""Context selection in large homes: recall, prompt tokens beside Home Assistant's, prefix share.

For generated homes of about 1,000, 5,000 and 10,000 exposed entities (``devtools.large_home``:
synthetic homes with floors, areas, duplicate names, aliases, renames), each with 600 requests
written as people say them (partial names, aliases, area-only forms, kinds of device in an
area, follow-ups, remembered devices), targets known:

* **recall**: the share of requests whose target entities are all in the selected context;
* **tokens**: the mean request (system prompt, tool list, user's message with the time and the
  selected devices) in ``cl100k_base`` tokens, as ``bench/prompt.py`` counts them, beside Home
  Assistant's Assist API prompt with every entity and its state inline and the same request;
* **prefix share**: the exact common token prefix of consecutive requests (different requests,
  clock +30 s) over the second's length, mean over the set; the home part of the prompt does not
  change between them, so what differs is the user's message;
* **selection time**: :func:`addon.home.context.selection.select` per request, p95. Measured as the
  thread's CPU time: the benchmark machine is shared (load 10 on 2 cores), and wall-clock
  percentiles of a 0.2 ms call there measure the neighbours' time slices. The wall-clock p95 is
  printed beside it.

A second set, **natural**, is not generated: ``bench/data/natural_requests.yaml`` holds requests
in the style of real users (in English and German) over the homes in ``devtools/homes/``, each
with the devices it means, written apart from the selection's code and templates. Each home is
hidden among about 1,200 generated exposed entities (:mod:`devtools.hidden_home`) and every
request is selected with the home's recency (last state change); ``recall_natural`` is the share
whose meant devices are all selected. Misses are printed, with the note that told the model
how many devices of the kind were not listed, when there was one.

The budget is the option's default. The last line is one JSON object.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tiktoken
import yaml

from addon.agent.context import HomeContext
from addon.agent.prompt import (
    PromptInputs,
    build_system_prompt,
    turn_context_block,
    turn_user_content,
)
from addon.config.settings import Options
from addon.home.context.context_index import ContextIndex
from addon.home.context.overview import overview_entities
from addon.home.context.selection import SelectionRequest, select
from addon.home.model.live import HomeModel
from addon.llm.messages import ChatMessage, ToolMessage
from addon.tools.home_tools import build_registry
from addon.tools.search_tool import SearchEntitiesTool
from bench.prompt import ENCODING, START, common_prefix, ha_system_prompt
from devtools.hidden_home import hidden_home
from devtools.large_home import GeneratedRequest, generated_requests, large_home

SIZES = (1_000, 5_000, 10_000)
REQUESTS = 600
CLOCK_STEP = timedelta(seconds=30)
TARGET_RECALL = 0.99
TARGET_TOKEN_SHARE = 0.05
TARGET_PREFIX = 0.95
TARGET_P95_MS = 5.0
TARGET_NATURAL = 0.98
NATURAL = Path(__file__).resolve().parent / "data" / "natural_requests.yaml"
HOMES = Path(__file__).resolve().parent.parent / "devtools" / "homes"
NATURAL_AMONG = 1_200
"""Generated exposed entities each real home hides among."""


@dataclass(frozen=True, slots=True)
class Figures:
    """One home's measurements."""

    size: int
    exposed: int
    recall: float
    misses: dict[str, int]
    tokens: float
    tokens_ha: int
    prefix_share: float
    p95_cpu_ms: float
    p95_wall_ms: float
    mean_selected: float


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


async def _user_texts(
    model: HomeModel, context: HomeContext, requests: list[GeneratedRequest]
) -> list[str]:
    """Each request's user message as the agent sends it (time, selected devices, words)."""
    now = START
    texts = []
    for request in requests:
        history: list[ChatMessage] = [
            ToolMessage("", json.dumps({"data": {"success": [{"id": e}]}}))
            for e in request.history_entity_ids
        ]
        turn = await context.select(
            model,
            request.text,
            speaker_area_id=request.speaker_area_id,
            history=history,
            memory_entity_ids=request.memory_entity_ids,
        )
        texts.append(turn_user_content(request.text, now, [turn_context_block(turn.text)]))
        now += CLOCK_STEP
    return texts


def measure(size: int, encoding: tiktoken.Encoding) -> Figures:
    """Recall, tokens, prefix share and selection time for one generated home."""
    _home, model = large_home(size)
    requests = generated_requests(model, REQUESTS, seed=size)
    context = HomeContext(Options().overview_token_budget)
    prefix = context.prefix(model)
    assert prefix.large, "the generated home should be above the default budget"
    index = context.index(model)

    gc.collect()
    cpu: list[float] = []
    wall: list[float] = []
    misses: dict[str, int] = {}
    selected: list[int] = []
    for request in requests:
        selection_request = SelectionRequest(
            request.text,
            request.speaker_area_id,
            request.history_entity_ids,
            request.memory_entity_ids,
        )
        started_cpu, started = time.thread_time_ns(), time.perf_counter_ns()
        selection = select(index, selection_request)
        wall.append((time.perf_counter_ns() - started) / 1e6)
        cpu.append((time.thread_time_ns() - started_cpu) / 1e6)
        selected.append(len(selection.entities))
        if not request.targets <= set(selection.entity_ids):
            misses[request.form] = misses.get(request.form, 0) + 1

    system = build_system_prompt(
        PromptInputs(
            static_overview=prefix.overview, extra_instructions="", area_name=None, large_home=True
        )
    )
    tools = json.dumps(build_registry(model, [SearchEntitiesTool(context.index)]).specs())
    ha_tools = json.dumps(build_registry(model, []).specs())
    prefix_tokens = len(encoding.encode(system + tools))
    users = [encoding.encode(text) for text in asyncio.run(_user_texts(model, context, requests))]
    totals = [prefix_tokens + len(user) for user in users]
    shares = [
        (prefix_tokens + common_prefix(before, after)) / (prefix_tokens + len(after))
        for before, after in itertools.pairwise(users)
    ]
    ha_system = ha_system_prompt(model, START)
    ha_user = statistics.mean(len(encoding.encode(r.text)) for r in requests)
    tokens_ha = len(encoding.encode(ha_system + ha_tools)) + round(ha_user)
    return Figures(
        size=size,
        exposed=len(overview_entities(model)),
        recall=1 - sum(misses.values()) / len(requests),
        misses=misses,
        tokens=statistics.mean(totals),
        tokens_ha=tokens_ha,
        prefix_share=statistics.mean(shares),
        p95_cpu_ms=_percentile(cpu, 0.95),
        p95_wall_ms=_percentile(wall, 0.95),
        mean_selected=statistics.mean(selected),
    )


def measure_natural() -> tuple[int, int, list[str], float]:
    """Requests, how many had every meant device selected, the misses described, mean selected.

    A miss says when the turn told the model how many more of the kind it did not list.
    """
    requests = yaml.safe_load(NATURAL.read_text(encoding="utf-8"))
    total, hits, misses, selected = 0, 0, [], []
    for home, said in requests.items():
        model, _spec = hidden_home(HOMES / f"{home}.yaml", NATURAL_AMONG)
        index = ContextIndex.build(model)
        for request in said:
            speaker = request.get("speaker")
            selection = select(
                index,
                SelectionRequest(
                    request["text"],
                    f"real_{speaker}" if speaker else None,
                    state=model.state,
                ),
            )
            total += 1
            selected.append(len(selection.entities))
            missing = set(request["means"]) - set(selection.entity_ids)
            if missing:
                told = f" ({selection.unlisted_note().strip()})" if selection.unlisted else ""
                misses.append(f"{home}: {request['text']!r} missed {sorted(missing)}{told}")
            else:
                hits += 1
    return total, hits, misses, statistics.mean(selected)


def main() -> None:
    encoding = tiktoken.get_encoding(ENCODING)
    figures = [measure(size, encoding) for size in SIZES]
    natural_total, natural_hits, natural_misses, natural_selected = measure_natural()
    recall_natural = natural_hits / natural_total
    print(f"{REQUESTS} generated requests per home; tokens in {ENCODING}")
    print(
        f"{'home':>6} {'listed':>7} {'recall':>7} {'ours':>8} {'HA':>9} {'ours/HA':>8} "
        f"{'prefix':>7} {'p95 cpu':>8} {'p95 wall':>9} {'selected':>9}  misses"
    )
    for f in figures:
        print(
            f"{f.size:>6} {f.exposed:>7} {f.recall:>7.2%} {f.tokens:>8.0f} {f.tokens_ha:>9} "
            f"{f.tokens / f.tokens_ha:>8.1%} {f.prefix_share:>7.1%} {f.p95_cpu_ms:>6.2f}ms "
            f"{f.p95_wall_ms:>7.2f}ms {f.mean_selected:>9.1f}  {f.misses or '-'}"
        )
    print(
        f"natural: {natural_hits}/{natural_total} requests over {len(list(HOMES.glob('*.yaml')))}"
        f" homes, each among {NATURAL_AMONG:,} generated entities: {recall_natural:.2%};"
        f" {natural_selected:.1f} devices selected on average"
    )
    for miss in natural_misses:
        print(f"  {miss}")
    big = figures[-1]
    checks = {
        f"natural recall ≥ {TARGET_NATURAL:.0%}": recall_natural >= TARGET_NATURAL,
        f"recall ≥ {TARGET_RECALL:.0%}": big.recall >= TARGET_RECALL,
        f"tokens ≤ {TARGET_TOKEN_SHARE:.0%} of HA's": big.tokens
        <= TARGET_TOKEN_SHARE * big.tokens_ha,
        f"prefix share ≥ {TARGET_PREFIX:.0%}": big.prefix_share >= TARGET_PREFIX,
        f"selection p95 ≤ {TARGET_P95_MS:.0f} ms": big.p95_cpu_ms <= TARGET_P95_MS,
    }
    print("10,000: " + "; ".join(f"{k}: {'PASS' if ok else 'FAIL'}" for k, ok in checks.items()))
    print(
        json.dumps(
            {
                "bench": "large_home",
                "recall_10000": round(big.recall, 4),
                "recall_natural": round(recall_natural, 4),
                "natural_requests": natural_total,
                "natural_selected_mean": round(natural_selected, 1),
                "tokens_10000": round(big.tokens),
                "tokens_ha_10000": big.tokens_ha,
                "prefix_share_10000": round(big.prefix_share, 4),
                "select_p95_ms_10000": round(big.p95_cpu_ms, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
