"""The ab_test unit probe in the real Docker sandbox, the design's stated unit, and their divergence."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from bakeoff.tasks.ab_test.unit_probe import (
    StatedUnit,
    UnitDivergence,
    UnitProbeRecord,
    divergence_of,
    probe_unit_in_sandbox,
    skipped,
    stated_unit,
)
from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.calibration import materialize_ab
from generators.ab_test.probe import Unit
from generators.secret import Secret


@pytest.mark.parametrize(
    "design, unit",
    [
        ("# Design\nUNIT: user\nbecause users were randomized", StatedUnit.USER),
        ("**UNIT:** visit", StatedUnit.VISIT),
        ("- Unit: Users (randomized once)", StatedUnit.USER),
        ("> `UNIT: visits`", StatedUnit.VISIT),
        ("UNIT = user", StatedUnit.USER),
        ("UNIT: user\n...\nUNIT: visit", StatedUnit.BOTH),
        ("We analyse by user. State the unit as `UNIT: user` or `UNIT: visit`.", StatedUnit.UNSTATED),
        ("Community: users", StatedUnit.UNSTATED),  # a word ending in "unit" is not the line asked for
        ("", StatedUnit.UNSTATED),
        (None, StatedUnit.UNSTATED),
    ],
)
def test_the_stated_unit_is_read_from_its_own_line(design, unit):
    assert stated_unit(design) is unit


@pytest.mark.parametrize(
    "stated, measured, divergence",
    [
        (StatedUnit.USER, Unit.USER, UnitDivergence.CONSISTENT),
        (StatedUnit.VISIT, Unit.VISIT, UnitDivergence.CONSISTENT),
        (StatedUnit.USER, Unit.VISIT, UnitDivergence.STATES_USER_ANALYSES_VISITS),
        (StatedUnit.VISIT, Unit.USER, UnitDivergence.STATES_VISIT_ANALYSES_USERS),
        (StatedUnit.UNSTATED, Unit.VISIT, UnitDivergence.UNSTATED),
        (StatedUnit.BOTH, Unit.USER, UnitDivergence.UNSTATED),
        (StatedUnit.USER, Unit.UNCLEAR, None),
        (StatedUnit.USER, Unit.FAILED, None),
        (StatedUnit.USER, None, None),
    ],
)
def test_divergence_of_stated_and_measured(stated, measured, divergence):
    assert divergence_of(stated, measured) is divergence


def test_a_skipped_probe_round_trips_as_failed():
    record = skipped("no valid result", "exp_000")
    again = UnitProbeRecord.from_dict(record.to_dict())
    assert again == record and again.unit is Unit.FAILED


# --- in the real Docker sandbox ------------------------------------------------------------

@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> Path:
    """A hidden experiment of a small data folder (the probe runs on one, as the gate shows it)."""
    out = tmp_path_factory.mktemp("unit-probe") / "data"
    generate_ab_data(AbParams(seed=9, users=2500, experiments=1, holdout_users=2500), out, secret=Secret.public())
    return sorted((out / "holdout").glob("*.csv"))[0]


def _probe(workspace: Path, sessions: Path, timeout_s: float) -> UnitProbeRecord:
    """The probe in a Docker sandbox whose hidden folder is a gate over the experiment's folder, run with
    grading's command (bakeoff.tasks.ab_test.analysis.AbRequest)."""
    from bakeoff.taskapi.hidden_inputs import GatedFolder
    from bakeoff.tasks.ab_test.analysis import AbRequest
    from bakeoff.tasks.ab_test.layout import HOLDOUT_IN_SANDBOX, SESSIONS_IN_SANDBOX
    from sandbox.base import SandboxSpec
    from sandbox.factory import open_sandbox

    gate = GatedFolder(workspace.parent / f"{workspace.name}-gate", ((sessions.parent, ""),))
    gate.prepare()
    request = AbRequest(SESSIONS_IN_SANDBOX, HOLDOUT_IN_SANDBOX, Path("unused"), Path("unused"), None,
                        analyze_timeout_s=timeout_s)
    with open_sandbox("docker", SandboxSpec(workspace=workspace, mounts=(gate.mount(),))) as sandbox:
        record = probe_unit_in_sandbox(sandbox, sessions, gate=gate, command=request.command)
    assert list(gate.folder.iterdir()) == []  # shown only while the probe ran
    return record


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("variant, unit", [("ab_careful", Unit.USER), ("ab_careless", Unit.VISIT)])
def test_the_probe_in_docker_tells_user_from_visit(sessions, tmp_path, variant, unit):
    workspace = materialize_ab(variant, tmp_path / variant)
    record = _probe(workspace, sessions, 300)
    assert record.unit is unit, record
    assert record.probe.width_ratio == pytest.approx(1.0 if unit is Unit.USER else 1 / math.sqrt(2), abs=0.02)
    assert [a.ok for a in record.attempts] == [True, True, True] and record.experiment == sessions.stem
    assert not (workspace / ".bakeoff" / "unit_probe").exists()  # nothing of the probe's in the workspace
    assert UnitProbeRecord.from_dict(record.to_dict()).unit is unit


