"""The task seam is a value of small parts: a task that lacks calibration, probes, re-analysis, report
sections or export metadata leaves them None, and the core does without them; no part is a method to
override, no protocol has more than two members, and the seam's modules speak no Any."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Protocol

import pytest
from click.testing import CliRunner

from bakeoff.records import Claim
from bakeoff.taskapi import parts
from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.plugin import CoreSection, GenerateRequest
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.taskapi.task import Task
from bakeoff.tasks.spam_classifier.words import HEADLINE

ROOT = Path(__file__).resolve().parents[1]
SEAM = ("plugin.py", "parts.py", "task.py", "options.py")


class BareCorpus:
    layout = CorpusLayout(required=("manifest.json",), mounts=())

    def generate(self, request: GenerateRequest, progress: parts.Progress) -> str:
        (request.out_dir / "manifest.json").parent.mkdir(parents=True, exist_ok=True)
        (request.out_dir / "manifest.json").write_text('{"task": "bare"}', encoding="utf-8")
        return "wrote a manifest"


class BareGrader:
    def grade(self, job: GradeJob) -> Graded:
        raise AssertionError("not graded in these tests")

    def parse_claim(self, text: str) -> Claim | None:
        return Claim(None, 0.5) if "CLAIM" in text else None


def bare_report(folder: ScoredFolder) -> ScoreReport:
    raise AssertionError("not scored in these tests")


# A task with only what every task must have: data, a grader and what `bakeoff score` prints.
BARE = Task(name="bare", headline=HEADLINE, corpus=BareCorpus(), grader=BareGrader(), score_report=bare_report,
            script="bare.py", generator="bare")


@pytest.fixture
def bare_registered(monkeypatch):
    from bakeoff.tasks import registry

    monkeypatch.setitem(registry._PLUGINS, "bare", f"{__name__}:BARE")
    return BARE


def test_a_task_without_optional_parts_gets_the_cores_defaults(tmp_path):
    assert BARE.evaluate_hooks() == {} and BARE.evaluate_hooks(enabled=False) == {}
    assert BARE.report_sections(None, None) == [CoreSection()]  # type: ignore[arg-type]  # not read without parts
    assert BARE.export_metadata(None) == {}  # type: ignore[arg-type]
    assert not BARE.reanalysable and BARE.calibration is None and BARE.folder_probe is None
    assert BARE.ensure_corpus(tmp_path / "data", demo=True) == tmp_path / "data"
    assert (tmp_path / "data" / "manifest.json").is_file()


def test_the_claim_rule_is_the_cores_with_the_tasks_reader():
    from types import SimpleNamespace

    from bakeoff.records import ClaimSource

    check = SimpleNamespace(headline_value=0.75)  # all the claim rule reads of the final check
    claim = BARE.claim("nothing", "the DESIGN has a CLAIM", None, check)  # type: ignore[arg-type]
    assert claim.source == ClaimSource.DESIGN and claim.claimed == 0.5 and claim.real == 0.75
    alone = Task(**{**BARE.__dict__, "claim_has_real": False})
    assert alone.claim("CLAIM", None, None, check).real is None  # type: ignore[arg-type]


def test_calibrate_names_a_task_without_references(bare_registered, tmp_path):
    from bakeoff.cli import main

    done = CliRunner().invoke(main, ["calibrate", "--corpus", str(tmp_path), "--task", "bare"])
    assert done.exit_code != 0 and "NoCalibration" in done.output and "bare" in done.output
    assert not (tmp_path / "calibration.json").exists()


def test_a_task_option_of_another_task_is_refused_for_a_bare_task(bare_registered, tmp_path):
    from bakeoff.cli import main

    done = CliRunner().invoke(main, ["generate", "--task", "bare", "--out", str(tmp_path / "o"), "--rows", "10"])
    assert done.exit_code != 0 and "OptionNotForTask" in done.output and "--rows" in done.output
    made = CliRunner().invoke(main, ["generate", "--task", "bare", "--out", str(tmp_path / "o")])
    assert made.exit_code == 0 and "wrote a manifest" in made.output


def test_nothing_at_the_seam_is_abstract_and_each_part_is_small():
    assert not inspect.isabstract(Task)
    protocols = [value for value in vars(parts).values()
                 if inspect.isclass(value) and issubclass(value, Protocol) and value is not Protocol  # type: ignore[arg-type]
                 and value.__module__ == parts.__name__]
    assert len(protocols) >= 8
    for protocol in protocols:
        members = {name for name in vars(protocol) if not name.startswith("_") or name == "__call__"}
        members -= {"__call__"} if len(members) > 1 else set()
        assert 1 <= len(members) <= 2, (protocol.__name__, members)


def test_the_seam_speaks_no_any():
    for name in SEAM:
        tree = ast.parse((ROOT / "bakeoff" / "taskapi" / name).read_text(encoding="utf-8"))
        named = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "Any"]
        assert named == [], f"bakeoff/taskapi/{name} names Any at lines {named}"
