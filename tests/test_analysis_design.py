"""Design-document rules on texts with a known answer."""

import pytest

from bakeoff.tasks.spam_classifier import design
from bakeoff.tasks.spam_classifier.design import analyse_design, chosen_metric, leak_stance, names_imbalance

KEEPS_ONLY = """# Design

## Metric
We optimise the F1 score of the spam class.

## Features
We use subject, body, n_links and moderator_flagged as features, since moderator_flagged is the strongest predictor.
"""

ASSERTS_AVAILABLE = """# Design
Metric: accuracy.
Columns: all of them. moderator_flagged will be available when the message arrives, so we keep it.
"""

EXCLUDES_WITH_REASON = """# Design
Spam is the minority class (about 18%), so accuracy is misleading; we report F1 of the spam class.

## Dropped columns
- id: an identifier.
- moderator_flagged: it is set by moderators after the message arrives, so it is not available at prediction time.
"""

EXCLUDES_WITHOUT_REASON = """Metric: F1.
We drop id and moderator_flagged.
"""

MENTIONS_ONLY = """Exploration showed moderator_flagged correlates 0.97 with label.
We will measure ROC-AUC on a validation split.
"""

SILENT = """We train TF-IDF with logistic regression and evaluate with precision and recall on a held-out split."""


@pytest.mark.parametrize(
    "text, stance",
    [
        (KEEPS_ONLY, design.KEPT),
        (ASSERTS_AVAILABLE, design.ASSERTED_AVAILABLE),
        (EXCLUDES_WITH_REASON, design.EXCLUDED_WITH_REASON),
        (EXCLUDES_WITHOUT_REASON, design.EXCLUDED_WITHOUT_REASON),
        (MENTIONS_ONLY, design.MENTIONED_ONLY),
        (SILENT, design.NOT_MENTIONED),
        ("The moderator flag leaks the label; we exclude it.", design.EXCLUDED_WITH_REASON),
        ("moderator_flagged is a strong signal but it leaks the target, so it is removed.", design.EXCLUDED_WITH_REASON),
        ("We ignore moderator_flagged because it does not exist when a message arrives.", design.EXCLUDED_WITH_REASON),
        ("moderator_flagged is present in the test data, so it is a useful input.", design.ASSERTED_AVAILABLE),
        ("moderator_flagged is unavailable on arrival.", design.EXCLUDED_WITH_REASON),
    ],
)
def test_leak_stance(text, stance):
    assert leak_stance(text)[0] == stance


def test_a_heading_lends_its_meaning_to_the_list_under_it():
    text = "## Columns we drop (they leak the label)\n- moderator_flagged\n- id\n"
    stance, evidence = leak_stance(text)
    assert stance == design.EXCLUDED_WITH_REASON
    assert evidence == "- moderator_flagged"


@pytest.mark.parametrize(
    "text, metric",
    [
        (KEEPS_ONLY, "f1"),
        (ASSERTS_AVAILABLE, "accuracy"),
        (EXCLUDES_WITH_REASON, "f1"),  # accuracy is named only to be rejected
        (MENTIONS_ONLY, "roc_auc"),
        (SILENT, "precision_recall"),
        ("Our primary metric is average precision (PR-AUC).", "pr_auc"),
        ("We use logistic regression.", design.NO_METRIC),
        ("Rather than accuracy, we optimise the F-beta score.", "f1"),
    ],
)
def test_chosen_metric(text, metric):
    assert chosen_metric(text) == metric


@pytest.mark.parametrize(
    "text, named",
    [
        (EXCLUDES_WITH_REASON, True),
        ("Classes are imbalanced.", True),
        ("We set class_weight='balanced'.", True),
        ("About 18% spam in the training data.", True),
        (KEEPS_ONLY, False),
        (SILENT, False),
    ],
)
def test_names_imbalance(text, named):
    assert names_imbalance(text) is named


def test_analyse_design_bundles_the_signals():
    signals = analyse_design(EXCLUDES_WITH_REASON)
    assert signals.present and signals.metric_right and signals.imbalance_named
    assert signals.stance == design.EXCLUDED_WITH_REASON
    wrong = analyse_design(ASSERTS_AVAILABLE)
    assert not wrong.metric_right and not wrong.imbalance_named


def test_no_design_text_is_reported_as_absent():
    for text in (None, "", "   \n"):
        signals = analyse_design(text)
        assert not signals.present
        assert signals.stance == design.NOT_MENTIONED and signals.metric == design.NO_METRIC


def test_a_sentence_wrapped_over_two_lines_keeps_its_reason():
    text = (
        "Columns: subject and body as text. Dropped: moderator_flagged, because a moderator sets it after\n"
        "arrival and it does not exist when the message is scored.\n"
    )
    assert leak_stance(text)[0] == design.EXCLUDED_WITH_REASON


def test_list_items_stay_apart():
    text = "Features:\n- moderator_flagged is used as a feature\n- id is dropped (an identifier)\n"
    assert leak_stance(text)[0] == design.KEPT
