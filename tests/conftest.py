"""Shared fixtures, one module per resource under ``tests/fixtures``."""

import gc
import resource
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web_app

pytest_plugins = [
    "tests.fixtures.database",
    "tests.fixtures.app",
    "tests.fixtures.llm",
    "tests.fixtures.homeassistant",
    "tests.fixtures.agent",
    "tests.fixtures.browser",
]


@pytest.fixture(autouse=True)
def _release_served_apps() -> Iterator[None]:
    """Let every app a test served be collected once the test ends.

    aiohttp caches each built middleware chain in a module-level ``lru_cache(maxsize=1024)``
    (``_cached_build_middleware`` in ``aiohttp/web_app.py``) keyed by the handler and the apps
    that matched, so it keeps every app that served a request alive with all it holds (about
    8 MB each here): the suite grew past 4 GB. Home Assistant's Supervisor clears it for the
    same reason (home-assistant/supervisor#7196). Tests only: the add-on builds one app.
    """
    yield
    web_app._cached_build_middleware.cache_clear()


class _Pauses:
    """The longest garbage-collector pause of the run and the test it stopped.

    A collection of a large heap stops the event loop of whichever test is running: with the
    apps kept alive by aiohttp's cache, one took tens of seconds and stalled a Wyoming exchange
    past its guard. The figure is printed with the peak memory at the end of every run.
    """

    def __init__(self) -> None:
        self.started = 0.0
        self.longest = 0.0
        self.where = ""
        self.test = ""

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        pause = time.perf_counter() - self.started
        if pause > self.longest:
            self.longest, self.where = pause, self.test


_PAUSES = pytest.StashKey[_Pauses]()


def pytest_configure(config: pytest.Config) -> None:
    """Measure the collector's pauses for the summary."""
    pauses = _Pauses()
    config.stash[_PAUSES] = pauses
    gc.callbacks.append(pauses)


# The longest test files, started first: with ``--dist loadfile`` a file runs whole on one worker,
# so one of these started last would be the run's tail while the other workers wait (the order
# from a run's JUnit times per file, 30 to 90 s each on the loaded two-core machine).
LONGEST_FILES = (
    "tests/home/actions/test_contract_real_ha.py",
    "tests/agent/test_confirmation_real_ha.py",
    "tests/web/test_fuzz.py",
    "tests/web/ui/test_browser.py",
    "tests/wyoming/test_confirmation.py",
    "tests/agent/test_agent_real_ha.py",
    "tests/agent/test_effects_real_ha.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first (:data:`LONGEST_FILES`); the rest keep their order."""
    rank = {path: index for index, path in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection built (every module, class and function) out of the collector's way.

    A full collection walks every object the process holds; after collection most of those are
    code and data that live as long as the process. Frozen, they are never walked again, so the
    pauses that stop a test's event loop are a fraction as long.
    """
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop measuring."""
    pauses = config.stash.get(_PAUSES, None)
    if pauses in gc.callbacks:
        gc.callbacks.remove(pauses)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Name the running test for the pause measurement."""
    item.config.stash[_PAUSES].test = item.nodeid


_WORKERS = pytest.StashKey[list[str]]()


def _figures(config: pytest.Config) -> str:
    """Peak resident memory and the longest collector pause of this process, in one line."""
    pauses = config.stash[_PAUSES]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (
        f"peak resident memory {peak_mb:.0f} MB; longest garbage-collector pause "
        f"{pauses.longest * 1000:.0f} ms (in {pauses.where or 'collection'})"
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker hands its figures to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["figures"] = _figures(session.config)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The controller keeps each worker's figures for the summary."""
    figures = getattr(node, "workeroutput", {}).get("figures")
    if figures is not None:
        node.config.stash.setdefault(_WORKERS, []).append(f"{node.gateway.id}: {figures}")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Peak resident memory and the longest collector pause of each test process."""
    terminalreporter.write_line(f"this process: {_figures(config)}")
    for line in config.stash.get(_WORKERS, []):
        terminalreporter.write_line(line)
