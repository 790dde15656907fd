"""The checks every driver shares (sandbox.base.Sandbox): they run before any driver code does."""

from __future__ import annotations

import math

import pytest

from sandbox.base import ExecResult, Limits, Sandbox, SandboxSpec
from sandbox.errors import SandboxError


class Recording(Sandbox):
    """A driver that runs nothing and remembers what reached it."""

    kind = "recording"

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        self.calls: list[tuple] = []
        self.releases = 0

    def _run(self, argv, timeout_s, env):
        self.calls.append((argv, timeout_s, env))
        return ExecResult(argv, 0, "", "", False, False, 0.0, isolation=self.kind)

    def _release(self) -> None:
        self.releases += 1


@pytest.fixture()
def box(tmp_path):
    return Recording(SandboxSpec(workspace=tmp_path, limits=Limits(timeout_s=7)))


def test_a_checked_command_reaches_the_driver_as_strings_with_the_default_timeout(box, tmp_path):
    box.exec(["python", tmp_path / "x.py"], env={"A": "1"})
    assert box.calls == [(("python", str(tmp_path / "x.py")), 7.0, {"A": "1"})]


@pytest.mark.parametrize("timeout", [0, -1, math.nan, math.inf, "soon"])
def test_a_bad_timeout_is_refused_before_the_driver_runs(box, timeout):
    with pytest.raises(SandboxError, match="timeout"):
        box.exec(["true"], timeout_s=timeout)
    assert box.calls == []


def test_an_empty_command_is_refused(box):
    with pytest.raises(SandboxError, match="command"):
        box.exec([])
    assert box.calls == []


def test_close_releases_once_and_a_closed_sandbox_refuses(box):
    with box:
        box.exec(["true"], timeout_s=2)
    box.close()
    assert box.releases == 1
    with pytest.raises(SandboxError, match="closed"):
        box.exec(["true"])
    assert len(box.calls) == 1
