"""The review metrics on answers whose right figures are known by hand."""

from __future__ import annotations

import pytest

from bakeoff.models.base import Completion
from bakeoff.review.grading import grade
from bakeoff.review.items import group_pairs, load_items
from bakeoff.review.metrics import compute_metrics

ITEMS = load_items()
PAIR_OK, PAIR_PROBLEM = next(iter(group_pairs(ITEMS).values()))
# A PROBLEM twin of another pair, used without its partner (a lone twin leaves the pair metrics).
LONE_PROBLEM = next(item for item in ITEMS if item.is_problem and item.pair_id != PAIR_OK.pair_id
                    and len(item.flaw_lines) == 1)


def completion(text: str, finish_reason: str = "stop", error: str | None = None, error_kind: str | None = None):
    return Completion(
        text=text, finish_reason=finish_reason, prompt_tokens=100, completion_tokens=len(text.split()),
        prompt_seconds=0.1, generation_seconds=0.2, backend="test", error=error, error_kind=error_kind,
    )


def answer(verdict: str, line: int | None = None, confidence: int = 90) -> str:
    return f"VERDICT: {verdict}\nLINE: {line if line is not None else 'none'}\nCONFIDENCE: {confidence}\nREASON: because."


def graded(item, text, sample=0, **kwargs):
    return grade(item, sample, f"review/{item.id}#{sample + 1}", completion(text, **kwargs))


def test_a_perfect_reviewer_scores_one_everywhere_and_brier_zero():
    items = [PAIR_OK, PAIR_PROBLEM]
    answers = [
        graded(PAIR_OK, answer("OK", confidence=100)),
        graded(PAIR_PROBLEM, answer("PROBLEM", PAIR_PROBLEM.flaw_lines[0], confidence=100)),
    ]
    m = compute_metrics(items, answers)
    assert (m.accuracy, m.problem_recall, m.ok_specificity, m.pair_accuracy, m.localization) == (1, 1, 1, 1, 1)
    assert m.brier == 0.0
    assert (m.captured, m.uncaptured, m.unusable) == (2, 0, 0)


def test_pair_accuracy_needs_both_twins_right():
    items = [PAIR_OK, PAIR_PROBLEM]
    answers = [graded(PAIR_OK, answer("PROBLEM")), graded(PAIR_PROBLEM, answer("PROBLEM", PAIR_PROBLEM.flaw_lines[0]))]
    m = compute_metrics(items, answers)
    assert (m.accuracy, m.problem_recall, m.ok_specificity, m.pair_accuracy, m.pairs_scored) == (0.5, 1, 0, 0, 1)


@pytest.mark.parametrize("offset, localized", [(0, True), (1, True), (-1, True), (2, False), (-2, False)])
def test_localization_accepts_a_line_within_one_of_a_flaw(offset, localized):
    item = LONE_PROBLEM
    flaw = item.flaw_lines[0]
    candidate = flaw + offset
    if candidate in item.flaw_lines and not localized:
        pytest.fail("choose an item whose flaw lines are not adjacent")
    m = compute_metrics([item], [graded(item, answer("PROBLEM", candidate))])
    assert m.localization == (1.0 if localized else 0.0)


def test_localization_counts_only_caught_flaws_and_a_missing_line_is_not_found():
    item = LONE_PROBLEM
    m = compute_metrics([item], [graded(item, answer("OK", item.flaw_lines[0])), graded(item, answer("PROBLEM"), sample=1)])
    assert m.localization == 0.0  # the one caught flaw named no line; the missed one is not counted


def test_brier_reads_confidence_as_the_probability_of_the_verdict():
    item = LONE_PROBLEM
    cases = [("PROBLEM", 80, 0.04), ("OK", 80, 0.64), ("PROBLEM", 50, 0.25), ("OK", 0, 0.0)]
    for verdict, confidence, expected in cases:
        m = compute_metrics([item], [graded(item, answer(verdict, confidence=confidence))])
        assert m.brier == pytest.approx(expected), (verdict, confidence)
    no_confidence = compute_metrics([item], [graded(item, "VERDICT: PROBLEM\nREASON: leak")])
    assert no_confidence.brier is None and no_confidence.brier_answers == 0


