"""The agent's own cost per model turn: ``Agent.process``'s wall time less the model and the disk.

A turn here is the full model path with an instant model. ``local_first`` is on and the sentence
("could you brighten things up with the <light>") is one Home Assistant's sentence templates do
not recognise, so each turn pays for: finding the conversation and its history (a new
conversation id each turn, so a store read), the local matcher's miss, the tool registry and the
system prompt, a first model call that asks for ``HassTurnOn`` on a light of the home by name and
domain, the tool call (target resolution and the virtual executor acting on the home model), a
second model call whose answer is the spoken reply, and handing the turn with both model calls
(their full request messages and tools) and the tool call to the store's writer, whose journal
entry's commit the reply waits for (``addon.store.turns.journal``: an answered turn is a stored
turn; the turn's own rows are written after the answer, in "bg" below).

The model is ``devtools.scripted_llm.ScriptedLLM`` on loopback, answering at once, reached
through the real ``openai`` client. Overhead per turn = the turn's wall time (around
``Agent.process``) minus the sum of the ``duration_ms`` of its model calls as recorded in the
store's ``llm_calls`` table. That duration is measured by ``LLMClient.complete`` around the
``openai`` call, so what is subtracted is more than the model: the openai client's request
building and JSON encoding of the messages and tools, the HTTP round trip on loopback, the
scripted server's parsing, validation and answer, and the client's response parsing. The
overhead is therefore the agent's own work only; the "model calls" column shows what was
subtracted (with a real model that time is dominated by inference).

The wait for the disk is the other outside latency taken off: an answered turn is synced to
the disk before its answer goes out (``addon.store.file.wal_sync``: the WAL's ``fsync`` in a
thread of its own), and how long that takes is the disk's, not the agent's (well under a
millisecond here, several on an SD card). The bench times each turn's wait for it and shows
it in its own column, "disk sync", as it shows the model's calls. The sync starts the moment
the turn's journal entry commits, and the little the agent still does for the turn before it
waits (the history, the result) runs while the disk syncs: it is inside this column, which is
right while the disk is the slower of the two (here about 0.8 ms against 0.05 ms).

The three homes (synthetic, seed 0, about 100, 1,000 and 10,000 entities) each get their own
agent, matcher, scripted model and fresh SQLite store in a temporary directory, and take turns
round by round (the 10,000-entity home every third round), so changes in machine load touch all
sizes alike. Warm-up turns come first (template parsing, slot lists, the overview cache, the
connection pools), so the figures are steady state: the first turn after the home sync swaps in
a new model (any registry change) also rebuilds the overview and the slot lists, which is not
measured here. Background work that runs after the reply (the outcome check, here with no
delay), the store's write of the turn's rows and of the verdict are awaited between turns
(``Agent.drain``), outside the timed window, and shown in their own column ("bg").

The breakdown columns are p50s of the turn's own timings: the local matcher's miss, the prompt and
registry, the loop minus the model calls (tool execution and message bookkeeping), history and
setup (conversation lookup, history read, context), and the store hand-over (wall minus the
``total`` the agent records just before handing the turn to the writer). Also shown: the database
file's growth per turn, and the openai SDK's parameter transform of one request, which is CPU in
our process but inside the subtracted model time. Load averages are printed, since other work on
the machine inflates wall times; the "cpu" column is the same overhead counted in process CPU time
(every thread, so the SQLite worker thread too) minus the process CPU time spent inside the model
calls (the client is wrapped to count it), which such load inflates less (CPU time is not waiting
time, though cache and scheduler contention still show in it).

The machine's pace is shown too: a fixed piece of pure-Python work (JSON, dicts, a sort) is
timed once a round between the turns (``reference_p50_ms`` in the JSON line). This virtual
machine's speed changes by half or more from minute to minute, and every column moves with it;
the overhead as a multiple of that work stays put, so two runs can be compared.

Targets at 1,000 entities: overhead p50 ≤ 3 ms and p95 ≤ 10 ms. With ``--profile``, the
1,000-entity turns also run under cProfile (which inflates their figures) and the top costs are
printed (and written to the file ``BENCH_PROFILE_OUT`` names, if set, for ``pstats``). The last
line is one JSON object.
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import json
import os
import pstats
import sys
import tempfile
import time
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from openai._utils import async_maybe_transform
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from sqlalchemy import select

from addon.agent.conversation import ConversationRequest
from addon.agent.service import Agent
from addon.config.settings import Options
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.home.model.source import FixedHome as StaticHome
from addon.llm.client import Completion as ModelAnswer
from addon.llm.client import LLMClient
from addon.local.matcher import LocalMatcher
from addon.store.database import Store
from addon.store.file import WalSync
from addon.store.models import LLMCall, Turn
from addon.store.turns import ConversationRecords
from devtools.scripted_llm import Completion, ScriptedLLM, ToolCall
from devtools.synthetic import synthetic_home

SIZES = (100, 1_000, 10_000)
ROUNDS = 400
EVERY = {100: 1, 1_000: 1, 10_000: 3}  # the 10,000-entity home takes every third round
WARMUP = 15
LIGHTS = 20
TARGET_P50_MS = 3.0
TARGET_P95_MS = 10.0
REPLY = "Done, the light is on."
SENTENCE = "could you brighten things up with the {name}"


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def light_names(model: HomeModel) -> list[str]:
    """Exposed lights whose name no other exposed entity shares, so HassTurnOn hits one."""
    exposed = model.exposed_entities()
    counts = Counter(entity.name.lower() for entity in exposed)
    names = [e.name for e in exposed if e.domain == "light" and counts[e.name.lower()] == 1]
    return names[:LIGHTS]


def responder(targets: dict[str, str]) -> Any:
    """First call: HassTurnOn on the light the user named; after the tool result: the reply."""

    def answer(body: dict[str, Any]) -> Completion:
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return Completion(REPLY)
        # The agent puts the time line in front of the user's words.
        name = targets[messages[-1]["content"].rsplit("\n", 1)[-1]]
        return Completion(tool_calls=(ToolCall("HassTurnOn", {"name": name, "domain": ["light"]}),))

    return answer


@dataclass(slots=True)
class Figures:
    """Per-turn figures in milliseconds for one home size."""

    wall: list[float] = field(default_factory=list)
    model: list[float] = field(default_factory=list)
    overhead: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    background: list[float] = field(default_factory=list)
    disk: list[float] = field(default_factory=list)
    parts: dict[str, list[float]] = field(default_factory=dict)
    first_request: dict[str, Any] = field(default_factory=dict)
    store_bytes_per_turn: float = 0.0
    sdk_transform: list[float] = field(default_factory=list)


async def model_ms(store: Store, turn_id: int) -> tuple[float, dict[str, float]]:
    """The summed duration of a turn's model calls, and the turn's own timings."""
    async with store.sessionmaker() as session:
        durations = await session.scalars(
            select(LLMCall.duration_ms).where(LLMCall.turn_id == turn_id)
        )
        total = sum(durations)
        timings = await session.scalar(select(Turn.timings).where(Turn.id == turn_id))
    return total, dict(timings or {})


class CPUTimedClient(LLMClient):
    """The real client, also adding up the process CPU time spent inside its calls.

    The scripted server runs in this process, so its work lands inside these calls too.
    """

    cpu_ms: float = 0.0

    async def complete(self, *args: Any, **kwargs: Any) -> ModelAnswer:
        """Ask the model, timing the process CPU used meanwhile."""
        start = time.process_time()
        try:
            return await super().complete(*args, **kwargs)
        finally:
            self.cpu_ms += (time.process_time() - start) * 1000.0


@dataclass(slots=True)
class DiskWaits:
    """The time turns spend waiting for their commit's sync to the disk, added up."""

    ms: float = 0.0

    def install(self) -> None:
        """Time every :meth:`WalSync.synced` from now on (one turn runs at a time here)."""
        original = WalSync.synced
        waits = self

        async def synced(sync: WalSync) -> bool:
            start = time.perf_counter()
            try:
                return await original(sync)
            finally:
                waits.ms += (time.perf_counter() - start) * 1000.0

        WalSync.synced = synced  # type: ignore[method-assign]


