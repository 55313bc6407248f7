"""Server time of the web UI's heaviest pages over a large history.

Seeds 100,000 conversations with 1,000,000 turns and their traces (a model call on about every
third turn, a tool call on about every fourth) into a SQLite file migrated by the store's own
migrations, with raw ``executemany`` inserts. The model calls reference one shared system prompt
and tool list in ``llm_payloads``, as the store writes them. The file is cached under the temp
directory, keyed by a hash of the migrations and of this seeder, so later runs skip the seeding.

It then starts the real application (``create_app``) in-process on a loopback port and times
requests through its handlers, ingress prefix included:

* list: the first page, and a page reached by a cursor deep in the history;
* search: a few queries, from a rare word to common phrases;
* detail: conversation pages picked at random.

The Memories page is timed over a database of its own holding ``MEMORIES`` memories (ten times
the default limit per home): its list, a filtered list, searches and memory pages.

Targets: p95 ≤ 100 ms each. The dashboard is timed too, for information: its month view reads
every turn of the month, which at this volume (half a million) takes seconds. The last line
printed is one JSON object for tooling.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import logging
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from aiohttp.test_utils import TestClient, TestServer

from addon.app import create_app
from addon.config.settings import Options, Settings
from addon.store.database import Store
from addon.store.memories import memories
from addon.store.migrate import MIGRATIONS_DIR
from devtools.standalone import standalone_settings

SEED_VERSION = "2"
CONVERSATIONS = 100_000
TURNS = 1_000_000
SEED = 7
SPAN_DAYS = 60
TARGET_MS = 100.0
PREFIX = "/api/hassio_ingress/benchtoken"
SAMPLES = 40
SEARCHES = ("jazz", "garage door", "kitchen light", "turn on the bedroom lamp", "temperature")
MEMORIES = 10_000
MEMORY_KINDS = ("fact", "preference", "context", "event")
MEMORY_SEARCHES = ("jazz", "garage door", "kitchen", "bedroom lamp")

AREAS = (
    "kitchen", "bedroom", "living room", "office", "garage", "hallway", "bathroom", "garden",
    "basement", "attic", "porch", "nursery", "study", "dining room", "laundry",
)  # fmt: skip
DEVICES = (
    "light", "lamp", "ceiling light", "fan", "heater", "blinds", "door", "window", "speaker",
    "tv", "thermostat", "switch", "plug", "lock", "vacuum",
)  # fmt: skip
ASKS = (
    ("turn on the {area} {device}", "Turned on the {area} {device}.", "HassTurnOn"),
    ("turn off the {area} {device}", "Turned off the {area} {device}.", "HassTurnOff"),
    ("is the {area} {device} on", "The {area} {device} is off.", "HassGetState"),
    ("what's the temperature in the {area}", "It is 21 degrees in the {area}.", "HassGetState"),
    ("set the {area} {device} to 40 percent", "Set the {area} {device} to 40%.", "HassLightSet"),
    ("play some {genre} in the {area}", "Playing {genre} on the {area} speaker.", "HassMediaPlay"),
    ("close the {area} {device}", "Closed the {area} {device}.", "HassTurnOff"),
    ("how long until sunset", "Sunset is in 2 hours and 12 minutes.", "GetDateTime"),
)
GENRES = ("jazz", "rock", "classical", "podcasts", "news", "ambient", "folk", "blues")
SYSTEM_PROMPT = "You are a voice assistant for a home. " * 8
TOOLS = json.dumps(
    [{"type": "function", "function": {"name": name}} for name in ("HassTurnOn", "HassTurnOff")],
    separators=(",", ":"),
)
SYSTEM_PROMPT_HASH = hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest()
TOOLS_HASH = hashlib.sha256(TOOLS.encode()).hexdigest()


def schema_hash() -> str:
    """Changes when a migration or the seeder changes, so a stale cache is never reused."""
    digest = hashlib.sha256(SEED_VERSION.encode())
    for function in (rows, utterance, seed):
        digest.update(inspect.getsource(function).encode())
    for path in sorted(MIGRATIONS_DIR.rglob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def stamp(moment: datetime) -> str:
    """SQLAlchemy's SQLite DateTime storage format (naive UTC)."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def utterance(rng: random.Random) -> tuple[str, str, str, str, str]:
    user, reply, intent = rng.choice(ASKS)
    area, device, genre = rng.choice(AREAS), rng.choice(DEVICES), rng.choice(GENRES)
    fill = {"area": area, "device": device, "genre": genre}
    entity = f"light.{area.replace(' ', '_')}_{device.replace(' ', '_')}"
    return user.format(**fill), reply.format(**fill), intent, entity, area


