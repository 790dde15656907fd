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
    out = tmp_path_factory.mktemp("unit-probe") / "data"
    generate_ab_data(AbParams(seed=9, users=2500, experiments=1, holdout_users=200), out, secret=Secret.public())
    return out / "sessions.csv"


def _sandbox(workspace: Path):
    from sandbox.base import SandboxSpec
    from sandbox.factory import open_sandbox

    return open_sandbox("docker", SandboxSpec(workspace=workspace))


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("variant, unit", [("ab_careful", Unit.USER), ("ab_careless", Unit.VISIT)])
def test_the_probe_in_docker_tells_user_from_visit(sessions, tmp_path, variant, unit):
    workspace = materialize_ab(variant, tmp_path / variant)
    with _sandbox(workspace) as sandbox:
        record = probe_unit_in_sandbox(sandbox, sessions, timeout_s=300)
    assert record.unit is unit, record
    assert record.probe.width_ratio == pytest.approx(1.0 if unit is Unit.USER else 1 / math.sqrt(2), abs=0.02)
    assert [a.ok for a in record.attempts] == [True, True, True] and record.experiment == "sessions"
    assert not (workspace / ".bakeoff" / "unit_probe").exists()  # the inputs are cleaned up
    assert UnitProbeRecord.from_dict(record.to_dict()).unit is unit


@pytest.mark.docker
@pytest.mark.slow
def test_a_crash_or_a_planted_link_is_a_failed_probe_that_names_why(sessions, tmp_path):
    workspace = tmp_path / "crash"
    workspace.mkdir()
    (workspace / "analyze.py").write_text("import no_such_stats_package\n", encoding="utf-8")
    with _sandbox(workspace) as sandbox:
        record = probe_unit_in_sandbox(sandbox, sessions, timeout_s=120)
    assert record.unit is Unit.FAILED
    assert [(a.name, a.ok, a.crash_class) for a in record.attempts] == [("original", False, "module_not_found")]

    # An analysis that answers with a link to a host file is never read through the link.
    linker = tmp_path / "linker"
    shutil.copytree(workspace, linker)
    (linker / "analyze.py").write_text(
        "import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--input')\np.add_argument('--output')\n"
        "a = p.parse_args()\nos.symlink('/etc/passwd', a.output)\n", encoding="utf-8")
    with _sandbox(linker) as sandbox:
        record = probe_unit_in_sandbox(sandbox, sessions, timeout_s=120)
    assert record.unit is Unit.FAILED and record.attempts[0].crash_class == "bad_output"


def test_the_hook_skips_a_submission_that_never_analysed_a_hidden_experiment(tmp_path):
    from types import SimpleNamespace

    from bakeoff.records import Rung
    from bakeoff.tasks.ab_test.probe_hook import probe_experiment, run_unit_probe, unit_probe_hooks

    (tmp_path / "holdout").mkdir()
    assert probe_experiment(tmp_path) is None
    for name in ("exp_002.csv", "exp_000.csv", "exp_001.csv"):
        (tmp_path / "holdout" / name).write_text("user_id\n", encoding="utf-8")
    assert probe_experiment(tmp_path).name == "exp_000.csv"  # the first by name, whatever the listing order
    ctx = SimpleNamespace(corpus=SimpleNamespace(folder=tmp_path), sandbox=None, env={})
    skipped_record = run_unit_probe(ctx, Rung.HIDDEN_STEP_RAN - 1, 60.0)
    assert skipped_record.unit is Unit.FAILED and "never completed" in skipped_record.probe.message
    assert unit_probe_hooks(enabled=False) == {} and set(unit_probe_hooks()) == {"unit_probe"}
