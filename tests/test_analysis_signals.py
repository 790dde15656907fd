"""Every per-run signal and per-model aggregate on records with known answers."""

import itertools
import random

import numpy as np
import pytest
from analysis_factory import ASSERTS_DESIGN, KEEPS_DESIGN, FakeRun, change_stage, write_batch

from bakeoff.analysis.stats import bootstrap_mean
from bakeoff.batchfolder.read import BatchFolderError, read_batch
from bakeoff.tasks.spam_classifier import design, signals
from bakeoff.tasks.spam_classifier.aggregate import summarise_batch
from bakeoff.tasks.spam_classifier.probes import DOES_NOT_USE, INCONCLUSIVE, USES_LEAK
from bakeoff.tasks.spam_classifier.signals import run_signals


def _signals(tmp_path, *runs):
    batch = read_batch(write_batch(tmp_path / "batch", list(runs)))
    return {r.run_id: run_signals(r) for r in batch.runs}, batch


def _summary(tmp_path, *runs):
    by_id, batch = _signals(tmp_path, *runs)
    return summarise_batch(list(by_id.values()), batch.model_labels(), bootstrap_seed=7)


def test_a_design_that_keeps_the_column_while_the_code_ignores_it_is_a_divergence(tmp_path):
    by_id, _ = _signals(tmp_path, FakeRun("m", 1, design=KEEPS_DESIGN, probe=DOES_NOT_USE))
    run = by_id["m-r01"]
    assert run.design.stance == design.KEPT
    assert run.divergence == signals.KEEPS_BUT_IGNORES
    assert run.diverges is True
    assert run.leak_caught is False


def test_a_design_that_asserts_the_column_is_available_and_code_that_uses_it(tmp_path):
    by_id, _ = _signals(tmp_path, FakeRun("m", 1, design=ASSERTS_DESIGN, probe=USES_LEAK))
    run = by_id["m-r01"]
    assert run.design.stance == design.ASSERTED_AVAILABLE
    assert run.divergence == signals.CONSISTENT and run.diverges is False
    assert run.leak_caught is False


def test_excluded_in_the_design_and_absent_from_the_code_is_a_caught_leak(tmp_path):
    by_id, _ = _signals(tmp_path, FakeRun("m", 1), FakeRun("m", 2, probe=USES_LEAK), FakeRun("m", 3, probe=INCONCLUSIVE))
    assert by_id["m-r01"].leak_caught is True
    assert by_id["m-r02"].divergence == signals.EXCLUDES_BUT_USES
    assert by_id["m-r02"].leak_caught is False
    assert by_id["m-r03"].leak_caught is None and by_id["m-r03"].divergence is None


def test_design_signals_metric_and_imbalance(tmp_path):
    by_id, _ = _signals(tmp_path, FakeRun("m", 1), FakeRun("m", 2, design=KEEPS_DESIGN), FakeRun("m", 3, design=None))
    assert (by_id["m-r01"].design.metric, by_id["m-r01"].design.imbalance_named) == ("f1", True)
    assert (by_id["m-r02"].design.metric, by_id["m-r02"].design.metric_right) == ("accuracy", False)
    assert by_id["m-r03"].design.present is False


def test_exploration_executed_crashed_or_uncaptured(tmp_path):
    by_id, _ = _signals(tmp_path, FakeRun("m", 1), FakeRun("m", 2, explore_exit=1), FakeRun("m", 3, explore_exit=None))
    assert [by_id[f"m-r0{i}"].exploration for i in (1, 2, 3)] == ["executed", "crashed", "uncaptured"]


def test_a_repair_turn_that_broke_a_working_pipeline_is_a_regression(tmp_path):
    broken = FakeRun("m", 1, f1=None, rung=2, status="crashed", crash_class="pickle_class_missing",
                     detail="Can't get attribute 'TextCleaner' on <module '__main__'>",
                     turns=[(5, 0.74, 2, None, "regressed")])
    rescued = FakeRun("m", 2, turns=[(0, None, 5, 0.78, "rescued")])
    summary = _summary(tmp_path, broken, rescued)
    run = next(r for r in summary.runs if r.run_id == "m-r01")
    assert run.repair_turns[0].before_rung == 5 and run.repair_turns[0].after_rung == 2
    assert run.crash_class == "pickle_class_missing" and run.f1 is None
    assert run.crash_detail == "Can't get attribute 'TextCleaner' on <module '__main__'>"
    assert [t.effect for t in run.repair_turns] == ["regressed"]
    model = summary.models[0]
    (turn,) = model.turns
    assert (turn.granted, turn.rescued, turn.regressed) == (2, 1, 1)
    assert turn.regression_rate == 0.5 and turn.rescue_rate == 0.5
    assert model.crash_taxonomy == {"pickle_class_missing": 1}


