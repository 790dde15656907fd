"""Calibration: the reference submissions, their ordering on a small corpus, and named failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from generators.common.paired import RowKind
from generators.errors import ReferenceFailed
from generators.secret import Secret
from generators.spam_classifier import CorpusParams, generate_corpus
from generators.spam_classifier.calibration import run_rows, with_margins
from generators.spam_classifier.calibration.runner import ReferenceResult, run_reference
from generators.spam_classifier.calibration.sweep import SweepPoint, falls_monotonically
from generators.spam_classifier.references import (
    CHEAT_SOURCE,
    CHEATERS,
    RULES,
    SOURCE,
    VARIANTS,
    UnknownReference,
    materialize,
)

REFERENCES = Path(__file__).resolve().parents[1] / "generators" / "spam_classifier" / "references"


def test_each_reference_folder_is_a_submission_built_from_one_source():
    for variants, source in ((VARIANTS, SOURCE), (CHEATERS, CHEAT_SOURCE)):
        for variant in variants:
            folder = REFERENCES / variant
            assert (folder / "variant.txt").read_text().strip() == variant
            for name in ("train.py", "predict.py"):
                assert (folder / name).resolve() == (source / name).resolve()


def test_careful_beats_every_rule_by_a_paired_interval_on_a_small_corpus(tmp_path):
    """The task is valid only if the careful reference beats each degenerate rule by more than chance (the
    envelope reader, sender_metadata, is beaten only at full size: bench/calibrate.py, docs/corpus.md)."""
    corpus = tmp_path / "corpus"
    generate_corpus(CorpusParams(seed=5, rows=3000, holdout_rows=2000), corpus, secret=Secret.public())
    rows = {row.variant: row for row in with_margins(run_rows(corpus, ("careful", *RULES)))}
    assert rows["careful"].margin is None
    assert rows["all_spam"].predicted_positive_rate == 1.0
    assert rows["base_rate"].predicted_positive_rate == pytest.approx(0.18, abs=0.03)
    for name in RULES:
        margin = rows[name].margin
        assert rows[name].kind is RowKind.CHEATER and margin.careful_better and margin.low > 0.1, (name, margin)
        assert margin.low < margin.estimate < margin.high and margin.over == "holdout rows"
        assert margin.estimate == pytest.approx(rows["careful"].holdout_f1 - rows[name].holdout_f1)


def test_careful_beats_every_rule_on_a_fresh_secret(tmp_path):
    """The claim is about every secret, not the public one: drawn afresh on each run, the secret printed on failure
    so the corpus can be made again (`bakeoff generate --secret-file`). The margins are wide (over 0.3 of F1 on the
    public secret), so a fresh draw cannot flake them."""
    secret = Secret.fresh()
    corpus = tmp_path / "corpus"
    generate_corpus(CorpusParams(seed=5, rows=3000, holdout_rows=2000), corpus, secret=secret)
    rows = {row.variant: row for row in with_margins(run_rows(corpus, ("careful", *RULES)))}
    for name in RULES:
        margin = rows[name].margin
        assert margin.careful_better and margin.low > 0, f"secret {secret.hex()}: careful over {name}: {margin}"


def test_materialize_writes_real_files(tmp_path):
    out = materialize("careful", tmp_path / "sub")
    assert sorted(p.name for p in out.iterdir()) == ["predict.py", "train.py", "variant.txt"]
    assert not any(p.is_symlink() for p in out.iterdir())
    assert (out / "train.py").read_text() == (SOURCE / "train.py").read_text()
    with pytest.raises(UnknownReference):
        materialize("reckless", tmp_path / "nope")


def _result(variant: str, holdout_f1: float) -> ReferenceResult:
    return ReferenceResult(variant, 0.0, holdout_f1, 0.0, 0.0, 0.0, 0.0, 0.0)


def test_monotonic_fall_is_strict():
    falling = [SweepPoint(c, (_result("text_only", f1),)) for c, f1 in [(0.3, 0.6), (0.1, 0.9), (0.2, 0.8)]]
    assert falls_monotonically(falling)
    bumpy = falling + [SweepPoint(0.4, (_result("text_only", 0.65),))]
    assert not falls_monotonically(bumpy)


def test_calibrate_refuses_a_folder_that_is_not_a_corpus(tmp_path):
    result = CliRunner().invoke(main, ["calibrate", "--corpus", str(tmp_path)])
    assert result.exit_code != 0
    assert "error: CorpusNotFound:" in result.output


def test_bad_sweep_points_are_a_named_error(tmp_path):
    result = CliRunner().invoke(main, ["calibrate", "--corpus", str(tmp_path), "--sweep", "--sweep-points", "a,b"])
    assert result.exit_code != 0
    assert "error: InvalidSweepPoints:" in result.output


def test_a_reference_that_crashes_is_a_named_failure(tmp_path):
    corpus = tmp_path / "corpus"
    generate_corpus(CorpusParams(rows=300, holdout_rows=100), corpus)
    (corpus / "train.csv").write_text("id,label\n1,0\n2,1\n")  # the text columns are gone
    with pytest.raises(ReferenceFailed, match="train.py exited"):
        run_reference("text_only", corpus)


@pytest.mark.slow
def test_calibration_ordering_on_a_small_corpus(tmp_path):
    """careless: best local F1 (>= 0.95) and worst holdout F1; careful beats text-only by >= 0.02."""
    corpus = tmp_path / "corpus"
    # the public secret: the holdout is the same on every run (a fresh one would make the 0.02 margin a draw)
    generate_corpus(CorpusParams(seed=11, rows=20_000, holdout_rows=5_000), corpus, secret=Secret.public())
    result = CliRunner().invoke(main, ["calibrate", "--corpus", str(corpus)])
    assert result.exit_code == 0, result.output
    assert "holdout F1" in result.output
    saved = json.loads((corpus / "calibration.json").read_text())
    by_name = {entry["variant"]: entry for entry in saved["references"]}
    careless, text_only, careful = by_name["careless"], by_name["text_only"], by_name["careful"]
    assert careless["local_f1"] >= 0.95
    assert careless["local_f1"] > max(text_only["local_f1"], careful["local_f1"])
    assert careless["holdout_f1"] < min(text_only["holdout_f1"], careful["holdout_f1"])
    assert careful["holdout_f1"] >= text_only["holdout_f1"] + 0.02
    assert 0.6 < text_only["holdout_f1"] < 0.95, "the text alone neither fails nor solves the task"
    assert saved["checks"]["ordering_holds"] is True
    assert [row["variant"] for row in saved["cheaters"]] == list(CHEATERS)
    assert all(row["margin"]["careful_better"] for row in saved["cheaters"] if row["variant"] in RULES)
    assert not list(corpus.glob(".calibration-*")), "no temporary file left behind"


@pytest.mark.slow
def test_sweep_through_the_cli_regenerates_and_reuses_the_corpus_point(tmp_path):
    corpus = tmp_path / "corpus"
    params = CorpusParams(seed=2, rows=600, holdout_rows=200)
    generate_corpus(params, corpus)
    points = f"0.1,{params.contamination}"
    result = CliRunner().invoke(main, ["calibrate", "--corpus", str(corpus), "--sweep", "--sweep-points", points])
    assert result.exit_code == 0, result.output
    assert "holdout F1 by contamination" in result.output
    saved = json.loads((corpus / "calibration.json").read_text())
    assert [point["contamination"] for point in saved["sweep"]] == [0.1, params.contamination]
    own_text_only = next(r for r in saved["references"] if r["variant"] == "text_only")
    assert saved["sweep"][1]["results"] == [own_text_only], "the corpus's own setting is not regenerated"
    assert [r["variant"] for r in saved["sweep"][0]["results"]] == ["text_only"]
    assert isinstance(saved["sweep_text_only_falls_monotonically"], bool)


def test_the_envelope_reader_must_be_beaten_at_full_size_and_the_rules_at_any_size():
    """Issue 34: sender_metadata can match careful on a small corpus (its features saturate early), so the
    ordering checks (any size) hold careful to the rules alone, and every cheater counts in all_hold."""
    from generators.common.paired import PairedInterval
    from generators.spam_classifier.calibration.checks import evaluate

    def row(variant, f1, local, margin=None, kind=RowKind.REFERENCE):
        return ReferenceResult(variant, local, f1, 0.0, 0.0, 0.0, 0.0, 0.0, kind, margin)

    above, around = PairedInterval(0.3, 0.2, 0.4), PairedInterval(-0.01, -0.05, 0.03)
    references = [row("careless", 0.01, 0.99), row("text_only", 0.767, 0.70), row("careful", 0.801, 0.73)]
    rules = [row(name, 0.3, 0.3, above, RowKind.CHEATER) for name in RULES]
    small = evaluate([*references, *rules, row("sender_metadata", 0.81, 0.7, around, RowKind.CHEATER)])
    assert small.ordering_holds and small.careful_beats_every_rule
    assert not small.careful_beats_every_cheater and not small.all_hold
    full = evaluate([*references, *rules, row("sender_metadata", 0.73, 0.67, above, RowKind.CHEATER)])
    assert full.careful_beats_every_cheater and full.all_hold
    assert set(CHEATERS) == {*RULES, "sender_metadata"}
