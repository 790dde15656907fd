"""The suite's own rules (tests/conftest.py): Docker only under the `docker` marker; a hang fails, it does not stall."""

from __future__ import annotations

import subprocess
import sys

import docker
import pytest
from deadline import Deadline


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
