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
from dataclasses import dataclass
from pathlib import Path

import pytest

from addon.local.language import LEGACY_DIR, LEGACY_VERSION

ROOT = Path(__file__).resolve().parents[2]
PYTHON_VERSION = "3.13"


ARCHES = ("x86_64", "aarch64")


@dataclass(frozen=True)
class Resolving:
    """pip resolving requirements for one arch, started and not yet waited for."""

    arch: str
    process: subprocess.Popen[str]
    report: Path

    def entries(self) -> list[dict[str, object]]:
        """What pip would install: its report's entries, once it finished."""
        _, stderr = self.process.communicate(timeout=300)
        assert self.process.returncode == 0, (
            f"pip could not resolve for musllinux {self.arch}:\n{stderr}"
        )
        entries: list[dict[str, object]] = json.loads(self.report.read_text())["install"]
        return entries


def start_resolving(
    arch: str, tmp_path: Path, requirements: str = "requirements.txt", *extra: str
) -> Resolving:
    """Start pip resolving ``requirements`` for musl ``arch`` (it mostly waits on the registry)."""
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
        *extra,
        "-r",
        str(ROOT / requirements),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return Resolving(arch, process, report)


def resolve_for(
    arch: str, tmp_path: Path, requirements: str = "requirements.txt", *extra: str
) -> list[dict[str, object]]:
    """What pip would install from ``requirements`` on musl ``arch``: its report's entries."""
    return start_resolving(arch, tmp_path, requirements, *extra).entries()


@pytest.fixture(scope="module")
def runtime_resolutions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Resolving]:
    """``requirements.txt`` resolving for both arches at once, started with the module."""
    return {arch: start_resolving(arch, tmp_path_factory.mktemp(arch)) for arch in ARCHES}


@pytest.mark.parametrize("arch", ARCHES)
def test_requirements_install_from_musllinux_wheels(
    arch: str, runtime_resolutions: dict[str, Resolving]
) -> None:
    """Each package resolves to a wheel for musl on ``arch`` (or a pure-Python one)."""
    entries = runtime_resolutions[arch].entries()
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


@pytest.mark.parametrize("arch", ARCHES)
def test_home_assistant_2025_4_sentences_install_as_the_image_installs_them(
    arch: str, tmp_path: Path
) -> None:
    """requirements-intents.txt gives exactly that release, by its hash, as a wheel for ``arch``.

    The same options as the Dockerfile and ``make venv``: no dependencies, hashes required.
    """
    entries = resolve_for(
        arch, tmp_path, "requirements-intents.txt", "--no-deps", "--require-hashes"
    )
    assert [
        (entry["metadata"]["name"], entry["metadata"]["version"])  # type: ignore[index]
        for entry in entries
    ] == [("home-assistant-intents", "2025.3.28")]
    assert str(entries[0]["download_info"]["url"]).endswith("-py3-none-any.whl")  # type: ignore[index]


def test_the_image_and_the_venv_install_them_where_the_add_on_reads_them() -> None:
    """The Dockerfile and the Makefile name the directory :data:`LEGACY_DIR` is, under a prefix."""
    directory = f"share/home-agent/home-assistant-intents-{LEGACY_VERSION}"
    assert LEGACY_DIR.as_posix().endswith(directory)
    for build_file in ("Dockerfile", "Makefile"):
        text = (ROOT / build_file).read_text(encoding="utf-8")
        assert directory in text, build_file
        assert "requirements-intents.txt" in text, build_file