@dataclass(slots=True)
class Bench:
    """One home with its agent, store and scripted model, and the figures of its turns."""

    size: int
    agent: Agent
    store: Store
    llm: ScriptedLLM
    client: CPUTimedClient
    sentences: list[str]
    disk: DiskWaits
    figures: Figures = field(default_factory=Figures)
    turns: int = 0
    profiler: cProfile.Profile | None = None

    async def turn(self, *, measured: bool) -> None:
        """Run one turn; record its figures when ``measured``."""
        n = self.turns
        self.turns += 1
        text = self.sentences[n % len(self.sentences)]
        request = ConversationRequest(text, source="http", conversation_id=f"b{self.size}-{n}")
        profiler = self.profiler if measured else None
        if profiler is not None:
            profiler.enable()
        self.client.cpu_ms = 0.0
        self.disk.ms = 0.0
        cpu_start = time.process_time()
        start = time.perf_counter()
        result = await self.agent.process(request)
        wall = (time.perf_counter() - start) * 1000.0
        disk = self.disk.ms
        cpu = (time.process_time() - cpu_start) * 1000.0 - self.client.cpu_ms
        if profiler is not None:
            profiler.disable()
        start = time.perf_counter()
        await self.agent.drain()
        background = (time.perf_counter() - start) * 1000.0
        if result.handled_by != "llm" or result.reply != REPLY or not result.actions:
            raise SystemExit(f"unexpected turn for {text!r}: {result}")
        if not result.actions[0].success:
            raise SystemExit(f"HassTurnOn failed for {text!r}: {result.actions[0]}")
        if self.llm.problems:
            raise SystemExit(f"scripted model problems: {self.llm.problems}")
        if n == 0:
            self.figures.first_request = self.llm.requests[0].body
        self.llm.requests.clear()
        if not measured:
            return
        in_model, timings = await model_ms(self.store, result.turn_id)
        figures = self.figures
        figures.wall.append(wall)
        figures.model.append(in_model)
        figures.overhead.append(wall - in_model - disk)
        figures.disk.append(disk)
        figures.cpu.append(cpu)
        figures.background.append(background)
        local = timings.get("local_match", 0.0)
        prompt = timings.get("prompt", 0.0)
        loop = timings.get("loop", 0.0) - in_model
        total = timings.get("total", wall)
        for key, value in (
            ("local miss", local),
            ("prompt+registry", prompt),
            ("loop-model", loop),
            ("history, setup", total - in_model - local - prompt - loop),
            ("store hand-over", wall - total - disk),
        ):
            figures.parts.setdefault(key, []).append(value)

    async def measure_store(self) -> None:
        """Database file size per stored turn, after folding the WAL into the file."""
        store = self.store
        await store.checkpoint()
        self.figures.store_bytes_per_turn = store.path.stat().st_size / self.turns


