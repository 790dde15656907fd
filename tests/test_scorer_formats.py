"""What the scorer accepts, and the stable name it gives every defective predictions file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer import AnswerKeyError, score_files

REPO = Path(__file__).resolve().parents[1]
ANSWERS = "id,label\na,1\nb,0\nc,1\nd,0\n"


@pytest.fixture
def answers(tmp_path) -> Path:
    path = tmp_path / "answers.csv"
    path.write_text(ANSWERS, encoding="utf-8")
    return path


def run_scorer(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scorer", *args], cwd=REPO, capture_output=True, text=True, check=False
    )


def write(tmp_path: Path, content: bytes | str) -> Path:
    path = tmp_path / "predictions.csv"
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    "content",
    [
        "id,label\na,1\nb,0\nc,0\nd,1\n",
        "label,id\n1,a\n0,b\n0,c\n1,d\n",  # either order
        "\ufeffid,label\na,1\nb,0\nc,0\nd,1\n",  # byte-order mark
        "id,score,label,note\na,0.9,1,x\nb,0.1,0,y\nc,0.2,0,z\nd,0.7,1,w\n",  # other columns ignored
        "id,label\r\na, 1 \r\nb,0 \r\nc, 0\r\nd,1\r\n\r\n",  # spaces, CRLF, trailing blank line
    ],
)
def test_accepted_layouts_score_the_same(tmp_path, answers, content):
    score = score_files(write(tmp_path, content), answers)
    assert score.error is None
    assert (score.tp, score.fp, score.fn, score.tn) == (1, 1, 1, 1)
    assert score.f1 == pytest.approx(0.5)


ERROR_CASES = {
    "empty_file": b"",
    "missing_header": b"a,1\nb,0\nc,1\nd,0\n",
    "missing_columns": b"id,prediction\na,1\nb,0\nc,1\nd,0\n",
    "missing_ids": b"id,label\na,1\nb,0\n",
    "extra_ids": b"id,label\na,1\nb,0\nc,1\nd,0\nzz,1\n",
    "duplicate_ids": b"id,label\na,1\nb,0\nc,1\nd,0\na,1\n",
    "bad_label": b"id,label\na,1\nb,0\nc,yes\nd,0\n",
    "undecodable_bytes": b"id,label\na,1\nb,0\n\xff\xfe,1\nd,0\n",
    "malformed_row": b"id,label\na,1\nb\nc,1\nd,0\n",
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_each_defect_is_named_and_scores_zero(tmp_path, answers, name):
    score = score_files(write(tmp_path, ERROR_CASES[name]), answers)
    assert score.error == name
    assert score.f1 == 0.0
    assert score.message


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_command_line_reports_defects_as_json_with_nonzero_exit(tmp_path, answers, name):
    predictions = write(tmp_path, ERROR_CASES[name])
    completed = run_scorer("--predictions", str(predictions), "--answers", str(answers), "--json")
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr
    result = json.loads(completed.stdout)
    assert result["error"] == name
    assert result["f1"] == 0


def test_label_float_is_a_bad_label(tmp_path, answers):
    score = score_files(write(tmp_path, "id,label\na,1.0\nb,0\nc,1\nd,0\n"), answers)
    assert score.error == "bad_label"


def test_missing_predictions_file_is_named(tmp_path, answers):
    score = score_files(tmp_path / "absent.csv", answers)
    assert score.error == "missing_file"


def test_command_line_scores_and_exits_zero(tmp_path, answers):
    predictions = write(tmp_path, "id,label\na,1\nb,0\nc,1\nd,0\n")
    completed = run_scorer("--predictions", str(predictions), "--answers", str(answers), "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["f1"] == 1.0
    assert result["confusion"] == {"tp": 2, "fp": 0, "fn": 0, "tn": 2}
    assert result["error"] is None
    for key in ("precision", "recall", "accuracy", "predicted_positive_rate", "n"):
        assert key in result


def test_command_line_text_output(tmp_path, answers):
    predictions = write(tmp_path, "id,label\na,1\nb,0\nc,1\nd,0\n")
    completed = run_scorer("--predictions", str(predictions), "--answers", str(answers))
    assert completed.returncode == 0
    assert completed.stdout.startswith("f1 1.000000")


def test_defective_answer_key_is_the_graders_fault(tmp_path):
    key = tmp_path / "answers.csv"
    key.write_text("id,label\na,1\na,0\n", encoding="utf-8")
    predictions = write(tmp_path, "id,label\na,1\n")
    with pytest.raises(AnswerKeyError):
        score_files(predictions, key)
    completed = run_scorer("--predictions", str(predictions), "--answers", str(key), "--json")
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert json.loads(completed.stdout)["error"] == "answer_key_invalid"
