"""The A/B-test references on a small, strongly faulted setting: careless narrowest and under-covering,
careful near nominal coverage with the best Winkler score; `bakeoff calibrate --task ab_test` writes the table."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from generators.ab_test import AbParams, generate_ab_data
from generators.calibration.ab_test import UnknownAbReference, calibrate_ab, materialize_ab
from generators.errors import CorpusNotFound

# A bigger base rate and a longer fault make the fault's bias several standard errors at 3,000 users,
# so the ordering holds on 8 experiments rather than only on the full 48.
SMALL = AbParams(seed=3, users=400, experiments=8, holdout_users=3000, base_rate=0.2, fault_days=4, fault_other_share=0.0)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("abcal") / "data"
    generate_ab_data(SMALL, out)
    return out


def test_cli_calibration_orders_the_references_and_writes_the_table(corpus):
    result = CliRunner().invoke(main, ["calibrate", "--task", "ab_test", "--corpus", str(corpus)])
    assert result.exit_code == 0, result.output
    saved = json.loads((corpus / "calibration.json").read_text(encoding="utf-8"))
    by = {r["variant"]: r for r in saved["references"]}
    assert set(by) == {"ab_careless", "ab_half", "ab_careful"}
    assert all(r["experiments"] == 8 and r["failed"] == 0 for r in by.values())
    assert by["ab_careless"]["mean_width"] < min(by["ab_half"]["mean_width"], by["ab_careful"]["mean_width"])
    assert by["ab_careless"]["coverage"] <= 0.5
    assert by["ab_careful"]["coverage"] >= 0.75
    assert by["ab_careful"]["winkler"] < by["ab_half"]["winkler"] < by["ab_careless"]["winkler"]
    # careless and half share the biased point estimate; careful removed the fault's bias.
    assert by["ab_careless"]["mean_abs_error"] == pytest.approx(by["ab_half"]["mean_abs_error"])
    assert by["ab_careful"]["mean_abs_error"] < by["ab_half"]["mean_abs_error"]
    assert saved["checks"]["careless_narrowest"] and saved["checks"]["careful_best_winkler"]
    assert "ab_careful" in result.output and "Winkler" in result.output


def test_a_folder_without_hidden_experiments_is_named(tmp_path):
    with pytest.raises(CorpusNotFound):
        calibrate_ab(tmp_path)
    result = CliRunner().invoke(main, ["calibrate", "--task", "ab_test", "--corpus", str(tmp_path)])
    assert result.exit_code != 0 and "CorpusNotFound" in result.output


def test_materialize_names_an_unknown_reference(tmp_path):
    assert (materialize_ab("ab_half", tmp_path / "s") / "analyze.py").is_file()
    with pytest.raises(UnknownAbReference):
        materialize_ab("ab_nothing", tmp_path / "t")
