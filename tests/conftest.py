"""Shared fixtures, one module per resource under ``tests/fixtures``."""

pytest_plugins = [
    "tests.fixtures.database",
    "tests.fixtures.app",
    "tests.fixtures.llm",
    "tests.fixtures.homeassistant",
    "tests.fixtures.agent",
]
