"""Time to ready and peak memory of the service on a fresh data directory.

Starts ``python -m addon`` (standalone, Home Assistant pointed at a closed port so the link keeps
retrying in the background, as on a first start before Home Assistant is up), polls ``/health``
until it answers 200, and reads the process's peak resident set (``VmHWM``) from /proc. A bare
interpreter that imports the same libraries runs beside it as the floor the service cannot beat.
Targets: ready ≤ 3 s, peak RSS ≤ 120 MB with default options (no model, no MCP client, memory
by words). The five largest contributors at start come from ``bench/startup_contributors.py``
(resident growth per top-level package as first imported, and the sentences), run apart.
"""

from __future__ import annotations

import json
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

RUNS = 3
TARGET_READY_S = 3.0
TARGET_RSS_MB = 120.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_start() -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as data_dir:
        port = free_port()
        started = time.perf_counter()
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "addon",
                "--ha-url",
                "http://127.0.0.1:9",
                "--ha-token",
                "bench-token",
                "--data-dir",
                data_dir,
                "--http-host",
                "127.0.0.1",
                "--http-port",
                str(port),
                "--wyoming-host",
                "127.0.0.1",
                "--wyoming-port",
                str(free_port()),
                "--log-level",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while True:
                if process.poll() is not None:
                    raise SystemExit(f"service exited with {process.returncode}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as r:
                        if r.status == 200:
                            break
                except OSError:
                    time.sleep(0.01)
            ready = time.perf_counter() - started
            time.sleep(0.5)  # let start-up work that follows readiness show in the peak
            rss = peak_rss_mb(process.pid)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
        return ready, rss


def bare_imports() -> tuple[float, float]:
    code = (
        "import aiohttp, sqlalchemy, alembic, aiosqlite, openai, wyoming, pydantic, jinja2;"
        "print(open('/proc/self/status').read())"
    )
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    rss = next(int(x.split()[1]) / 1024 for x in out.stdout.splitlines() if x.startswith("VmHWM:"))
    return elapsed, rss


def contributors(count: int = 5) -> list[tuple[str, float]]:
    """The ``count`` largest parts of the memory at start, in MB, largest first."""
    script = Path(__file__).resolve().parent / "startup_contributors.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(out.stdout)
    return sorted(figures.items(), key=lambda item: -item[1])[:count]


def main() -> None:
    results = [one_start() for _ in range(RUNS)]
    ready = statistics.median(r for r, _ in results)
    rss = max(m for _, m in results)
    base_s, base_mb = bare_imports()
    print(f"{'':24}{'ready s':>10}{'peak RSS MB':>14}")
    print(f"{'home agent (median/max)':24}{ready:>10.3f}{rss:>14.1f}")
    print(f"{'bare imports':24}{base_s:>10.3f}{base_mb:>14.1f}")
    print(f"{'target':24}{TARGET_READY_S:>10.3f}{TARGET_RSS_MB:>14.1f}")
    print(f"ratio to target: ready {ready / TARGET_READY_S:.2f}, RSS {rss / TARGET_RSS_MB:.2f}")
    print(f"ratio to bare imports: ready {ready / base_s:.2f}, RSS {rss / base_mb:.2f}")
    print("largest contributors at start (resident MB, a package's own share):")
    for name, mb in contributors():
        print(f"  {name:22}{mb:>8.1f}")
    print(
        json.dumps({"bench": "startup", "ready_s": round(ready, 3), "peak_rss_mb": round(rss, 1)})
    )


if __name__ == "__main__":
    main()
