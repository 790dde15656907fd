"""The tasks read their records, their graders' and probes' outputs and their corpus's files through typed classes
(issue 33): each shape has one decoder, what was written reads back whole, and a corpus file of another shape
reads as absent rather than failing the report."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from bakeoff.records import DamagedRecord
from bakeoff.records.parts import Claim
from bakeoff.taskapi.corpus import CorpusFiles
from bakeoff.taskapi.plugin import AnalyzeSettings
from bakeoff.tasks.intervals.claim import ClaimedInterval
from bakeoff.tasks.intervals.plugin import IntervalGrader
from bakeoff.tasks.intervals.score import claim_record
from bakeoff.tasks.simulation.layout import LAYOUT, TRUTH_PART
from bakeoff.tasks.simulation.probe import Attempt, ConfigurationProbe, SimProbeRecord
from bakeoff.tasks.simulation.truth import DamagedTruthTable, TruthRow, truth_table
from bakeoff.tasks.spam_classifier.corpus_records import holdout_spam_rate, references
from bakeoff.tasks.spam_classifier.probes import ProbeResult, read_probe
from bakeoff.tasks.spam_classifier.reanalyse import analysis_options
from bakeoff.tasks.spam_classifier.retrain import read_retrain
from generators.simulation.probe import Behaviour, BehaviourProbe
from generators.simulation.writer import TRUTH_COLUMNS
from scorer.interval_reading import IntervalResult


def _truth_corpus(folder: Path, rows: list[dict[str, str]]) -> CorpusFiles:
    folder.mkdir()
    with (folder / TRUTH_PART).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=TRUTH_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({column: row.get(column, "") for column in TRUTH_COLUMNS} for row in rows)
    return CorpusFiles(folder, LAYOUT)


def test_the_truth_table_reads_into_typed_rows_with_empty_cells_absent(tmp_path):
    corpus = _truth_corpus(tmp_path / "corpus", [
        {"configuration": "cfg_000", "wait": "1.5", "band": "heavy", "utilisation": "0.95", "stations": "3"},
        {"configuration": "cfg_001", "wait": "0.2", "utilisation": "", "family": "mmc"},
    ])
    heavy, other = truth_table(corpus)
    assert (heavy.configuration, heavy.band, heavy.utilisation, heavy.stations, heavy.family) == \
        ("cfg_000", "heavy", 0.95, 3, None)
    assert (other.band, other.utilisation, other.stations, other.family) == (None, None, None, "mmc")
    assert heavy.cells["utilisation"] == "0.95"  # the row as written, for the probe's rule


def test_a_truth_row_whose_number_is_not_one_is_named(tmp_path):
    with pytest.raises(DamagedTruthTable, match="utilisation"):
        TruthRow.of({"configuration": "cfg_000", "utilisation": "heavy"})


def test_the_simulation_probe_record_reads_back_whole_with_its_attempts():
    probe = BehaviourProbe(Behaviour.SOUND, (IntervalResult(1.0, 0.9, 1.1),), IntervalResult(1.0, 0.95, 1.05),
                           1.0, 0.1, 0.5)
    attempts = (Attempt("seed_1", True, duration_s=1.5, cpu_s=1.2), Attempt("longer", False, "cpu_budget", "over"))
    record = SimProbeRecord(Behaviour.SOUND, (ConfigurationProbe("cfg_001", 0.95, "heavy", probe, attempts),), "ok")
    assert SimProbeRecord.from_dict(record.to_dict()) == record


def test_a_simulation_probe_record_of_another_shape_is_a_damaged_record():
    with pytest.raises(DamagedRecord, match="configurations"):
        SimProbeRecord.from_dict({"behaviour": "sound", "configurations": "cfg_001"})


def test_the_spam_records_are_read_only_where_a_hook_left_one():
    assert read_probe({"hook_error": "boom"}) is None and read_retrain({"skipped": "retrains turned off"}) is None
    old = ProbeResult.from_dict({"verdict": "uses_leak"})  # the fields later probes added read as their defaults
    assert (old.verdict, old.column, old.rows, old.variants) == ("uses_leak", "moderator_flagged", 0, ())
    retrain = read_retrain({"original_seed": 3, "original_f1": 0.5, "spread": 9.0,
                            "retrains": [{"seed": 4, "f1": 0.7, "status": "scored", "detail": None}]})
    assert retrain is not None and retrain.spread == pytest.approx(0.2)  # derived again, never read


def test_a_corpus_file_of_another_shape_reads_as_absent():
    assert holdout_spam_rate({"measured": {"holdout_spam_rate": 0.18}}) == 0.18
    assert holdout_spam_rate({"measured": [0.18]}) is None and holdout_spam_rate(None) is None
    assert references({"references": ["careful"]}) == () and references(None) == ()
    (row,) = references({"references": [{"variant": "careful", "local_f1": 0.9, "holdout_f1": 0.8, "kind": "x"}]})
    assert (row.variant, row.local_f1, row.holdout_f1, row.predicted_positive_rate) == ("careful", 0.9, 0.8, None)


def test_the_claimed_interval_is_written_as_before_and_read_back():
    claim = IntervalGrader(lambda job: None, lambda text: (0.5, 0.25, 0.75)).parse_claim("ESTIMATE: 0.5 [0.25, 0.75]")
    assert claim is not None and claim.extra == {"claimed_ci": [0.25, 0.75]}
    assert claim_record(claim, "claimed_effect")["claimed_ci"] == [0.25, 0.75]
    assert ClaimedInterval.from_json({}).claimed_ci is None
    with pytest.raises(DamagedRecord, match="claimed_ci"):
        claim_record(Claim(None, 0.5, extra={"claimed_ci": ["low", "high"]}), "claimed_effect")


def test_the_judge_option_is_read_with_the_other_analyze_options():
    assert analysis_options(AnalyzeSettings(options={"judge": "scripted:judge.jsonl", "probe": False})).judge == \
        "scripted:judge.jsonl"
    assert analysis_options(AnalyzeSettings()).judge is None
