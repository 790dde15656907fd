"""An ab_test analysis that attacks the host between its hidden runs (hostile input round 2, rows 6 and 8).

Run with the no-isolation driver, which is the host itself: what analyze.py plants is exactly what the host
finds afterwards, as with any driver (a link planted in a mounted workspace is the same link on the host).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bakeoff.records.enums import LadderStatus
from bakeoff.tasks.ab_test.analysis import AbRequest, analyse_in_sandbox
from sandbox.base import SandboxSpec
from sandbox.unsafe import UnsafeSandbox

ANALYZE = '''
import argparse, json, os
parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
name = os.path.basename(args.input)
effect = "1" + "0" * 400 if name == "e1.csv" else "0.01"  # row 6: a 401-digit integer
with open(args.output, "w") as out:
    out.write('{"effect": %s, "ci_low": 0.0, "ci_high": 0.02}' % effect)
if name == "e2.csv":  # row 8: between two hidden runs, the scratch folder becomes a link to a host folder
    os.rename(".bakeoff", ".bakeoff-moved")
    os.symlink(VICTIM, ".bakeoff")
'''


@pytest.fixture
def attacked(tmp_path):
    workspace, hidden, victim = tmp_path / "workspace", tmp_path / "hidden", tmp_path / "victim"
    for folder in (workspace, hidden, victim):
        folder.mkdir()
    (victim / "hidden_result.json").write_text("the host's own file")
    (workspace / "analyze.py").write_text(f"VICTIM = {str(victim)!r}\n" + ANALYZE)
    (workspace / "sessions.csv").write_text("user,arm,converted\n")
    for name in ("e1", "e2", "e3"):
        (hidden / f"{name}.csv").write_text("user,arm,converted\n")
    truth = tmp_path / "truth.csv"
    truth.write_text("experiment,effect\ne1,0.01\ne2,0.01\ne3,0.01\n")
    request = AbRequest(visible_input="sessions.csv", hidden_dir=str(hidden), truth_csv=truth,
                        results_dir=tmp_path / "results", wheelhouse=None)
    sandbox = UnsafeSandbox(SandboxSpec(workspace=workspace), i_understand_this_is_unsafe=True)
    try:
        yield analyse_in_sandbox(sandbox, workspace, request, install=False), workspace, victim
    finally:
        sandbox.close()


def test_a_scratch_folder_made_a_link_between_hidden_runs_is_never_followed(attacked):
    """Row 8: the host followed `.bakeoff` -> a host folder and deleted hidden_result.json there."""
    _, workspace, victim = attacked
    assert (victim / "hidden_result.json").read_text() == "the host's own file"
    assert (workspace / ".bakeoff").is_dir() and not (workspace / ".bakeoff").is_symlink()


def test_an_effect_of_401_digits_is_a_named_grading_error_of_the_submission(attacked):
    """Row 6: OverflowError in the grader made the run harness_failed; it is the submission's bad output."""
    outcome, _, _ = attacked
    assert outcome.status == LadderStatus.BAD_OUTPUT and "bad_number x1" in outcome.detail
    assert outcome.score.errors["bad_number"] == 1 and outcome.score.graded == 1  # e3, in a real folder again
    json.loads(json.dumps(outcome.score.to_dict()), parse_constant=lambda token: pytest.fail(token))
    assert Path(outcome.score.experiments[0].message or "").name != ""  # the error says which file
