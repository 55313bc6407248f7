"""Every runtime dependency installs from wheels on the add-on's base image, for both arches.

The image is Home Assistant's ``base-python:3.13-alpine3.21`` (build.yaml): musl, so a package
with only glibc wheels, or only a source archive, would need a compiler in the image or fail to
build there. pip resolves ``requirements.txt`` (and everything it pulls in) for that platform
with ``--only-binary=:all:`` and a dry run, reading wheel metadata from the registry, and the
report must list only wheels that such a system can install.

Both ``musllinux_1_2`` and ``musllinux_1_1`` are named: Alpine 3.21's musl 1.2 installs wheels of
either tag, but pip, given one ``--platform``, does not widen it to the older tag (jiter, which
the openai package needs, ships only ``musllinux_1_1`` wheels).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_VERSION = "3.13"


def resolve_for(arch: str, tmp_path: Path) -> list[dict[str, object]]:
    """What pip would install from requirements.txt on musl ``arch``: its report's entries."""
    report = tmp_path / "report.json"
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--quiet",
        "--ignore-installed",
        "--only-binary=:all:",
        f"--platform=musllinux_1_2_{arch}",
        f"--platform=musllinux_1_1_{arch}",
        f"--python-version={PYTHON_VERSION}",
        "--implementation=cp",
        f"--abi=cp{PYTHON_VERSION.replace('.', '')}",
        f"--target={tmp_path / 'target'}",
        f"--report={report}",
        "-r",
        str(ROOT / "requirements.txt"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"pip could not resolve for musllinux {arch}:\n{done.stderr}"
    entries: list[dict[str, object]] = json.loads(report.read_text())["install"]
    return entries


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_requirements_install_from_musllinux_wheels(arch: str, tmp_path: Path) -> None:
    """Each package resolves to a wheel for musl on ``arch`` (or a pure-Python one)."""
    entries = resolve_for(arch, tmp_path)
    files = {
        str(entry["metadata"]["name"]): str(entry["download_info"]["url"]).rsplit("/", 1)[-1]  # type: ignore[index]
        for entry in entries
    }
    assert "numpy" in files  # the resolver really ran over the requirements
    not_musl = {
        name: file
        for name, file in files.items()
        if not file.endswith((f"musllinux_1_2_{arch}.whl", f"musllinux_1_1_{arch}.whl", "-any.whl"))
    }
    assert not_musl == {}