@pytest.mark.docker
@pytest.mark.slow
def test_a_crash_or_a_planted_link_is_a_failed_probe_that_names_why(sessions, tmp_path):
    workspace = tmp_path / "crash"
    workspace.mkdir()
    (workspace / "analyze.py").write_text("import no_such_stats_package\n", encoding="utf-8")
    record = _probe(workspace, sessions, 120)
    assert record.unit is Unit.FAILED
    assert [(a.name, a.ok, a.crash_class) for a in record.attempts] == [("original", False, "module_not_found")]

    # An analysis that answers with a link to a host file is never read through the link.
    linker = tmp_path / "linker"
    shutil.copytree(workspace, linker)
    (linker / "analyze.py").write_text(
        "import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--input')\np.add_argument('--output')\n"
        "a = p.parse_args()\nos.symlink('/etc/passwd', a.output)\n", encoding="utf-8")
    record = _probe(linker, sessions, 120)
    assert record.unit is Unit.FAILED and record.attempts[0].crash_class in ("bad_output", "missing_file")


def test_the_hook_skips_a_submission_that_never_analysed_a_hidden_experiment(tmp_path):
    from types import SimpleNamespace

    from bakeoff.records import Rung
    from bakeoff.tasks.ab_test.probe_hook import probe_experiment, run_unit_probe, unit_probe_hooks

    (tmp_path / "holdout").mkdir()
    assert probe_experiment(tmp_path) is None
    for name in ("exp_002.csv", "exp_000.csv", "exp_001.csv"):
        (tmp_path / "holdout" / name).write_text("user_id\n", encoding="utf-8")
    assert probe_experiment(tmp_path).name == "exp_000.csv"  # the first by name, whatever the listing order
    job = SimpleNamespace(corpus=SimpleNamespace(folder=tmp_path), sandbox=None, env={})
    ctx = SimpleNamespace(grade_job=lambda label: job)
    skipped_record = run_unit_probe(ctx, Rung.HIDDEN_STEP_RAN - 1)
    assert skipped_record.unit is Unit.FAILED and "never completed" in skipped_record.probe.message
    assert unit_probe_hooks(enabled=False) == {} and set(unit_probe_hooks()) == {"unit_probe"}


SWITCHER = '''"""Analyses by visit where it is graded (under /holdout) and by user anywhere else."""
import runpy
import sys

i = sys.argv.index("--input")
graded = sys.argv[i + 1].startswith("/holdout/")
runpy.run_path("by_visit.py" if graded else "by_user.py", run_name="__main__")
'''


@pytest.mark.docker
@pytest.mark.slow
def test_an_analysis_that_switches_off_the_hidden_folder_is_judged_by_what_it_does_when_graded(sessions, tmp_path):
    """Issue 34: the probe's inputs are where grading's are, so switching on the path gains nothing; on the old
    probe (inputs under .bakeoff/unit_probe/) this submission was judged `user`."""
    workspace = tmp_path / "switcher"
    for variant, name in (("ab_careless", "by_visit.py"), ("ab_careful", "by_user.py")):
        (materialize_ab(variant, tmp_path / variant) / "analyze.py").rename(tmp_path / name)
    workspace.mkdir()
    for name in ("by_visit.py", "by_user.py"):
        shutil.move(tmp_path / name, workspace / name)
    (workspace / "analyze.py").write_text(SWITCHER, encoding="utf-8")
    assert _probe(workspace, sessions, 300).unit is Unit.VISIT
