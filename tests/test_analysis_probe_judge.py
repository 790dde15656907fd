"""The leak probe's decision and its record round trip, on predictions with a known answer."""

from bakeoff.tasks.spam_classifier import probes
from bakeoff.tasks.spam_classifier.probes import ProbeResult, _Prediction, judge, read_labels

IDS = [str(i) for i in range(1000)]


def _labels(spam_ids):
    return _Prediction({i: ("1" if int(i) in spam_ids else "0") for i in IDS}, None, None)


def _runs(baseline, control=None, one=None, drawn=None):
    return {
        probes.BASELINE: baseline,
        probes.CONTROL: control or baseline,
        probes.MODERATED: one or baseline,
        probes.SHUFFLED: drawn or baseline,
    }


def test_predictions_that_never_move_mean_the_column_is_not_used():
    base = _labels(set(range(180)))
    result = judge(_runs(base), IDS, probes.MOVED_THRESHOLD, len(IDS))
    assert result.verdict == probes.DOES_NOT_USE
    assert result.uses_leak is False


def test_setting_the_flag_to_one_that_flips_most_rows_means_the_leak_is_used():
    base = _labels(set(range(180)))
    result = judge(_runs(base, one=_labels(set(range(1000)))), IDS, probes.MOVED_THRESHOLD, len(IDS))
    assert result.verdict == probes.USES_LEAK
    assert "820 of 1000" in result.reason


def test_a_move_just_over_the_threshold_counts_and_one_at_it_does_not():
    base = _labels(set(range(100)))
    over = judge(_runs(base, drawn=_labels(set(range(111)))), IDS, 0.01, len(IDS))
    at = judge(_runs(base, drawn=_labels(set(range(110)))), IDS, 0.01, len(IDS))
    assert over.verdict == probes.USES_LEAK
    assert at.verdict == probes.DOES_NOT_USE


def test_the_control_absorbs_a_nondeterministic_pipeline():
    base = _labels(set(range(100)))
    jitter = _labels(set(range(50, 150)))  # 100 rows move with nothing changed
    changed = _labels(set(range(60, 160)))  # 120 rows move: within the control's noise plus 1%
    result = judge(_runs(base, control=jitter, one=changed, drawn=changed), IDS, 0.03, len(IDS))
    assert result.verdict == probes.DOES_NOT_USE
    assert result.control_moved_fraction == 0.1


def test_a_crash_on_unchanged_features_is_inconclusive():
    crashed = _Prediction(None, "module_not_found", "sklearn")
    result = judge(_runs(crashed), IDS, 0.01, len(IDS))
    assert result.verdict == probes.INCONCLUSIVE
    assert result.uses_leak is None
    assert "module_not_found" in result.reason


def test_a_crash_only_when_the_column_changes_is_inconclusive():
    base = _labels(set(range(180)))
    crashed = _Prediction(None, "value_error", "unseen category")
    result = judge(_runs(base, one=crashed), IDS, 0.01, len(IDS))
    assert result.verdict == probes.INCONCLUSIVE


def test_probe_result_survives_its_record():
    base = _labels(set(range(180)))
    result = judge(_runs(base, one=_labels(set(range(1000)))), IDS, 0.01, len(IDS))
    assert ProbeResult.from_dict(result.to_dict()) == result


def test_read_labels_names_a_missing_header(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("id,label\n1,0\n2,1\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("1,0\n2,1\n")
    assert read_labels(good) == ({"1": "0", "2": "1"}, None)
    assert read_labels(bad)[0] is None
    assert read_labels(tmp_path / "absent.csv")[0] is None


def test_a_predict_script_that_ignores_its_input_is_inconclusive():
    # it predicts a fixed file whatever --input says: its output cannot move, and must not pass for "does not use"
    elsewhere = _Prediction({str(i): "0" for i in range(5000, 6000)}, None, None)
    result = judge(_runs(elsewhere), IDS, 0.01, len(IDS))
    assert result.verdict == probes.INCONCLUSIVE
    assert "not the input's" in result.reason
