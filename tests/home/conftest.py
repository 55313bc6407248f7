"""Fixtures for the home model tests: real models built from Home Assistant-shaped dicts."""

from __future__ import annotations

import pytest

from addon.home.model.live import HomeModel
from devtools.synthetic import SyntheticHome, synthetic_home
from tests.home.homes import HomeData, demo_home


@pytest.fixture
def demo_data() -> HomeData:
    return demo_home()


@pytest.fixture
def demo(demo_data: HomeData) -> HomeModel:
    return demo_data.build()


@pytest.fixture(scope="module")
def synthetic() -> SyntheticHome:
    return synthetic_home(400, seed=7)
