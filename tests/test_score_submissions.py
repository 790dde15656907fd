"""The example submissions grade as expected, on real Docker and under bwrap, run as root.

Each is copied into a scratch workspace, its requirements resolved on the host
and installed offline, trained and run in the sandbox, scored on the host
against a small generated corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bakeoff.answers import parse_expected_f1
from bakeoff.tasks.spam_classifier.score import ScoreOptions, score_submission
from generators.secret import Secret
from generators.spam_classifier import generate_corpus
from generators.spam_classifier.params import CorpusParams
from generators.spam_classifier.references import materialize

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"

KINDS = [
    pytest.param("docker", marks=pytest.mark.docker),
    pytest.param("bwrap", marks=pytest.mark.bwrap),
]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("score-corpus") / "corpus"
    generate_corpus(CorpusParams(seed=11, rows=3000, holdout_rows=1000), folder, secret=Secret.public())
    return folder


def grade(name_or_path, corpus: Path, kind: str, **options):
    repo = name_or_path if isinstance(name_or_path, Path) else SUBMISSIONS / name_or_path
    return score_submission(repo, corpus, ScoreOptions(sandbox_kind=kind, train=True, timeout_s=300, **options))


def fates(outcome) -> dict[str, str]:
    return {line.text: line.fate for line in outcome.requirements.lines}


@pytest.mark.parametrize("kind", KINDS)
def test_a_plain_submission_scores(corpus, kind):
    outcome = grade("scores", corpus, kind)
    assert outcome.status == "scored", outcome.to_dict()
    assert (outcome.stage, outcome.rung, outcome.isolation) == ("score", 5, kind)
    assert 0.5 < outcome.f1 <= 1.0
    assert outcome.f1 == outcome.metrics.f1
    assert outcome.metrics.n == 1000
    assert (outcome.claimed_f1, outcome.claim_source) == (0.80, "train_output")
    assert outcome.timings.train_s > 0 and outcome.timings.predict_s > 0


@pytest.mark.parametrize("kind", KINDS)
def test_reading_moderator_flagged_scores_low_on_the_holdout(corpus, kind):
    outcome = grade("reads_flag", corpus, kind)
    assert outcome.status == "scored"
    assert outcome.f1 < 0.3


@pytest.mark.parametrize("kind", KINDS)
def test_a_class_pickled_in_train_is_missing_in_predict(corpus, kind):
    outcome = grade("pickle_class", corpus, kind)
    assert (outcome.status, outcome.stage, outcome.crash_class) == ("crashed", "predict", "pickle_class_missing")
    assert outcome.detail == "KeywordModel"
    assert outcome.rung == 2
    assert outcome.f1 == 0.0
    assert "Can't get attribute 'KeywordModel'" in outcome.traceback_tail


@pytest.mark.parametrize("kind", KINDS)
def test_a_requirement_that_does_not_exist_is_dependency_unavailable(corpus, kind):
    outcome = grade("missing_dependency", corpus, kind)
    assert (outcome.status, outcome.stage, outcome.rung) == ("dependency_unavailable", "install", 0)
    assert fates(outcome) == {
        "pandas": "provided_by_image",
        "bakeoff-example-package-that-does-not-exist-7f3a": "unavailable",
    }
    assert "bakeoff-example-package-that-does-not-exist-7f3a" in outcome.detail
    assert outcome.step("train") is None  # nothing ran after the install failed


@pytest.mark.parametrize("kind", KINDS)
def test_a_real_requirement_missing_from_the_image_is_installed_and_used(corpus, kind):
    outcome = grade("extra_dependency", corpus, kind)
    assert outcome.status == "scored", outcome.to_dict()
    assert fates(outcome) == {"tabulate==0.9.0": "installed", "scikit-learn": "provided_by_image"}
    tabulate_line = outcome.requirements.lines[0]
    assert tabulate_line.wheels == ("tabulate-0.9.0-py3-none-any.whl",)
    # predict.py printed its summary with tabulate's github table format
    assert "| predicted   |" in outcome.step("predict").stdout_tail


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_output_is_bad_output(corpus, kind):
    outcome = grade("bad_output", corpus, kind)
    assert (outcome.status, outcome.stage, outcome.rung) == ("bad_output", "score", 3)
    assert outcome.detail.startswith("bad_label: ")
    assert outcome.metrics.error == "bad_label"
    assert outcome.f1 == 0.0


@pytest.mark.parametrize("kind", KINDS)
def test_reference_submissions_text_only_scores_and_careless_scores_low(corpus, kind, tmp_path):
    text_only = grade(materialize("text_only", tmp_path / "text_only"), corpus, kind)
    careless = grade(materialize("careless", tmp_path / "careless"), corpus, kind)
    assert text_only.status == careless.status == "scored"
    assert text_only.f1 > 0.5
    assert careless.f1 < text_only.f1 - 0.1
    # careless claims the better number from its own validation while delivering the worse real one
    claimed_careless = parse_expected_f1(careless.step("train").stdout_tail)
    claimed_text_only = parse_expected_f1(text_only.step("train").stdout_tail)
    assert claimed_careless is not None and claimed_text_only is not None
    assert claimed_careless > claimed_text_only
