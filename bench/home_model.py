"""Cost of the home model as homes grow: build time, memory, resolution and diff latency.

For synthetic homes of 100, 1,000 and 10,000 entities (``devtools.synthetic``, seed 1) it
measures:

* build: wall time of :meth:`HomeModel.build` from the raw WebSocket dicts, fastest of 5 (3 at
  10,000);
* memory: bytes the built model keeps alive, by tracemalloc (allocated during the build and still
  held after it), and the process's resident set growth across the first build (RSS delta, from
  /proc via psutil; coarser, since the allocator keeps freed pages);
* resolve: latency of :func:`match_targets` over a fixed mix of requests: names (case and space
  variants), aliases, entity ids, area+name, area+domain, floor+domain, device_class+domain and
  misses (misspelt names, which also compute suggestions, and unknown areas);
* diff: latency of :meth:`HomeModel.apply_entity_diff` for single-entity state changes;
* copy: wall time of :meth:`HomeModel.copy`.

Each request is timed ``REPEATS`` times and its fastest time counts, as ``timeit`` does: the
machine is shared (CI, other test runs), and a request's own cost, not a neighbour's burst, is
what should grow with the home. Targets at 1,000 entities: build ≤ 200 ms, resolve p95 ≤ 1 ms.
The last line printed is one JSON object for tooling.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import psutil

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints
from devtools.synthetic import SyntheticHome, synthetic_home

SIZES = (100, 1_000, 10_000)
QUERIES = 2_000
REPEATS = 3
DIFFS = 2_000
TARGET_BUILD_MS = 200.0
TARGET_RESOLVE_P95_MS = 1.0
DOMAINS = ("light", "cover", "fan", "media_player", "switch", "climate")
CLASSES = (("sensor", "temperature"), ("sensor", "humidity"), ("binary_sensor", "motion"))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 1_048_576


def misspell(rng: random.Random, name: str) -> str:
    if len(name) < 4:
        return name + "x"
    i = rng.randrange(1, len(name) - 2)
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def query_mix(model: HomeModel, rng: random.Random) -> list[tuple[str, MatchTargetsConstraints]]:
    """A fixed, representative mix of requests against ``model``."""
    exposed = model.exposed_entities()
    aliased = [entity for entity in exposed if entity.aliases] or exposed
    areas = list(model.areas.values())
    floors = list(model.floors.values())
    makers: list[tuple[str, int, Callable[[], MatchTargetsConstraints]]] = [
        ("name", 25, lambda: MatchTargetsConstraints(name=rng.choice(exposed).name.lower())),
        ("name", 5, lambda: MatchTargetsConstraints(name=f" {rng.choice(exposed).name.upper()} ")),
        ("alias", 5, lambda: MatchTargetsConstraints(name=rng.choice(aliased).names[-1])),
        ("entity_id", 5, lambda: MatchTargetsConstraints(name=rng.choice(exposed).entity_id)),
        (
            "area+name",
            5,
            lambda: MatchTargetsConstraints(
                name=(entity := rng.choice(exposed)).name,
                area_name=model.areas[entity.area_id].name if entity.area_id else None,
            ),
        ),
        (
            "area+domain",
            20,
            lambda: MatchTargetsConstraints(
                area_name=rng.choice(areas).name, domains=[rng.choice(DOMAINS)]
            ),
        ),
        (
            "floor+domain",
            10,
            lambda: MatchTargetsConstraints(
                floor_name=rng.choice(floors).name, domains=[rng.choice(DOMAINS)]
            ),
        ),
        (
            "class+domain",
            10,
            lambda: MatchTargetsConstraints(
                domains=[(pair := rng.choice(CLASSES))[0]], device_classes=[pair[1]]
            ),
        ),
        (
            "miss:name",
            10,
            lambda: MatchTargetsConstraints(name=misspell(rng, rng.choice(exposed).name)),
        ),
        (
            "miss:area",
            5,
            lambda: MatchTargetsConstraints(area_name="Conservatory", domains=["light"]),
        ),
    ]
    kinds = [(kind, make) for kind, weight, make in makers for _ in range(weight)]
    return [(kind, make()) for kind, make in (rng.choice(kinds) for _ in range(QUERIES))]


def time_resolution(
    model: HomeModel, queries: list[tuple[str, MatchTargetsConstraints]]
) -> dict[str, list[float]]:
    for _kind, constraints in queries[:50]:  # warm caches and code paths
        match_targets(model, constraints)
    times: dict[str, list[float]] = {}
    for kind, constraints in queries:
        runs = []
        for _ in range(REPEATS):
            start = time.perf_counter_ns()
            match_targets(model, constraints)
            runs.append((time.perf_counter_ns() - start) / 1e6)
        elapsed = min(runs)
        times.setdefault(kind, []).append(elapsed)
        times.setdefault("all", []).append(elapsed)
    return times


def time_diffs(model: HomeModel, rng: random.Random) -> list[float]:
    ids = model.entity_ids()
    times = []
    for i in range(DIFFS):
        entity_id = rng.choice(ids)
        event = {"c": {entity_id: {"+": {"s": f"v{i}", "lc": 1_800_000_000.0 + i, "a": {"n": i}}}}}
        start = time.perf_counter_ns()
        model.apply_entity_diff(event)
        times.append((time.perf_counter_ns() - start) / 1e6)
    return times


def measure(size: int) -> dict[str, float]:
    home: SyntheticHome = synthetic_home(size, seed=1)
    kwargs = home.build_kwargs()
    gc.collect()
    before = rss_mb()
    model = HomeModel.build(**kwargs)
    rss_delta = rss_mb() - before
    del model
    gc.collect()
    tracemalloc.start()
    baseline = tracemalloc.get_traced_memory()[0]
    model = HomeModel.build(**kwargs)
    held_mb = (tracemalloc.get_traced_memory()[0] - baseline) / 1_048_576
    tracemalloc.stop()
    builds = []
    for _ in range(5 if size <= 1_000 else 3):
        gc.collect()
        start = time.perf_counter()
        model = HomeModel.build(**kwargs)
        builds.append((time.perf_counter() - start) * 1000)
    rng = random.Random(2)
    times = time_resolution(model, query_mix(model, rng))
    copy_start = time.perf_counter()
    model.copy()
    copy_ms = (time.perf_counter() - copy_start) * 1000
    diffs = time_diffs(model, rng)
    row = {
        "entities": float(len(home.states)),
        "exposed": float(len(model.exposed_entities())),
        "build_ms": min(builds),
        "held_mb": held_mb,
        "rss_mb": rss_delta,
        "copy_ms": copy_ms,
        "diff_p95_ms": percentile(diffs, 0.95),
    }
    for kind, values in sorted(times.items()):
        row[f"p50:{kind}"] = percentile(values, 0.50)
        row[f"p95:{kind}"] = percentile(values, 0.95)
    return row


def main() -> None:
    rows = {size: measure(size) for size in SIZES}
    print("home model cost by size (synthetic homes, seed 1; times in ms, memory in MB)")
    print("memory: 'held' = tracemalloc bytes the model keeps; 'rss' = RSS growth on first build")
    header = f"{'':>22}" + "".join(f"{size:>12,}" for size in SIZES)
    print(header)
    keys = ["entities", "exposed", "build_ms", "held_mb", "rss_mb", "copy_ms", "diff_p95_ms"]
    kinds = sorted({key.split(":", 1)[1] for key in rows[SIZES[0]] if ":" in key})
    keys += [f"{stat}:{kind}" for kind in kinds for stat in ("p50", "p95")]
    for key in keys:
        cells = "".join(f"{rows[size].get(key, float('nan')):>12.3f}" for size in SIZES)
        print(f"{key:>22}{cells}")
    small, large = rows[1_000], rows[10_000]
    print(
        f"growth 1k→10k: build ×{large['build_ms'] / small['build_ms']:.1f}, "
        f"resolve p95 ×{large['p95:all'] / small['p95:all']:.1f}, "
        f"held memory ×{large['held_mb'] / small['held_mb']:.1f}"
    )
    ok = small["build_ms"] <= TARGET_BUILD_MS and small["p95:all"] <= TARGET_RESOLVE_P95_MS
    print(
        f"targets at 1,000: build ≤ {TARGET_BUILD_MS:.0f} ms, resolve p95 ≤ "
        f"{TARGET_RESOLVE_P95_MS:.0f} ms: {'met' if ok else 'MISSED'}"
    )
    print(
        json.dumps(
            {
                "bench": "home_model",
                "build_ms_1000": round(small["build_ms"], 2),
                "resolve_p95_ms_1000": round(small["p95:all"], 4),
                "build_ms_10000": round(large["build_ms"], 2),
                "resolve_p95_ms_10000": round(large["p95:all"], 4),
                "rss_mb_10000": round(large["rss_mb"], 1),
            }
        )
    )


if __name__ == "__main__":
    main()
