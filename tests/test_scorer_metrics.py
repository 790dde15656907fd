"""The scorer's numbers agree with scikit-learn's on many random prediction sets."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from scorer import score_files

TOLERANCE = 1e-12


def write_labels(path: Path, ids: list[str], labels: list[int], header: str = "id,label") -> Path:
    rows = [header] + [f"{row_id},{label}" for row_id, label in zip(ids, labels, strict=True)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def random_case(rng: random.Random) -> tuple[list[str], list[int], list[int]]:
    n = rng.randint(1, 60)
    positive_rate = rng.choice([0.0, 0.05, 0.18, 0.5, 0.95, 1.0])
    truth = [int(rng.random() < positive_rate) for _ in range(n)]
    agreement = rng.random()
    predicted = [t if rng.random() < agreement else 1 - t for t in truth]
    ids = [f"m{index:05d}" for index in range(n)]
    return ids, truth, predicted


def test_agrees_with_sklearn_on_1000_random_prediction_sets(tmp_path):
    rng = random.Random(20261129)
    for case in range(1000):
        ids, truth, predicted = random_case(rng)
        answers = write_labels(tmp_path / "answers.csv", ids, truth)
        shuffled = list(zip(ids, predicted, strict=True))
        rng.shuffle(shuffled)  # the scorer must match by id, not by row order
        predictions = write_labels(tmp_path / "pred.csv", [i for i, _ in shuffled], [p for _, p in shuffled])
        score = score_files(predictions, answers)
        assert score.error is None, (case, score.message)
        expected = {
            "f1": f1_score(truth, predicted, zero_division=0),
            "precision": precision_score(truth, predicted, zero_division=0),
            "recall": recall_score(truth, predicted, zero_division=0),
            "accuracy": accuracy_score(truth, predicted),
            "predicted_positive_rate": sum(predicted) / len(predicted),
        }
        for name, value in expected.items():
            assert getattr(score, name) == pytest.approx(value, abs=TOLERANCE), (case, name)
        assert score.n == len(ids)
        assert score.tp + score.fp + score.fn + score.tn == len(ids)


def test_confusion_counts_a_known_case(tmp_path):
    answers = write_labels(tmp_path / "a.csv", ["a", "b", "c", "d", "e"], [1, 1, 0, 0, 1])
    predictions = write_labels(tmp_path / "p.csv", ["e", "d", "c", "b", "a"], [0, 1, 0, 1, 1])
    score = score_files(predictions, answers)
    assert (score.tp, score.fp, score.fn, score.tn) == (2, 1, 1, 1)
    assert score.f1 == pytest.approx(2 / 3)
    assert score.to_dict()["confusion"] == {"tp": 2, "fp": 1, "fn": 1, "tn": 1}
    assert score.to_dict()["error"] is None
