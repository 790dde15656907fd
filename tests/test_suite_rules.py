"""The suite's own rules (tests/conftest.py): Docker only under the `docker` marker; a hang fails, it does not stall."""

from __future__ import annotations

import subprocess
import sys

import docker
import pytest
from deadline import Deadline
from suite_order import costliest_files_first, estimated_seconds, file_of


def test_a_test_without_the_docker_marker_cannot_open_docker():
    with pytest.raises(docker.errors.DockerException):
        docker.from_env().ping()


def test_nor_can_a_bakeoff_process_it_starts():
    probe = "import os, docker; print(os.environ['DOCKER_HOST']); docker.from_env().ping()"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "a-test-without-the-docker-marker" in done.stdout


@pytest.mark.docker
def test_a_test_with_the_marker_reaches_the_engine():
    assert docker.from_env().ping() is True


def test_a_wait_past_its_deadline_fails_naming_what_it_waited_for():
    deadline = Deadline(0.0)
    with pytest.raises(AssertionError, match="waiting for the release file"):
        while deadline.pending("the release file"):
            pass


def test_the_suite_runs_under_a_hang_guard(pytestconfig):
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert float(pytestconfig.getini("timeout")) >= 900  # a guard against hangs, never a speed limit


class FakeItem:
    def __init__(self, nodeid: str, *marks: str) -> None:
        self.nodeid = nodeid
        self.marks = [getattr(pytest.mark, name).mark for name in marks]

    def iter_markers(self, name=None):
        return iter(self.marks)


def test_the_costliest_files_reach_the_workers_first_each_whole_and_in_its_own_order():
    items = [FakeItem("tests/test_a.py::one"), FakeItem("tests/test_a.py::two"), FakeItem("tests/test_a.py::three"),
             FakeItem("tests/test_batch.py::full", "slow", "docker"), FakeItem("tests/test_b.py::x", "docker"),
             FakeItem("tests/test_c.py::y"), FakeItem("tests/test_batch.py::again", "slow")]
    ordered = [item.nodeid for item in costliest_files_first(items)]
    assert ordered == ["tests/test_batch.py::full", "tests/test_batch.py::again", "tests/test_b.py::x",
                       "tests/test_a.py::one", "tests/test_a.py::two", "tests/test_a.py::three", "tests/test_c.py::y"]
    assert estimated_seconds(items[3]) == 33.0 and estimated_seconds(items[0]) == 0.2


def test_this_session_hands_out_its_files_costliest_first(request, pytestconfig):
    # xdist's own re-sort by test count is off, so the workers get the files in the collection's order, which is:
    if pytestconfig.pluginmanager.hasplugin("xdist"):
        assert pytestconfig.option.loadscopereorder is False
    costs: dict[str, float] = {}
    for item in request.session.items:
        costs[file_of(item)] = costs.get(file_of(item), 0.0) + estimated_seconds(item)
    files = [file_of(item) for item in request.session.items]
    assert files == sorted(files, key=lambda name: -costs[name])  # grouped by file, the costliest first