async def open_bench(size: int, work: Path, stack: AsyncExitStack, disk: DiskWaits) -> Bench:
    """Build the home, the store, the scripted model and the agent for one size.

    Each agent gets its own matcher: a matcher keeps the slot lists of one home model, and
    sharing one between homes that take turns would rebuild them every turn.
    """
    model = synthetic_home(size, seed=0).build()
    matcher = LocalMatcher("en")
    matcher.prepare()
    names = light_names(model)
    sentences = [SENTENCE.format(name=name) for name in names]
    for text in sentences:
        if matcher.recognize(text, model) is not None:
            raise SystemExit(f"the local matcher recognises {text!r}; pick another sentence")
    store = await Store.open(work / f"bench_{size}.db")
    stack.push_async_callback(store.close)
    targets = dict(zip(sentences, names, strict=True))
    llm = await stack.enter_async_context(ScriptedLLM(default=responder(targets)))
    client = CPUTimedClient(
        base_url=llm.base_url,
        api_key="bench",
        model="scripted-model",
        temperature=0.0,
        timeout=30.0,
        max_retries=0,
    )
    stack.push_async_callback(client.close)
    agent = Agent(
        options=Options.model_validate({"local_first": True}),
        records=ConversationRecords(store),
        home=StaticHome(model),
        live_executor=VirtualExecutor(model),
        llm=client,
        local=matcher,
        outcome_delay=0.0,
    )
    return Bench(size, agent, store, llm, client, sentences, disk)