def test_agreement_is_the_share_of_samples_giving_the_modal_verdict():
    answers = [
        graded(PAIR_OK, answer("OK"), sample=0),
        graded(PAIR_OK, answer("PROBLEM"), sample=1),
        graded(PAIR_PROBLEM, answer("PROBLEM"), sample=0),
        graded(PAIR_PROBLEM, answer("PROBLEM"), sample=1),
    ]
    m = compute_metrics([PAIR_OK, PAIR_PROBLEM], answers)
    assert m.agreement == pytest.approx(0.75)
    assert m.pairs_scored == 2 and m.pair_accuracy == 0.5
    single = compute_metrics([PAIR_OK], answers[:1])
    assert single.agreement is None  # one sample: nothing to agree with


def test_uncaptured_answers_are_counted_and_never_graded():
    answers = [
        graded(PAIR_OK, answer("OK")),
        graded(PAIR_PROBLEM, ""),
        graded(LONE_PROBLEM, "", finish_reason="error", error="timed out after 300 s", error_kind="timeout"),
    ]
    m = compute_metrics([PAIR_OK, PAIR_PROBLEM, LONE_PROBLEM], answers)
    assert (m.captured, m.uncaptured, m.unusable) == (1, 2, 0)
    assert m.accuracy == 1.0 and m.ok_specificity == 1.0
    assert m.problem_recall is None and m.pair_accuracy is None  # nothing graded on PROBLEM items
    assert m.uncaptured_reasons == {"empty": 1, "timeout": 1}


def test_unusable_answers_are_graded_as_wrong():
    answers = [
        graded(PAIR_OK, "I am not sure what to say about this code."),
        graded(PAIR_PROBLEM, answer("PROBLEM", 3) + " and further", finish_reason="length"),
    ]
    m = compute_metrics([PAIR_OK, PAIR_PROBLEM], answers)
    assert (m.captured, m.unusable, m.uncaptured) == (0, 2, 0)
    assert m.accuracy == 0.0 and m.problem_recall == 0.0 and m.ok_specificity == 0.0
    assert m.unusable_reasons == {"no_verdict": 1, "cut_off": 1}
    assert answers[1].verdict == "PROBLEM" and answers[1].graded_verdict is None  # kept for the record only
    assert m.brier is None and m.localization is None


def test_with_nothing_to_compute_every_metric_is_none():
    m = compute_metrics([PAIR_OK], [graded(PAIR_OK, "   ")])
    data = m.to_dict()
    for name in ("accuracy", "problem_recall", "ok_specificity", "pair_accuracy", "localization", "brier", "agreement"):
        assert data[name] is None, name
    assert data["uncaptured"] == 1


def test_per_family_recall_and_localization():
    problem_items = [item for item in ITEMS if item.is_problem]
    family = problem_items[0].family
    in_family = [item for item in problem_items if item.family == family]
    answers = [graded(in_family[0], answer("PROBLEM", in_family[0].flaw_lines[0])), graded(in_family[1], answer("OK"))]
    m = compute_metrics(in_family[:2], answers)
    row = m.to_dict()["per_family"][family]
    assert row == {"answers": 2, "recall": 0.5, "localization": 1.0, "specificity": None, "youden_j": None}
    others = [entry for name, entry in m.to_dict()["per_family"].items() if name != family]
    assert all(entry["answers"] == 0 and entry["recall"] is None for entry in others)


def test_youden_j_overall_and_per_family_punishes_crying_wolf_and_gullibility_alike():
    items = [PAIR_OK, PAIR_PROBLEM]
    perfect = compute_metrics(items, [graded(PAIR_OK, answer("OK")), graded(PAIR_PROBLEM, answer("PROBLEM"))])
    assert perfect.youden_j == 1.0
    row = next(r for r in perfect.per_family if r.family == PAIR_PROBLEM.family)
    assert (row.recall, row.specificity, row.youden_j) == (1.0, 1.0, 1.0)
    for verdict in ("OK", "PROBLEM"):  # an answer-blind reviewer scores zero, whichever way it leans
        blind = compute_metrics(items, [graded(PAIR_OK, answer(verdict)), graded(PAIR_PROBLEM, answer(verdict))])
        assert blind.youden_j == 0.0 and blind.accuracy == 0.5
    backwards = compute_metrics(items, [graded(PAIR_OK, answer("PROBLEM")), graded(PAIR_PROBLEM, answer("OK"))])
    assert backwards.youden_j == -1.0
    assert compute_metrics([PAIR_OK], [graded(PAIR_OK, answer("OK"))]).youden_j is None  # no PROBLEM item answered
