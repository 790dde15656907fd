"""The submission-sandbox seam: typed driver options by kind, the one consent check, one opener for every kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import paths
from sandbox.base import Limits, Mount
from sandbox.errors import SandboxError
from sandbox.kinds import BWRAP, CONSENT_OPTION, DOCKER, ISOLATING_KINDS, KINDS, UNSAFE, UnsafeRefused, consent_settings
from sandbox.options import BwrapOptions, DockerOptions, UnsafeOptions, driver_options
from sandbox.submission import SubmissionSandbox, open_submission_sandbox, seen_inside


class Refused(Exception):
    pass


def test_each_kind_gets_its_own_typed_options_and_the_wheelhouse():
    wheels = Path("/srv/wheels")
    assert driver_options(DOCKER, {"image": "x:1"}, wheels) == DockerOptions(image="x:1", wheelhouse=wheels)
    assert driver_options(BWRAP, {}, wheels) == BwrapOptions(wheelhouse=wheels)
    assert driver_options(UNSAFE, {CONSENT_OPTION: True}) == UnsafeOptions(i_understand_this_is_unsafe=True)
    assert set(KINDS) == {DOCKER, BWRAP, UNSAFE} and UNSAFE not in ISOLATING_KINDS


def test_an_unknown_setting_or_kind_is_named():
    with pytest.raises(SandboxError, match="no option 'imag'"):
        driver_options(DOCKER, {"imag": "x:1"})
    with pytest.raises(SandboxError, match="no option 'image'"):  # the image is Docker's, not bwrap's
        driver_options(BWRAP, {"image": "x:1"})
    with pytest.raises(SandboxError, match="unknown sandbox kind 'chroot'"):
        driver_options("chroot")


def test_consent_is_needed_for_the_unisolated_kind_only():
    assert consent_settings(DOCKER, False, Refused) == {} and consent_settings(BWRAP, False, Refused) == {}
    assert consent_settings(UNSAFE, True, Refused) == {CONSENT_OPTION: True}
    for consent in (False, 1, "yes"):
        with pytest.raises(Refused, match="--unsafe-no-isolation"):
            consent_settings(UNSAFE, consent, Refused)  # type: ignore[arg-type]
    with pytest.raises(UnsafeRefused):
        consent_settings(UNSAFE, False)


def test_where_the_workspace_is_seen_depends_on_the_kind_only_here(tmp_path):
    hook = tmp_path / ".bakeoff" / "hook"
    assert seen_inside(DOCKER, tmp_path, hook) == f"{paths.WORKSPACE}/.bakeoff/hook"
    assert seen_inside(BWRAP, tmp_path, hook) == f"{paths.WORKSPACE}/.bakeoff/hook"
    assert seen_inside(UNSAFE, tmp_path, hook) == str(hook)


def test_one_opener_shows_the_inputs_and_the_wheelhouse_at_their_paths(tmp_path):
    workspace, wheels, corpus = tmp_path / "ws", tmp_path / "wheels", tmp_path / "corpus"
    for folder in (workspace, wheels, corpus):
        folder.mkdir()
    (wheels / "demo-1.0-py3-none-any.whl").write_bytes(b"not really a wheel")
    (corpus / "holdout.csv").write_text("id\n1\n", encoding="utf-8")
    box = SubmissionSandbox(kind=UNSAFE, workspace=workspace, wheelhouse=wheels,
                            inputs=(Mount(corpus / "holdout.csv", paths.HOLDOUT),),
                            limits=Limits(timeout_s=60), settings=consent_settings(UNSAFE, True))
    with open_submission_sandbox(box) as sandbox:
        result = sandbox.exec(["python", "-c", "import os, sys; print(os.listdir(sys.argv[1]), open(sys.argv[2]).read())",
                               paths.WHEELS, paths.HOLDOUT])
    assert result.ok and result.isolation == UNSAFE, result.stderr
    assert result.stdout == "['demo-1.0-py3-none-any.whl'] id\n1\n\n"
    with pytest.raises(UnsafeRefused):
        open_submission_sandbox(SubmissionSandbox(kind=UNSAFE, workspace=workspace))  # no consent among the settings


THREADS_SEEN = "import os; print([os.environ.get(n) for n in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')])"


@pytest.mark.parametrize("kind", [pytest.param(DOCKER, marks=pytest.mark.docker), pytest.param(BWRAP, marks=pytest.mark.bwrap),
                                  UNSAFE])
def test_the_numeric_libraries_threads_are_the_cpu_cap_in_every_kind(tmp_path, kind):
    """A container capped at one CPU still sees every core: OpenMP would start a thread per core and spin."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    settings = consent_settings(UNSAFE, True) if kind == UNSAFE else {}
    box = SubmissionSandbox(kind=kind, workspace=workspace, limits=Limits(timeout_s=120, cpus=1.0), settings=settings)
    with open_submission_sandbox(box) as sandbox:
        result = sandbox.exec(["python", "-c", THREADS_SEEN])
    assert result.ok, result.stderr
    assert result.stdout.strip() == "['1', '1', '1']"
