"""The service process: start, answer /health, stop on SIGTERM, refuse bad input in one line."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

START_TIMEOUT_S = 20.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def addon_command(data_dir: Path, *extra: str, http_port: int = 0) -> list[str]:
    return [
        sys.executable,
        "-m",
        "addon",
        "--ha-url",
        "http://127.0.0.1:9",
        "--ha-token",
        "secret-ha-token-123",
        "--data-dir",
        str(data_dir),
        "--http-host",
        "127.0.0.1",
        "--http-port",
        str(http_port or free_port()),
        "--wyoming-host",
        "127.0.0.1",
        "--wyoming-port",
        str(free_port()),
        *extra,
    ]


def run_to_exit(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def wait_for_health(port: int, process: subprocess.Popen[str]) -> dict[str, object]:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"service exited early: {process.stderr.read() if process.stderr else ''}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                body: dict[str, object] = json.loads(response.read())
                return body
        except OSError:
            time.sleep(0.1)
    pytest.fail("service did not answer /health in time")


def test_invalid_option_exits_with_one_clear_line(tmp_path: Path) -> None:
    """An invalid option stops the service before it starts, naming the option."""
    result = run_to_exit(addon_command(tmp_path / "data", "--temperature", "9"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "invalid option 'temperature'" in lines[0]


def test_unwritable_data_directory_exits_with_one_clear_line(tmp_path: Path) -> None:
    """A data directory that cannot be created is one error line and a non-zero exit."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = run_to_exit(addon_command(blocker / "data"))
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1
    assert str(blocker) in errors[0]
    assert "Traceback" not in result.stderr


def test_service_starts_answers_health_and_stops_on_sigterm(tmp_path: Path) -> None:
    """SIGTERM shuts the service down cleanly with exit code 0."""
    port = free_port()
    with subprocess.Popen(
        addon_command(tmp_path / "data", http_port=port),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            body = wait_for_health(port, process)
            assert body["status"] == "ok"
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=20) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        stderr = process.stderr.read() if process.stderr else ""
    assert "secret-ha-token-123" not in stderr
    assert (tmp_path / "data" / "home_agent.db").exists()
