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


# --- pinned by mutation testing (bench/mutation.py): the exact record and message each outcome gives -------------

MESSAGES = {
    "bad_label": "{p}: 1 label(s) other than 0 or 1 (e.g. \"line 4: 'yes'\")",
    "duplicate_ids": "{p}: 1 repeated id(s) (e.g. 'a')",
    "empty_file": "{p} is empty",
    "extra_ids": "{p}: 1 id(s) not in the answer key (e.g. 'zz')",
    "malformed_row": "{p} line 3 has 1 field(s); the header needs 2",
    "missing_columns": "{p} has no 'label' column (header: 'id,prediction')",
    "missing_header": "{p} has no header row naming the columns 'id' and 'label' (first row: 'a,1')",
    "missing_ids": "{p}: 2 id(s) of the answer key without a prediction (e.g. 'c', 'd')",
    "undecodable_bytes": "{p} is not UTF-8 text (byte 17: invalid start byte)",
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_each_defect_gives_a_zero_record_with_its_exact_message(tmp_path, answers, name):
    predictions = write(tmp_path, ERROR_CASES[name])
    assert score_files(predictions, answers).to_dict() == {
        "f1": 0.0, "precision": 0.0, "recall": 0.0, "accuracy": 0.0, "predicted_positive_rate": 0.0,
        "actual_positive_rate": 0.0, "n": 0, "confusion": {"tp": 0, "fp": 0, "fn": 0, "tn": 0},
        "error": name, "message": MESSAGES[name].format(p=predictions),
    }


def test_a_scored_file_gives_every_metric_under_its_name(tmp_path):
    answers = write(tmp_path, "id,label\na,1\nb,1\nc,0\nd,0\ne,1\n").rename(tmp_path / "answers.csv")
    predictions = write(tmp_path, "id,label\ne,0\nd,1\nc,0\nb,1\na,1\n")
    assert score_files(predictions, answers).to_dict() == {
        "f1": 2 / 3, "precision": 2 / 3, "recall": 2 / 3, "accuracy": 3 / 5, "predicted_positive_rate": 3 / 5,
        "actual_positive_rate": 3 / 5, "n": 5, "confusion": {"tp": 2, "fp": 1, "fn": 1, "tn": 1},
        "error": None, "message": None,
    }


def test_zero_denominators_give_zero_not_an_error(tmp_path):
    answers = write(tmp_path, "id,label\na,0\nb,0\n").rename(tmp_path / "answers.csv")
    score = score_files(write(tmp_path, "id,label\na,0\nb,0\n"), answers)
    assert (score.f1, score.precision, score.recall, score.accuracy, score.predicted_positive_rate) == (0, 0, 0, 1, 0)
    assert score.ok and score.actual_positive_rate == 0.0


def test_the_first_defect_in_a_fixed_order_names_the_file_and_examples_are_capped_at_three(tmp_path, answers):
    # A bad label, a repeat, an extra id and missing ids at once: the bad label wins, and so on down the list.
    rows = "id,label\na,7\nb,0\nb,0\nzz,1\n"
    assert score_files(write(tmp_path, rows), answers).error == "bad_label"
    assert score_files(write(tmp_path, rows.replace("a,7", "a,1")), answers).error == "duplicate_ids"
    assert score_files(write(tmp_path, "id,label\na,1\nzz,1\n"), answers).error == "extra_ids"
    many = write(tmp_path, "id,label\n" + "".join(f"x{i},1\n" for i in range(5)) + "a,1\nb,0\nc,1\nd,0\n")
    assert score_files(many, answers).message == f"{many}: 5 id(s) not in the answer key (e.g. 'x0', 'x1', 'x2')"
    two_bad = write(tmp_path, "id,label\na,x\nb,0\nc,y\nd,0\n")  # every bad label is counted, not the first only
    assert score_files(two_bad, answers).message == (
        f"{two_bad}: 2 label(s) other than 0 or 1 (e.g. \"line 2: 'x'\", \"line 4: 'y'\")")
    long_label = write(tmp_path, "id,label\na," + "9" * 30 + "\nb,0\nc,1\nd,0\n")
    assert score_files(long_label, answers).message == (
        f"{long_label}: 1 label(s) other than 0 or 1 (e.g. \"line 2: '{'9' * 17}...'\")")


def test_blank_rows_and_spaces_around_ids_and_column_names_are_ignored(tmp_path, answers):
    predictions = write(tmp_path, "\n , \n ID , Label \n a ,1\n\nb,0\n   \n c,1\nd ,0\n")
    score = score_files(predictions, answers)
    assert score.ok and (score.tp, score.tn) == (2, 2), score.message


@pytest.mark.parametrize("key, message", [
    ("id,label\na,1\na,0\n", "duplicate_ids: {k} line 3: id 'a' repeats"),
    ("id,label\na,2\n", "bad_label: {k} line 2: label '2' is not 0 or 1"),
    ("id,label\n", "empty_file: {k} has a header but no rows"),
    ("", "empty_file: {k} is empty"),
    ("x,y\n1,2\n", "missing_header: {k} has no header row naming the columns 'id' and 'label' (first row: 'x,y')"),
    ("label,x\n1,2\n", "missing_columns: {k} has no 'id' column (header: 'label,x')"),
    ("x," + "h" * 58 + "\n", "missing_header: {k} has no header row naming the columns 'id' and 'label' "
                             "(first row: 'x," + "h" * 58 + "')"),  # 60 characters: quoted whole
    ("x," + "h" * 70 + "\n", "missing_header: {k} has no header row naming the columns 'id' and 'label' "
                             "(first row: 'x," + "h" * 55 + "...')"),
])
def test_each_answer_key_defect_is_the_graders_fault_with_its_exact_message(tmp_path, answers, key, message):
    path = tmp_path / "key.csv"
    path.write_text(key, encoding="utf-8")
    with pytest.raises(AnswerKeyError) as raised:
        score_files(answers, path)
    assert str(raised.value) == message.format(k=path)


def test_a_file_that_cannot_be_opened_is_named_with_its_reason(tmp_path, answers):
    assert score_files(tmp_path / "absent.csv", answers).message == f"{tmp_path / 'absent.csv'} does not exist"
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    score = score_files(folder, answers)
    assert (score.error, score.message) == ("unreadable_file", f"{folder} cannot be read: Is a directory")


def test_a_quoted_id_keeps_its_own_line_break_byte_for_byte(tmp_path, answers):
    # The file is opened with newline="" (as the csv module asks), so a CR LF inside quotes is the id's own.
    predictions = write(tmp_path, b'id,label\na,1\nb,0\nc,1\nd,0\n"x\r\ny",1\n')
    assert score_files(predictions, answers).message == f"{predictions}: 1 id(s) not in the answer key (e.g. 'x\\r\\ny')"


def test_a_field_past_the_csv_limit_is_malformed_csv_with_its_reason(tmp_path, answers):
    predictions = write(tmp_path, "id,label\n" + "a" * 200_000 + ",1\n")
    score = score_files(predictions, answers)
    assert (score.error, score.message) == (
        "malformed_csv", f"{predictions} is not a readable CSV file: field larger than field limit (131072)")


def test_a_file_that_opens_but_fails_to_read_is_unreadable_not_a_traceback(answers):
    # /proc/self/mem opens, and reading its first page fails with EIO: a read error after the open succeeded.
    score = score_files(Path("/proc/self/mem"), answers)
    assert (score.error, score.message) == ("unreadable_file", "/proc/self/mem cannot be read: Input/output error")
