"""The scorer's inputs and outputs, fuzzed (hostile input round 2).

Predictions CSVs and interval results are the submission's; the answer key and the truth are the grader's.
Property: a submission's bytes give a score or one of the stable error names, never an exception; the grader's
own inputs give a value or its named error; every `--json` output is valid JSON with finite numbers only.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from fuzz_support import FUZZ, Reach, hostile_names, hostile_number_texts, mutated_bytes, mutated_json
from hypothesis import given
from hypothesis import strategies as st

import durable
from scorer import ERROR_NAMES, score_files
from scorer.interval_reading import RESULT_ERROR_NAMES
from scorer.intervals import TruthFileError, grade_one, read_truth, score_experiments


def _strict(text: str):
    def refuse(token):
        raise AssertionError(f"{token} in the output")

    return json.loads(text, parse_constant=refuse)


def _finite_everywhere(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite_everywhere(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite_everywhere(v) for v in value)
    return True


ANSWER_KEY = {"a": 1, "b": 0, "c": 1, "d": 0}
CSV_CHANGES = ("none", "reorder", "crlf", "bom", "quote", "id", "label", "header", "delete", "duplicate", "column",
               "bytes")


# The changes that put a hostile text into one cell of a data row, and that cell's column.
CELL_CHANGES = {"id": 0, "name": 0, "label": 1, "value": 1}


def _changed_csv(draw: st.DrawFn, rows: list[list[str]], change: str) -> tuple[bytes, str | None]:
    """`rows` (a header and data rows) as CSV bytes with one change applied, and the hostile text planted in a
    value cell (column 1), when that was the change. One mutator for every two-column file the scorer reads."""
    end, prefix, planted = "\n", "", None
    line = draw(st.integers(1, len(rows) - 1))
    if change == "reorder":
        rows[1:] = draw(st.permutations(rows[1:]))
    elif change == "crlf":
        end = "\r\n"
    elif change == "bom":
        prefix = "\ufeff"
    elif change == "quote":
        rows = [[f'"{cell}"' for cell in row] for row in rows]
    elif change in CELL_CHANGES:
        column = CELL_CHANGES[change]
        rows[line][column] = draw(hostile_names if column == 0 else hostile_number_texts)
        planted = rows[line][column] if column == 1 else None
    elif change == "header":
        rows[0][draw(st.integers(0, 1))] = draw(hostile_names)
    elif change == "delete":
        del rows[line]
    elif change == "duplicate":
        rows.insert(line, list(rows[line]))
    elif change == "column":
        rows = [row + [draw(hostile_names)] for row in rows]
    text = prefix + "".join(",".join(row) + end for row in rows)
    if change == "bytes":
        return draw(mutated_bytes(text.encode()))[0], None
    return text.encode("utf-8", "surrogatepass"), planted


@st.composite
def predictions_files(draw: st.DrawFn) -> tuple[bytes, str, dict[str, int] | None]:
    """(a predictions file, its change, the labels it predicts when the change keeps them plain, else None).

    Valid: the header `id,label` and one 0/1 row per id of the answer key; then one change: rows reordered,
    CRLF line ends, a BOM, quoted cells; or a hostile id, label or header cell, a row dropped or repeated, a
    third column, a hostile byte string in place of a line.
    """
    labels = {key: draw(st.sampled_from([0, 1])) for key in ANSWER_KEY}
    rows = [["id", "label"]] + [[key, str(label)] for key, label in labels.items()]
    change = draw(st.sampled_from(CSV_CHANGES))
    content, _ = _changed_csv(draw, rows, change)
    return content, change, labels if change in ("none", "reorder", "crlf", "bom", "quote") else None


def _f1(truth: dict[str, int], predicted: dict[str, int]) -> float:
    """F1 of the positive class, counted here from the two label maps (independent of the scorer)."""
    tp = sum(truth[k] == 1 and predicted[k] == 1 for k in truth)
    fp = sum(truth[k] == 0 and predicted[k] == 1 for k in truth)
    fn = sum(truth[k] == 1 and predicted[k] == 0 for k in truth)
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0


@FUZZ
@given(case=predictions_files())
def _fuzz_predictions(reach: Reach, folder: Path, case) -> None:
    content, change, plain = case
    answers = folder / "answers.csv"
    answers.write_text("id,label\n" + "".join(f"{k},{v}\n" for k, v in ANSWER_KEY.items()))
    predictions = folder / "predictions.csv"
    predictions.write_bytes(content)
    score = score_files(predictions, answers)
    reach.saw(score.error is None, score.error or change)
    assert score.error is None or score.error in ERROR_NAMES
    assert 0.0 <= score.f1 <= 1.0 and _finite_everywhere(_strict(durable.dumps(score.to_dict())))
    if score.error is None:
        assert score.n == len(ANSWER_KEY) and score.tp + score.fp + score.fn + score.tn == len(ANSWER_KEY)
    if plain is not None:  # a change that keeps every id and label plain must not change the grade
        assert score.error is None and score.f1 == _f1(ANSWER_KEY, plain)


def test_any_predictions_file_gets_a_score_or_a_named_error(tmp_path):
    reach = Reach("predictions file")
    _fuzz_predictions(reach, tmp_path)
    reach.check()


@st.composite
def valid_results(draw: st.DrawFn) -> dict:
    """An interval result a submission writes: a finite effect inside a finite, ordered interval."""
    low, high = sorted(draw(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=2)))
    return {"effect": draw(st.floats(low, high)), "ci_low": low, "ci_high": high}


@st.composite
def result_files(draw: st.DrawFn) -> tuple[bytes, str]:
    """(a result file, its change): a valid result with one part changed as JSON (written by Python's writer, NaN and
    Infinity included, as a hostile one would), or its bytes changed."""
    valid = draw(valid_results())
    if draw(st.booleans()):
        return draw(mutated_bytes(durable.dumps(valid, indent=1).encode()))
    changed, change = draw(mutated_json(valid))
    return json.dumps(changed).encode(), change


@FUZZ
@given(contents=st.lists(result_files(), min_size=1, max_size=4), level=st.floats(0.01, 0.99))
def _fuzz_interval_results(reach: Reach, folder: Path, contents, level) -> None:
    graded = []
    for index, (content, change) in enumerate(contents):
        path = folder / f"e{index}.json"
        path.write_bytes(content)
        score = grade_one(f"e{index}", 0.01, path)
        reach.saw(score.error is None, score.error or change)
        assert (score.result is None) == (score.error is not None)
        assert score.error is None or score.error in RESULT_ERROR_NAMES
        if score.result is not None:
            assert score.result.ci_low <= score.result.ci_high
            assert all(math.isfinite(v) for v in (score.result.effect, score.result.ci_low, score.result.ci_high))
        graded.append(score)
    report = score_experiments(graded, level).to_dict()
    assert _finite_everywhere(_strict(durable.dumps(report)))


def test_any_interval_results_are_graded_or_named_and_the_output_is_finite_json(tmp_path):
    reach = Reach("interval results")
    _fuzz_interval_results(reach, tmp_path)
    reach.check()


plain_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
# A value is what the grader trusts most: it is changed three times as often as any other part.
TRUTH_CHANGES = ("none", "reorder", "crlf", "bom", "name", "value", "value", "value", "header", "delete", "duplicate",
                 "column", "bytes")


@st.composite
def truth_files(draw: st.DrawFn) -> tuple[bytes, str, str | None]:
    """(a truth file, its change, the text of the value it replaced, if that was the change).

    Valid: the header `experiment,effect` and rows of plain names and finite values; then one change: rows
    reordered, CRLF, a BOM; or a hostile name, value or header cell, a row dropped or repeated, a third column,
    a byte-level change.
    """
    names = draw(st.lists(plain_names, min_size=1, max_size=4, unique=True))
    rows = [["experiment", "effect"]] + [[name, repr(draw(st.floats(-1e6, 1e6)))] for name in names]
    change = draw(st.sampled_from(TRUTH_CHANGES))
    content, value = _changed_csv(draw, rows, change)
    return content, change, value


@FUZZ
@given(case=truth_files())
def _fuzz_truth(reach: Reach, folder: Path, case) -> None:
    content, change, value = case
    path = folder / "truth.csv"
    path.write_bytes(content)
    try:
        truth = read_truth(path)
    except TruthFileError:
        reach.saw(False, change)
        return
    reach.saw(True, change)
    assert truth and all(math.isfinite(v) and abs(v) <= 1e100 for v in truth.values())
    assert all(name and "/" not in name and "\0" not in name and not name.startswith(".") for name in truth)
    if value is not None and not set(value) & set(',"\r\n\ufeff'):  # a replaced value (one CSV cell) that was
        assert float(value) in truth.values()  # accepted is the number its text says


def test_any_truth_file_is_read_or_refused_by_name(tmp_path):
    reach = Reach("truth file")
    _fuzz_truth(reach, tmp_path)
    reach.check()