def rows(rng: random.Random, now: datetime) -> Iterator[tuple[str, list[Any]]]:
    """(table, row) in insertion order; ids are assigned here so children can refer to them."""
    start = now - timedelta(days=SPAN_DAYS)
    step = (SPAN_DAYS * 86400.0) / CONVERSATIONS
    turn_id = llm_id = tool_id = 0
    remaining = TURNS
    for number in range(CONVERSATIONS):
        left = CONVERSATIONS - number
        count = remaining // left if left > 1 else remaining
        count = max(1, min(remaining - (left - 1), count + rng.randint(-3, 3)))
        remaining -= count
        conversation_id = f"{number:08d}{rng.getrandbits(64):016x}"
        began = start + timedelta(seconds=number * step + rng.random() * step / 4)
        source = rng.choice(("wyoming", "wyoming", "wyoming", "http", "ui", "openai"))
        device = f"satellite-{rng.randint(1, 12)}" if source == "wyoming" else None
        texts: list[tuple[str, ...]] = []
        errors = flags = 0
        moment = began
        turn_rows: list[tuple[str, list[Any]]] = []
        for seq in range(1, count + 1):
            turn_id += 1
            moment += timedelta(seconds=rng.uniform(2, 20))
            user, reply, intent, entity, _area = utterance(rng)
            texts.append((user,))
            with_llm = turn_id % 3 == 0
            with_tool = turn_id % 4 == 0
            failed = rng.random() < 0.01
            flagged = rng.random() < 0.005
            handled_by = "failed" if failed else ("llm" if with_llm else "local")
            error = "model endpoint timed out" if failed else None
            errors += failed
            flags += flagged
            duration = rng.lognormvariate(6.5 if with_llm else 3.0, 0.5)
            prompt_tokens = rng.randint(900, 2400) if with_llm else 0
            completion_tokens = rng.randint(8, 60) if with_llm else 0
            messages = [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
            turn_rows.append(
                (
                    "turns",
                    [
                        turn_id, conversation_id, seq, stamp(moment), user, reply, handled_by,
                        "en", 0, error, duration, prompt_tokens, completion_tokens,
                        json.dumps(messages), json.dumps({"total": duration}),
                        "mismatch" if flagged else "confirmed", json.dumps({}), int(flagged),
                    ],
                )
            )  # fmt: skip
            current_llm: int | None = None
            if with_llm:
                llm_id += 1
                current_llm = llm_id
                request = [
                    {"role": "system", "content_ref": SYSTEM_PROMPT_HASH},
                    {"role": "user", "content": user},
                ]
                response = {"role": "assistant", "content": reply}
                turn_rows.append(
                    (
                        "llm_calls",
                        [
                            llm_id, turn_id, 1, stamp(moment), "gpt-4o-mini", 1,
                            json.dumps(request), json.dumps([]), SYSTEM_PROMPT_HASH, TOOLS_HASH,
                            json.dumps(response),
                            prompt_tokens, completion_tokens, duration * 0.3, duration * 0.8,
                            "stop", None,
                        ],
                    )
                )  # fmt: skip
            if with_tool:
                tool_id += 1
                result = {
                    "response_type": "action_done",
                    "data": {"success": [{"name": user, "type": "entity", "id": entity}]},
                }
                turn_rows.append(
                    (
                        "tool_calls",
                        [
                            tool_id, turn_id, current_llm, 1, f"call_{tool_id}", stamp(moment),
                            intent, json.dumps({"name": entity}), json.dumps(result),
                            rng.uniform(5, 80), "live", None,
                        ],
                    )
                )  # fmt: skip
        yield (
            "conversations",
            [
                conversation_id, stamp(began), stamp(moment), source, device, None, "en",
                texts[0][0][:120], count, errors, flags,
            ],
        )  # fmt: skip
        yield from turn_rows


INSERTS = {
    "conversations": "INSERT INTO conversations (id, started_at, updated_at, source, device_id, "
    "satellite_id, language, title, turn_count, error_count, flagged_count) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    "turns": "INSERT INTO turns (id, conversation_id, seq, created_at, user_text, reply_text, "
    "handled_by, language, dry_run, error, duration_ms, prompt_tokens, completion_tokens, "
    "messages, timings, outcome, outcome_detail, flagged) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "llm_calls": "INSERT INTO llm_calls (id, turn_id, seq, started_at, model, streamed, "
    "request_messages, request_tools, system_prompt_hash, tools_hash, response, prompt_tokens, "
    "completion_tokens, ttft_ms, duration_ms, finish_reason, error) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "tool_calls": "INSERT INTO tool_calls (id, turn_id, llm_call_id, seq, call_id, started_at, "
    "name, arguments, result, duration_ms, executor, error) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
}


def seed(path: Path, now: datetime) -> None:
    """Fill a migrated database; the FTS index is rebuilt once at the end, not row by row."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA synchronous = OFF")
        connection.execute("PRAGMA foreign_keys = OFF")
        triggers = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'turns'"
        ).fetchall()
        for name, _sql in triggers:
            connection.execute(f"DROP TRIGGER {name}")
        connection.executemany(
            "INSERT INTO llm_payloads (hash, kind, content, size, created_at) VALUES (?,?,?,?,?)",
            [
                (digest, kind, content, len(content.encode()), stamp(now))
                for digest, kind, content in (
                    (SYSTEM_PROMPT_HASH, "system_prompt", SYSTEM_PROMPT),
                    (TOOLS_HASH, "tools", TOOLS),
                )
            ],
        )
        batches: dict[str, list[list[Any]]] = {table: [] for table in INSERTS}
        for table, row in rows(random.Random(SEED), now):
            batch = batches[table]
            batch.append(row)
            if len(batch) >= 20_000:
                connection.executemany(INSERTS[table], batch)
                batch.clear()
        for table, batch in batches.items():
            connection.executemany(INSERTS[table], batch)
        connection.execute("INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')")
        for _name, sql in triggers:
            connection.execute(sql)
        connection.commit()
        connection.execute("ANALYZE")
        connection.commit()
    finally:
        connection.close()


async def seeded_database() -> tuple[Path, datetime]:
    """The cached database (seeding it on first use) and the 'now' it was seeded at."""
    cache = Path(tempfile.gettempdir()) / f"home_agent_bench_ui_{schema_hash()}"
    path = cache / "home_agent.db"
    marker = cache / "seeded_at"
    if marker.exists():
        return path, datetime.fromisoformat(marker.read_text().strip())
    cache.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    store = await Store.open(path)
    await store.close()
    now = datetime.now(UTC).replace(microsecond=0)
    started = time.perf_counter()
    seed(path, now)
    print(f"seeded {CONVERSATIONS:,} conversations, {TURNS:,} turns in "
          f"{time.perf_counter() - started:.1f} s ({path})")  # fmt: skip
    marker.write_text(now.isoformat())
    return path, now


def settings_for(data_dir: Path) -> Settings:
    """Standalone settings over the seeded data directory; nothing is pruned or contacted."""
    return standalone_settings(
        Options(retention_days=0, log_level="error"),
        data_dir,
        ha_token="bench-token",
        trusted_proxies=("127.0.0.1",),
    )


async def timed(client: TestClient[Any, Any], path: str) -> float:
    """Milliseconds from sending the request to the last byte of a 200 answer."""
    started = time.perf_counter()
    response = await client.get(path, headers={"X-Ingress-Path": PREFIX})
    body = await response.read()
    elapsed = (time.perf_counter() - started) * 1000
    if response.status != 200 or PREFIX.encode() not in body:
        raise SystemExit(f"GET {path} answered {response.status}: {body[:300]!r}")
    return elapsed


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20, method="inclusive")[18]


def summary(name: str, samples: list[float]) -> str:
    return (
        f"{name:<16} n={len(samples):<4} p50 {statistics.median(samples):7.1f} ms   "
        f"p95 {p95(samples):7.1f} ms   max {max(samples):7.1f} ms"
    )


async def measure(path: Path) -> dict[str, list[float]]:
    """Time the pages through the real app, after one untimed warm-up request per kind."""
    rng = random.Random(SEED + 1)
    app = create_app(settings_for(path.parent))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            deep_rows = connection.execute(
                "SELECT updated_at, id FROM conversations ORDER BY updated_at DESC, id DESC "
                "LIMIT 1 OFFSET 80000"
            ).fetchone()
            ids = [
                row[0]
                for row in connection.execute(
                    "SELECT id FROM conversations WHERE rowid IN "
                    f"({','.join(str(rng.randint(1, CONVERSATIONS)) for _ in range(SAMPLES))})"
                )
            ]
        finally:
            connection.close()
        deep = datetime.fromisoformat(deep_rows[0]).isoformat() + "_" + deep_rows[1]
        lists = ["/conversations", f"/conversations?after={deep}"]
        searches = [f"/conversations?q={query.replace(' ', '+')}" for query in SEARCHES]
        details = [f"/conversations/{conversation_id}" for conversation_id in ids]
        for warm_up in (lists[0], searches[0], details[0]):
            await timed(client, warm_up)
        results: dict[str, list[float]] = {"list": [], "search": [], "detail": []}
        for _ in range(SAMPLES // len(lists)):
            for page in lists:
                results["list"].append(await timed(client, page))
        for _ in range(max(1, SAMPLES // len(searches))):
            for page in searches:
                results["search"].append(await timed(client, page))
        for page in details:
            results["detail"].append(await timed(client, page))
        # Not a target: shown because a month at this volume (half a million turns) is far
        # beyond any home, and the dashboard's month view reads every one of them.
        for span in ("day", "month"):
            results[f"dashboard {span}"] = [await timed(client, f"/?span={span}") for _ in range(3)]
    return results


async def seed_memories(path: Path) -> None:
    """``MEMORIES`` memories, about what the seeded turns talk of, some pinned or expiring."""
    rng = random.Random(SEED + 2)
    store = await Store.open(path)
    try:
        async with store.sessionmaker.begin() as session:
            for number in range(MEMORIES):
                area, device, genre = rng.choice(AREAS), rng.choice(DEVICES), rng.choice(GENRES)
                await memories.add_memory(
                    session,
                    f"Memory {number}: the {area} {device} is used most evenings; {genre} too.",
                    kind=MEMORY_KINDS[number % len(MEMORY_KINDS)],
                    importance=rng.random(),
                    pinned=number % 50 == 0,
                    expires_at=datetime.now(UTC) + timedelta(days=rng.randint(1, 60))
                    if number % 7 == 0
                    else None,
                )
    finally:
        await store.close()


async def measure_memories() -> dict[str, list[float]]:
    """Time the Memories page over its own database of ``MEMORIES`` memories."""
    with tempfile.TemporaryDirectory(prefix="home_agent_bench_memories_") as directory:
        data_dir = Path(directory)
        await seed_memories(data_dir / "home_agent.db")
        rng = random.Random(SEED + 3)
        lists = ["/memories", "/memories?kind=preference&pinned=0", "/memories?expiring=1"]
        searches = [f"/memories?q={query.replace(' ', '+')}" for query in MEMORY_SEARCHES]
        details = [f"/memories/{rng.randint(1, MEMORIES)}" for _ in range(SAMPLES)]
        app = create_app(settings_for(data_dir))
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            for warm_up in (lists[0], searches[0], details[0]):
                await timed(client, warm_up)
            results: dict[str, list[float]] = {
                "memories list": [await timed(client, page) for page in lists * 12],
                "memories search": [await timed(client, page) for page in searches * 10],
                "memory": [await timed(client, page) for page in details],
            }
    return results


async def main() -> None:
    path, seeded_at = await seeded_database()
    print(f"database: {path} ({path.stat().st_size / 1e6:,.0f} MB, seeded {seeded_at:%Y-%m-%d})")
    started = time.perf_counter()
    results = await measure(path) | await measure_memories()
    print(
        f"timed {sum(map(len, results.values()))} requests in {time.perf_counter() - started:.1f} s"
    )
    print("server time per request through the app (ingress prefix, loopback HTTP):")
    for name, samples in results.items():
        print(summary(name, samples))
    figures = {
        f"{name.replace(' ', '_')}_p95_ms": round(p95(results[name]), 1)
        for name in ("list", "search", "detail", "memories list", "memories search", "memory")
    }
    verdict = "ok" if all(value <= TARGET_MS for value in figures.values()) else "OVER TARGET"
    print(f"target p95 <= {TARGET_MS:.0f} ms each: {verdict}")
    print(json.dumps({"bench": "ui", **figures}))


if __name__ == "__main__":
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(main())
