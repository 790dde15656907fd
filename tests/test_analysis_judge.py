"""The optional model judge: a second opinion on the design's stance, through the real scripted backend."""

import json

from analysis_factory import ASSERTS_DESIGN, KEEPS_DESIGN, FakeRun, write_batch
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.tasks.spam_classifier import design
from bakeoff.tasks.spam_classifier.judge import parse_stance


def test_parse_stance_reads_the_longest_choice_first():
    assert parse_stance("Excluded_without_reason.") == design.EXCLUDED_WITHOUT_REASON
    assert parse_stance("answer: excluded_with_reason") == design.EXCLUDED_WITH_REASON
    assert parse_stance("I think it is fine") is None


def test_judge_opinions_are_recorded_and_reported_apart(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1, design=KEEPS_DESIGN), FakeRun("m", 2, design=ASSERTS_DESIGN),
                                             FakeRun("m", 3)])
    script = tmp_path / "judge.jsonl"
    lines = [{"key": "judge", "text": "kept"}, {"key": "judge", "text": "kept"}, {"key": "judge", "text": ""}]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = CliRunner().invoke(main, ["analyze", str(batch), "--no-probe", "--retrain-seeds", "0",
                                       "--judge", f"scripted:{script}"])
    assert result.exit_code == 0, result.output
    opinions = [json.loads((batch / "runs" / f"m-r0{i}" / "analysis.json").read_text())["design_judge"] for i in (1, 2, 3)]
    assert [o["stance"] for o in opinions] == ["kept", "kept", None]
    assert opinions[2]["capture"] == "uncaptured"  # the judge's own lost answer is recorded, not guessed
    assert not any("probe" in json.loads((batch / "runs" / f"m-r0{i}" / "analysis.json").read_text()) for i in (1, 2, 3))

    reported = CliRunner().invoke(main, ["report", str(batch)])
    assert reported.exit_code == 0, reported.output
    behaviour = (batch / "report" / "tables" / "model_behaviour.csv").read_text().splitlines()
    header, row = behaviour[0].split(","), behaviour[1].split(",")
    values = dict(zip(header, row, strict=True))
    assert (values["judged"], values["judge_agreement"]) == ("2", "0.5")  # agrees on r01 (kept), not on r02
    runs = (batch / "report" / "tables" / "runs.csv").read_text()
    assert "m-r02,m,1002,graded,executed,f1,no,asserted_available,kept," in runs
