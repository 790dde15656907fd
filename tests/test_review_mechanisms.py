"""The mechanism of each matched pair's flaw, shown by executing both twins.

Where the flaw inflates the reported figure measurably, the flawed twin must
report a better figure than the sound twin across several seeds of data
built to expose it. Where the inflation is too small to measure (preprocessing
statistics), the test shows instead that information from the held-out rows
reaches what was fitted: change only the held-out rows and the flawed twin's
fitted state changes while the sound twin's does not.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from bakeoff.review.execute import ItemRun, fixture_variables, run_code, run_item
from bakeoff.review.items import group_pairs, load_items

PAIRS = group_pairs(load_items())
SEEDS = (1, 2, 3, 4, 5)

# pair id -> (is a higher figure better?, the smallest mean advantage the flaw must buy)
INFLATING = {
    "select_before_cv": (True, 0.15),  # accuracy on pure noise
    "time_series_folds": (False, 5.0),  # MAE, units of sales
    "resample_before_cv": (True, 0.3),  # F1
    "post_outcome_column": (True, 0.3),  # F1
    "target_encoding_scope": (True, 0.15),  # ROC AUC
    "patient_split": (True, 0.15),  # ROC AUC
    "threshold_choice": (True, 0.02),  # F1
    "which_split_reported": (True, 0.1),  # accuracy
    "rolling_window": (False, 0.5),  # MAE
    "duplicates_and_split": (True, 0.05),  # accuracy
}


def test_every_pair_has_a_mechanism_test():
    covered = set(INFLATING) | {
        "scaler_before_cv",
        "impute_split",
        "transform_before_split",
        "vectorizer_before_split",
        "rare_class_metric",
        "tuning_score",
    }
    assert set(PAIRS) == covered


@pytest.mark.parametrize("pair_id", sorted(INFLATING))
def test_the_flawed_twin_reports_an_inflated_figure(pair_id):
    higher_is_better, min_gap = INFLATING[pair_id]
    sound, flawed = PAIRS[pair_id]
    advantages = []
    for seed in SEEDS:
        gap = run_item(flawed, seed).reported - run_item(sound, seed).reported
        advantages.append(gap if higher_is_better else -gap)
    # A selection effect (the best of 91 thresholds) is small next to split noise,
    # so one unlucky seed is allowed; the mean advantage must still be clear.
    assert sum(a > 0 for a in advantages) >= len(SEEDS) - 1, advantages
    assert np.mean(advantages) > min_gap, advantages


def test_best_score_of_a_grid_search_on_noise_sits_above_chance():
    # On pure noise with balanced labels the true accuracy of any model is 0.5, so each
    # twin's figure can be compared with the truth instead of with the other's noisy one.
    sound, flawed = PAIRS["tuning_score"]
    best_scores = [run_item(flawed, seed).reported for seed in range(1, 11)]
    nested = [run_item(sound, seed).reported for seed in SEEDS[:3]]
    assert np.mean(best_scores) > 0.525, best_scores  # the best of eight settings, scored on the folds that chose it
    assert sum(score > 0.5 for score in best_scores) >= 7, best_scores
    assert abs(np.mean(nested) - 0.5) < 0.06, nested  # nested CV centres on the truth


def test_accuracy_on_a_rare_class_cannot_tell_the_model_from_never_flagging():
    sound, flawed = PAIRS["rare_class_metric"]
    for seed in SEEDS:
        accuracy = run_item(flawed, seed)
        never_flagging = 1.0 - accuracy.namespace["y_test"].mean()
        assert abs(accuracy.reported - never_flagging) <= 0.002
        # The sound twin's average precision sits far above a random ranking's (the fraud rate),
        # and far below the accuracy figure the flawed twin put in its claim.
        precision = run_item(sound, seed)
        assert precision.reported > 5 * precision.namespace["y_test"].mean()
        assert accuracy.reported > precision.reported + 0.5


def _rerun_with_held_out_rows_changed(item, seed, change) -> tuple[ItemRun, ItemRun]:
    """Run the item, then again with only its held-out rows (those in y_test) altered by `change`."""
    variables = fixture_variables(item, seed)
    first = run_code(item, variables)
    held_out = first.namespace["y_test"].index
    df = variables["df"].copy()
    change(df, held_out)
    second = run_code(item, {**variables, "df": df})
    assert list(second.namespace["y_test"].index) == list(held_out)  # the same rows are held out
    return first, second


def _scale_column(column, factor):
    def change(df, rows):
        df.loc[rows, column] = df.loc[rows, column] * factor

    return change


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_imputation_fitted_on_all_rows_learns_from_the_test_rows(seed):
    sound, flawed = PAIRS["impute_split"]
    change = _scale_column("total_charges", 5.0)
    before, after = _rerun_with_held_out_rows_changed(flawed, seed, change)
    assert not np.allclose(before.namespace["imputer"].statistics_, after.namespace["imputer"].statistics_)
    before, after = _rerun_with_held_out_rows_changed(sound, seed, change)
    assert np.allclose(before.namespace["imputer"].statistics_, after.namespace["imputer"].statistics_)
    assert np.allclose(before.namespace["X_train"], after.namespace["X_train"])


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_standardising_before_the_split_lets_test_rows_shape_training_features(seed):
    sound, flawed = PAIRS["transform_before_split"]
    change = _scale_column("living_area", 3.0)
    before, after = _rerun_with_held_out_rows_changed(flawed, seed, change)
    assert not np.allclose(before.namespace["X_train"], after.namespace["X_train"])
    before, after = _rerun_with_held_out_rows_changed(sound, seed, change)
    pd.testing.assert_frame_equal(before.namespace["X_train"], after.namespace["X_train"])
    assert np.allclose(before.namespace["model"].coef_, after.namespace["model"].coef_)


def _same_sparse(a, b) -> bool:
    return a.shape == b.shape and (a != b).nnz == 0


def _rewrite_texts(df, rows):
    df.loc[rows, "text"] = "completely different words arrive here " + df.loc[rows, "text"].str[::-1]


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_a_vocabulary_fitted_before_the_split_learns_from_the_test_texts(seed):
    sound, flawed = PAIRS["vectorizer_before_split"]
    run = run_item(flawed, seed)
    held_out = run.namespace["y_test"].index
    df = fixture_variables(flawed, seed)["df"]
    test_only_codes = [text.split()[-1].lower() for text in df.loc[held_out, "text"] if "http" not in text.lower()]
    assert test_only_codes
    assert all(code in run.namespace["vectorizer"].vocabulary_ for code in test_only_codes)

    before, after = _rerun_with_held_out_rows_changed(flawed, seed, _rewrite_texts)
    assert not _same_sparse(before.namespace["X_train"], after.namespace["X_train"])
    before, after = _rerun_with_held_out_rows_changed(sound, seed, _rewrite_texts)
    assert _same_sparse(before.namespace["X_train"], after.namespace["X_train"])  # hashing learns nothing


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_a_scaler_fitted_before_cross_validation_has_seen_every_held_out_fold(seed):
    sound, flawed = PAIRS["scaler_before_cv"]
    run = run_item(flawed, seed)
    X = run.namespace["X"]
    scaler = run.namespace["scaler"]
    assert scaler.n_samples_seen_ == len(X)  # every fold's held-out rows were in the fit
    first_training_part = X.iloc[len(X) // 5:]  # KFold(5) holds out the first fifth first
    assert np.allclose(scaler.mean_, X.mean())
    assert not np.allclose(scaler.mean_, first_training_part.mean())

    # The sound twin's pipeline is cloned and refitted per fold: the object itself was never fitted.
    pipe = run_item(sound, seed).namespace["pipe"]
    with pytest.raises(NotFittedError):
        check_is_fitted(pipe)