def test_a_model_whose_every_answer_was_uncaptured_is_never_scored_as_zero(tmp_path):
    lost = {"calls": 3, "captured": 0, "uncaptured": 3, "unusable": 0}
    runs = [FakeRun("silent", i, f1=None, rung=0, status="not_checked", implement_attribution="uncaptured",
                    capture=lost, design=None, probe=None, explore_exit=None) for i in (1, 2)]
    summary = _summary(tmp_path, FakeRun("works", 1), FakeRun("works", 2), *runs)
    silent = next(m for m in summary.models if m.model == "silent")
    assert silent.all_uncaptured
    assert silent.graded == 0 and silent.uncaptured_runs == 2
    assert silent.f1_with_crashes is None and silent.f1_scored is None
    assert silent.crash_rate is None and silent.capture_rate == 0.0
    pair = summary.pairs[0]
    assert pair.seeds == () and pair.difference is None  # nothing to compare against a model with no graded run


def test_crashes_count_as_zero_in_one_mean_and_are_left_out_of_the_other(tmp_path):
    summary = _summary(tmp_path, FakeRun("m", 1, f1=0.8), FakeRun("m", 2, f1=None, rung=3, status="bad_output",
                                                                    crash_class=None))
    model = summary.models[0]
    assert model.f1_with_crashes.mean == pytest.approx(0.4)
    assert model.f1_scored.mean == pytest.approx(0.8) and model.f1_scored.n == 1
    assert model.crash_rate == 0.5
    assert model.crash_taxonomy == {"bad_output": 1}  # no crash class: the outcome status names it


def test_capture_and_unusable_rates_are_their_own_columns(tmp_path):
    capture = {"calls": 5, "captured": 3, "uncaptured": 1, "unusable": 1}
    summary = _summary(tmp_path, FakeRun("m", 1, capture=capture))
    model = summary.models[0]
    assert (model.capture_rate, model.unusable_rate, model.uncaptured_rate) == (0.6, 0.2, 0.2)


def test_harness_failures_are_excluded_and_counted_apart(tmp_path):
    summary = _summary(tmp_path, FakeRun("m", 1, f1=0.7), FakeRun("m", 2, run_status="harness_failed"))
    model = summary.models[0]
    assert model.graded == 1 and model.harness_failed_runs == 1
    assert model.f1_with_crashes.mean == pytest.approx(0.7)


def test_rates_claims_and_retrain_spread(tmp_path):
    summary = _summary(
        tmp_path,
        FakeRun("m", 1, f1=0.6, claimed_f1=0.95, predicted_rate=0.05, retrain_f1s=(0.7, 0.66)),
        FakeRun("m", 2, f1=0.8, claimed_f1=0.75, predicted_rate=0.15),
        FakeRun("m", 3, f1=0.7, claimed_f1=None),
    )
    run = next(r for r in summary.runs if r.run_id == "m-r01")
    assert run.calibration_error == pytest.approx(0.35)
    assert (run.predicted_rate, run.true_rate) == (0.05, 0.18)
    assert run.retrain.spread == pytest.approx(0.1)
    model = summary.models[0]
    assert model.claims == 2
    assert model.calibration_bias == pytest.approx((0.35 - 0.05) / 2)
    assert model.calibration_abs_error == pytest.approx((0.35 + 0.05) / 2)
    assert model.predicted_rate_mean == pytest.approx((0.05 + 0.15 + 0.17) / 3) and model.true_rate == pytest.approx(0.18)
    assert model.retrain_spread_mean == pytest.approx(0.1) and model.retrained == 1


def test_paired_comparison_on_shared_seeds(tmp_path):
    runs = [FakeRun("a", i, f1=0.8) for i in (1, 2, 3)] + [FakeRun("b", i, f1=0.6) for i in (1, 2)]
    runs.append(FakeRun("b", 3, f1=None, rung=1, status="crashed", crash_class="module_not_found"))
    summary = _summary(tmp_path, *runs)
    (pair,) = summary.pairs
    assert (pair.model_a, pair.model_b, len(pair.seeds)) == ("a", "b", 3)
    assert (pair.a_wins, pair.b_wins, pair.ties) == (3, 0, 0)
    assert pair.difference.mean == pytest.approx((0.2 + 0.2 + 0.8) / 3)
    assert pair.difference.low >= 0.2 - 1e-9 and pair.difference.high <= 0.8 + 1e-9


