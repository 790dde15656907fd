"""Suite-wide rules that no single test can keep for itself, and the order files reach the workers (suite_order)."""

from __future__ import annotations

import pytest
from suite_order import costliest_files_first

# Where a test without the `docker` marker finds "the Docker engine": nowhere. Docker's client and every bakeoff
# child process read DOCKER_HOST, so a test that opens Docker unmarked fails (in its own process or in a `bakeoff`
# it starts) instead of passing unnoticed where `-m "not docker"` is meant to run without an engine.
UNMARKED_DOCKER_HOST = "unix:///nonexistent/a-test-without-the-docker-marker-opened-docker.sock"


@pytest.fixture(autouse=True)
def _docker_only_with_its_marker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("docker") is None:
        monkeypatch.setenv("DOCKER_HOST", UNMARKED_DOCKER_HOST)


def pytest_configure(config: pytest.Config) -> None:
    # Keep the collection order below when xdist hands out files (its default re-sorts them by test count).
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = costliest_files_first(items)
