"""The Dockerfile and build.yaml Supervisor builds the add-on image from."""

from __future__ import annotations

import re

import pytest

from tests.packaging.supervisor import RE_DOCKER_IMAGE_BUILD, REPO, config, load_yaml

DOCKERFILE = REPO / "Dockerfile"


def instructions() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments and blanks dropped."""
    joined = DOCKERFILE.read_text(encoding="utf-8").replace("\\\n", " ")
    return [
        " ".join(line.split())
        for line in joined.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def build_from() -> dict[str, str]:
    """build.yaml's base image for each architecture."""
    images: dict[str, str] = load_yaml("build.yaml")["build_from"]
    return images


def test_dockerfile_starts_from_the_build_from_argument() -> None:
    """Supervisor substitutes the base image through ARG BUILD_FROM / FROM ${BUILD_FROM}."""
    first, second = instructions()[:2]
    assert first.startswith("ARG BUILD_FROM=")
    assert second == "FROM ${BUILD_FROM}"


def test_dockerfile_default_base_is_the_amd64_one() -> None:
    """A plain `docker build .` uses the same base as Supervisor does on amd64."""
    assert instructions()[0] == f"ARG BUILD_FROM={build_from()['amd64']}"


def test_build_from_covers_every_arch() -> None:
    """Every architecture config.yaml offers has a base image, and no other."""
    assert set(build_from()) == set(config()["arch"])


@pytest.mark.parametrize("arch", ["amd64", "aarch64"])
def test_base_image_is_the_home_assistant_python_image_for_its_arch(arch: str) -> None:
    """Each base passes Supervisor's image rule and is HA's base-python for that arch."""
    image = build_from()[arch]
    assert RE_DOCKER_IMAGE_BUILD.match(image)
    assert re.fullmatch(rf"ghcr\.io/home-assistant/{arch}-base-python:3\.\d+-alpine3\.\d+", image)


def test_every_arch_uses_the_same_python_and_alpine() -> None:
    """One tag for all architectures, so every user runs the same Python."""
    assert len({image.rsplit(":", 1)[1] for image in build_from().values()}) == 1


def test_dockerfile_installs_pinned_requirements_without_cache() -> None:
    """Dependencies come from requirements.txt with pip's cache left out of the image."""
    assert "COPY requirements.txt requirements-intents.txt ./" in instructions()
    assert "RUN pip3 install --no-cache-dir --requirement requirements.txt" in instructions()


def test_runtime_requirements_are_pinned() -> None:
    """Every requirement the image installs names one exact version."""
    lines = (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
    requirements = [line for line in lines if line.strip() and not line.startswith("#")]
    assert requirements
    assert all(re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[A-Za-z0-9_.]+", r) for r in requirements)


@pytest.mark.parametrize("copy", ["COPY addon ./addon", "COPY webui ./webui", "COPY rootfs /"])
def test_dockerfile_copies_what_the_addon_runs(copy: str) -> None:
    """The package, the web UI and the s6 services all reach the image."""
    assert copy in instructions()


def test_dockerfile_lets_python_find_the_package_from_anywhere() -> None:
    """s6 and Supervisor's backup_pre run `python3 -m addon…` outside WORKDIR."""
    workdir = next(i.split()[1] for i in instructions() if i.startswith("WORKDIR "))
    assert any(f"PYTHONPATH={workdir}" in i for i in instructions() if i.startswith("ENV "))


def test_dockerfile_healthcheck_polls_health_on_the_ingress_port() -> None:
    """Docker's health check hits the same /health endpoint as Supervisor's watchdog."""
    healthcheck = next(i for i in instructions() if i.startswith("HEALTHCHECK "))
    assert f"http://127.0.0.1:{config()['ingress_port']}/health" in healthcheck
    assert "curl --fail" in healthcheck


def test_dockerfile_labels_the_image_as_an_addon() -> None:
    """The io.hass labels Supervisor reads are set from its build arguments."""
    label = next(i for i in instructions() if i.startswith("LABEL "))
    assert 'io.hass.type="addon"' in label
    assert 'io.hass.version="${BUILD_VERSION}"' in label
    assert 'io.hass.arch="${BUILD_ARCH}"' in label