def test_bootstrap_interval_is_seeded_and_brackets_the_mean():
    values = [0.5, 0.7, 0.9, 0.6, 0.8]
    first = bootstrap_mean(values, np.random.default_rng(3))
    np.random.seed(1)  # numpy's global generator and the standard library's moved on: only the rng handed in counts
    random.seed(1)
    np.random.random(), random.random()
    assert bootstrap_mean(values, np.random.default_rng(3)) == first
    # The exact bootstrap distribution of the mean: all 5^5 equally likely resamples, enumerated here. Its 2.5% and
    # 97.5% quantiles, within one step of its grid (0.02) of the sampled interval's ends.
    means = sorted(sum(pick) / 5 for pick in itertools.product(values, repeat=5))
    exact_low, exact_high = means[int(0.025 * len(means))], means[int(0.975 * len(means))]
    assert first.low == pytest.approx(exact_low, abs=0.02) and first.high == pytest.approx(exact_high, abs=0.02)
    assert first.mean == pytest.approx(0.7)
    assert first.low < first.mean < first.high
    assert 0.5 <= first.low and first.high <= 0.9
    assert bootstrap_mean([0.4], np.random.default_rng(0)).low == 0.4
    assert bootstrap_mean([], np.random.default_rng(0)) is None


def test_a_folder_without_batch_json_is_a_named_error(tmp_path):
    with pytest.raises(BatchFolderError):
        read_batch(tmp_path)


def test_a_record_value_outside_its_vocabulary_is_a_named_error(tmp_path):
    import json

    folder = write_batch(tmp_path / "batch", [FakeRun("m", 1, f1=None, rung=2, status="crashed", crash_class="other")])
    run_json = folder / "runs" / "m-r01" / "run.json"
    record = json.loads(run_json.read_text())
    record["outcome"]["crash_class"] = "<script>"
    run_json.write_text(json.dumps(record))
    with pytest.raises(BatchFolderError, match=r"run\.json is damaged: 'outcome.crash_class' is '<script>', not one of"):
        read_batch(folder)


def test_a_record_of_an_unknown_schema_is_a_named_error(tmp_path):
    import json

    folder = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    stage = folder / "runs" / "m-r01" / "stages" / "1-explore.json"
    stage.write_text(json.dumps({**json.loads(stage.read_text()), "schema": "bakeoff.stage/9"}))
    with pytest.raises(BatchFolderError, match=r"1-explore\.json: record schema 'bakeoff.stage/9' is not one bakeoff reads"):
        read_batch(folder)


def test_a_failed_evaluate_hook_is_no_measurement(tmp_path):
    from dataclasses import replace

    folder = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    failed = {"probe": {"hook_error": "OSError: disk full"}, "retrain": {"skipped": "not scored"}}
    change_stage(folder, "m-r01", "evaluate", lambda record: replace(record, extras=failed))
    (run,) = read_batch(folder).runs
    signals_of_run = run_signals(run)
    assert signals_of_run.probe is None and signals_of_run.retrain is None
    assert signals_of_run.divergence is None and signals_of_run.leak_caught is None


def test_pair_findings_call_a_winner_only_when_the_interval_excludes_zero(tmp_path):
    from bakeoff.tasks.spam_classifier.findings import pair_findings

    clear = _summary(tmp_path / "clear", *[FakeRun("a", i, f1=0.8 + 0.01 * i) for i in (1, 2, 3)],
                     *[FakeRun("b", i, f1=0.5 + 0.01 * i) for i in (1, 2, 3)])
    assert pair_findings(clear) == [
        "a beats b by 0.300 F1 on 3 shared seeds (95% interval of a's advantage: [0.300, 0.300])."
    ]
    mixed = _summary(tmp_path / "mixed", FakeRun("a", 1, f1=0.8), FakeRun("a", 2, f1=0.5), FakeRun("a", 3, f1=0.6),
                     FakeRun("b", 1, f1=0.5), FakeRun("b", 2, f1=0.8), FakeRun("b", 3, f1=0.6))
    (line,) = pair_findings(mixed)
    assert line.startswith("a and b cannot be told apart on 3 shared seeds")
    two = _summary(tmp_path / "two", FakeRun("a", 1, f1=0.8), FakeRun("a", 2, f1=0.8),
                   FakeRun("b", 1, f1=0.1), FakeRun("b", 2, f1=0.1))
    assert pair_findings(two) == ["a and b: too few shared seeds (2) for a paired interval."]
