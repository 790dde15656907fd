"""The scorer's inputs and outputs, fuzzed (hostile input round 2).

Predictions CSVs and interval results are the submission's; the answer key and the truth are the grader's.
Property: a submission's bytes give a score or one of the stable error names, never an exception; the grader's
own inputs give a value or its named error; every `--json` output is valid JSON with finite numbers only.
"""

from __future__ import annotations

import json
import math

from fuzz_support import FUZZ
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


CSV_PIECES = ["id,label", "label,id", "\n", "\r\n", ",", "a", "b", "c", "0", "1", "2", " 1 ", '"', '"a,b"', "\x00",
              "\ufeff", "id", "label", "x" * 300, "\xff"]


@FUZZ
@given(st.lists(st.sampled_from(CSV_PIECES) | st.text(max_size=5), max_size=40).map("".join) | st.binary(max_size=200))
def test_any_predictions_file_gets_a_score_or_a_named_error(tmp_path, content):
    answers = tmp_path / "answers.csv"
    answers.write_text("id,label\na,1\nb,0\nc,1\n")
    predictions = tmp_path / "predictions.csv"
    predictions.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    score = score_files(predictions, answers)
    assert score.error is None or score.error in ERROR_NAMES
    assert 0.0 <= score.f1 <= 1.0 and _finite_everywhere(_strict(durable.dumps(score.to_dict())))


numbers = (st.floats() | st.integers() | st.integers(min_value=10**90, max_value=10**500)
           | st.sampled_from([1.7e308, -1.7e308, 1e100, 1e101, 0.0, -0.0, True, None, "0.1", [], {}]))
results = st.fixed_dictionaries({}, optional={"effect": numbers, "ci_low": numbers, "ci_high": numbers,
                                              "notes": st.recursive(st.none(), lambda x: st.lists(x, max_size=2),
                                                                    max_leaves=50)})
RESULT_PIECES = ['{"effect": ', '"ci_low": ', '"ci_high": ', "}", ",", "1e999", "NaN", "-Infinity", "9" * 120, "0.01",
                 "[", "]", '"', "\xff", " "]


def _raw(result) -> bytes:
    if isinstance(result, bytes):
        return result
    if isinstance(result, str):
        return result.encode("utf-8", "surrogatepass")
    return json.dumps(result).encode()  # Python's writer: it writes NaN and Infinity, as a hostile one would


@FUZZ
@given(st.lists(results | st.lists(st.sampled_from(RESULT_PIECES), max_size=12).map("".join) | st.binary(max_size=80),
                min_size=1, max_size=4), st.floats(0.01, 0.99))
def test_any_interval_results_are_graded_or_named_and_the_output_is_finite_json(tmp_path, contents, level):
    graded = []
    for index, result in enumerate(contents):
        path = tmp_path / f"e{index}.json"
        path.write_bytes(_raw(result))
        score = grade_one(f"e{index}", 0.01, path)
        assert (score.result is None) == (score.error is not None)
        assert score.error is None or score.error in RESULT_ERROR_NAMES
        graded.append(score)
    report = score_experiments(graded, level).to_dict()
    assert _finite_everywhere(_strict(durable.dumps(report)))


@FUZZ
@given(st.lists(st.sampled_from(["experiment,effect", "\n", "e1", "e2", ",", "0.01", "1e999", "nan", "1.7e308", "../x",
                                 ".hidden", "", " "]) | st.text(max_size=4), max_size=20).map("".join))
def test_any_truth_file_is_read_or_refused_by_name(tmp_path, text):
    path = tmp_path / "truth.csv"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        truth = read_truth(path)
    except TruthFileError:
        return
    assert truth and all(math.isfinite(v) and abs(v) <= 1e100 for v in truth.values())