async def sdk_transform_ms(body: dict[str, Any], rounds: int = 30) -> list[float]:
    """The openai SDK's own walk over a request's parameters, which every ``create`` runs.

    ``chat.completions.create`` passes its parameters (messages, tools…) through
    ``async_maybe_transform`` against the ``CompletionCreateParams`` TypedDicts before encoding
    them; this is CPU spent in our process inside the time subtracted as "model calls".
    """
    params = {key: body[key] for key in ("model", "messages", "temperature", "tools")}
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        await async_maybe_transform(params, CompletionCreateParamsNonStreaming)
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def gc_timer(pauses: list[float]) -> Any:
    """A ``gc.callbacks`` hook appending the duration of each full (generation 2) collection."""
    started = [0.0]

    def hook(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((time.perf_counter() - started[0]) * 1000.0)

    return hook


def report(results: dict[int, Figures]) -> None:
    print("overhead per turn outside the model and the disk (wall − model calls − disk sync), ms:")
    print(
        f"{'entities':>8}  {'turns':>5}  {'p50':>7}  {'p95':>7}  {'p99':>7}  {'turns/s':>7}  "
        f"{'cpu p50':>7}  "
        f"{'wall p50':>8}  {'model p50':>9}  {'disk p50':>8}  {'disk p95':>8}  {'bg p50':>6}  "
        f"{'request':>7}  {'sdk xform':>9}  "
        f"{'db/turn':>7}"
    )
    for size, f in results.items():
        rate = len(f.overhead) / (sum(f.overhead) / 1000.0)
        request_kb = len(json.dumps(f.first_request)) / 1000.0
        print(
            f"{size:>8}  {len(f.overhead):>5}  {percentile(f.overhead, 50):>7.2f}  "
            f"{percentile(f.overhead, 95):>7.2f}  {percentile(f.overhead, 99):>7.2f}  "
            f"{rate:>7.0f}  {percentile(f.cpu, 50):>7.2f}  {percentile(f.wall, 50):>8.2f}  "
            f"{percentile(f.model, 50):>9.2f}  {percentile(f.disk, 50):>8.2f}  "
            f"{percentile(f.disk, 95):>8.2f}  "
            f"{percentile(f.background, 50):>6.2f}  {request_kb:>6.0f}k  "
            f"{percentile(f.sdk_transform, 50):>9.2f}  {f.store_bytes_per_turn / 1000:>6.0f}k"
        )
    print(
        "turns/s: turns per second of overhead alone (1000 / mean); cpu: the overhead in "
        "process CPU time (all threads; CPU inside the model calls subtracted), less sensitive "
        "to other programs' load; wall: whole process() call; "
        "model: both model calls as recorded; disk: the wait for the answered turn's sync to "
        "the disk (this machine's disk, not the agent's work); bg: after the reply, the "
        "outcome check and the "
        "store's write of the turn; request: first model request body; sdk xform: openai SDK "
        "parameter transform of that request, per "
        "call (inside 'model', not in the overhead); db/turn: database file growth per turn"
    )
    print()
    keys = list(next(iter(results.values())).parts)
    print("breakdown of the overhead, p50 ms:")
    print(f"{'entities':>8}  " + "  ".join(f"{key:>15}" for key in keys))
    for size, f in results.items():
        print(f"{size:>8}  " + "  ".join(f"{percentile(f.parts[k], 50):>15.2f}" for k in keys))


def reference_ms() -> float:
    """A fixed piece of pure-Python work (dicts, strings, JSON), timed: the machine's pace now.

    Taken once a round between the turns, it shows how fast this virtual machine runs while the
    turns are measured; its speed changes by half or more from minute to minute here, and every
    column above moves with it. The target stays in milliseconds; this says what the machine
    was doing when a run missed it.
    """
    start = time.perf_counter()
    data = {f"light_{n}": {"name": f"Light {n}", "state": "on", "area": n % 17} for n in range(400)}
    text = json.dumps(data)
    back = json.loads(text)
    ordered = sorted(back.items(), key=lambda item: (item[1]["area"], item[1]["name"]))
    _ = "".join(name for name, _entity in ordered).count("7")
    return (time.perf_counter() - start) * 1000.0


async def main() -> None:
    print(
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
        f"({os.cpu_count()} cores)"
    )
    with tempfile.TemporaryDirectory(prefix="agent_overhead_") as work:
        async with AsyncExitStack() as stack:
            disk = DiskWaits()
            disk.install()
            benches = [await open_bench(size, Path(work), stack, disk) for size in SIZES]
            profiler = cProfile.Profile() if "--profile" in sys.argv[1:] else None
            benches[SIZES.index(1_000)].profiler = profiler
            for _ in range(WARMUP):
                for bench in benches:
                    await bench.turn(measured=False)
            gc.collect()
            pauses: list[float] = []
            gc.callbacks.append(gc_timer(pauses))
            # Sizes take turns, so a change in machine load touches all of them alike.
            reference: list[float] = []
            for round_no in range(ROUNDS):
                reference.append(reference_ms())
                for bench in benches:
                    if round_no % EVERY[bench.size] == 0:
                        await bench.turn(measured=True)
            gc.callbacks.pop()
            for bench in benches:
                await bench.measure_store()
    results = {bench.size: bench.figures for bench in benches}
    for figures in results.values():
        figures.sdk_transform = await sdk_transform_ms(figures.first_request)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report(results)
    print(
        f"gen-2 garbage collections during the measured rounds: {len(pauses)}, "
        f"{sum(pauses):.0f} ms in all, longest {max(pauses, default=0.0):.1f} ms"
    )
    p50 = percentile(results[1_000].overhead, 50)
    p95 = percentile(results[1_000].overhead, 95)
    pace = percentile(reference, 50)
    print(
        f"the machine's pace: a fixed piece of pure-Python work took {pace:.2f} ms (p50 over "
        f"the rounds); the overhead p50 at 1,000 entities is {p50 / pace:.2f}× that work"
    )
    if profiler is not None:
        print()
        print("cProfile of the 1,000-entity turns (the whole process() window, scripted server")
        print("and openai client included; timings inflated by the profiler):")
        stats = pstats.Stats(profiler)
        if os.environ.get("BENCH_PROFILE_OUT"):
            stats.dump_stats(os.environ["BENCH_PROFILE_OUT"])
        stats.sort_stats("tottime").print_stats(20)
        print("the agent's own functions, by cumulative time:")
        stats.sort_stats("cumulative").print_stats("/addon/", 25)
    print()
    print(
        f"at 1,000 entities: p50 {p50:.2f} ms = {p50 / TARGET_P50_MS:.2f}× the {TARGET_P50_MS:.0f} "
        f"ms target ({'PASS' if p50 <= TARGET_P50_MS else 'FAIL'}); p95 {p95:.2f} ms = "
        f"{p95 / TARGET_P95_MS:.2f}× the {TARGET_P95_MS:.0f} ms target "
        f"({'PASS' if p95 <= TARGET_P95_MS else 'FAIL'})"
    )
    print(
        json.dumps(
            {
                "bench": "agent_overhead",
                "p50_ms_1000": round(p50, 3),
                "p95_ms_1000": round(p95, 3),
                "p50_ms_10000": round(percentile(results[10_000].overhead, 50), 3),
                "disk_sync_p50_ms_1000": round(percentile(results[1_000].disk, 50), 3),
                "reference_p50_ms": round(pace, 3),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
