"""The full-size bench's way of running the A/B rows (generators.ab_test.in_process): the same analyze.py scripts
in one process, each log parsed once, give the same intervals, the same grades and the same paired margins as a
subprocess per row and experiment (`bakeoff calibrate`'s way), on the public secret and on a fresh one; a script
that fails is a named error."""

from __future__ import annotations

import json

import pytest

from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.calibration import calibrate_ab, materialize_ab
from generators.ab_test.in_process import run_rows_in_process
from generators.errors import ReferenceFailed
from generators.secret import Secret

TINY = AbParams(seed=5, users=1000, experiments=4, holdout_users=600, holdout_size_spread=2.0)
# the three references (the checks need them), a cheater that reads what it carries beside its script and one
# that reads no log at all
ROWS = ("ab_careless", "ab_half", "ab_careful", "ab_shrink", "ab_constant")


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    base = tmp_path_factory.mktemp("abinproc")
    generate_ab_data(TINY, base / "public", secret=Secret.public())
    fresh = Secret.fresh()
    generate_ab_data(TINY, base / "fresh", secret=fresh)
    return base / "public", base / "fresh", fresh.hex()


def test_in_process_rows_match_the_subprocess_rows(corpora):
    public, fresh, secret = corpora
    by_subprocess = calibrate_ab(public, spread=[fresh], variants=ROWS)
    in_process = calibrate_ab(public, spread=[fresh], variants=ROWS, in_process=True)
    for slow, fast in zip(by_subprocess.rows, in_process.rows, strict=True):
        assert fast.variant == slow.variant, secret
        assert fast.winklers == slow.winklers, f"{fast.variant}; fresh secret {secret}"
        assert fast.spread_winklers == slow.spread_winklers, f"{fast.variant}; fresh secret {secret}"
        assert (fast.coverage, fast.mean_abs_error, fast.mean_width) == (slow.coverage, slow.mean_abs_error,
                                                                           slow.mean_width)
        assert fast.margin == slow.margin and fast.spread_margins == slow.spread_margins
    assert in_process.checks == by_subprocess.checks


def test_a_failing_script_is_a_named_error_and_the_reader_is_restored(corpora, tmp_path):
    import pandas as pd

    public, _, _ = corpora
    broken = materialize_ab("ab_careful", tmp_path / "broken")
    (broken / "analyze.py").write_text("import sys\nprint('no', file=sys.stderr)\nsys.exit(3)\n", encoding="utf-8")
    reader = pd.read_csv
    with pytest.raises(ReferenceFailed, match="exited with 3"):
        run_rows_in_process({"broken": broken}, [public / "holdout" / "exp_000.csv"], tmp_path / "results")
    (broken / "analyze.py").write_text("raise KeyError('arm')\n", encoding="utf-8")
    with pytest.raises(ReferenceFailed, match="raised KeyError"):
        run_rows_in_process({"broken": broken}, [public / "holdout" / "exp_000.csv"], tmp_path / "results")
    assert pd.read_csv is reader


def test_each_script_gets_its_own_copy_of_the_parse(corpora, tmp_path):
    """A script that changes the frame it read does not change what the next script reads."""
    public, _, _ = corpora
    spoiler = tmp_path / "spoiler"
    spoiler.mkdir()
    (spoiler / "analyze.py").write_text(
        "import argparse, json\nimport pandas as pd\n"
        "p = argparse.ArgumentParser(); p.add_argument('--input'); p.add_argument('--output'); a = p.parse_args()\n"
        "frame = pd.read_csv(a.input); frame['converted'] = 1; del frame['revenue']\n"
        "json.dump({'effect': 0.0, 'ci_low': -1.0, 'ci_high': 1.0}, open(a.output, 'w'))\n", encoding="utf-8")
    careful = materialize_ab("ab_careful", tmp_path / "careful")
    source = public / "holdout" / "exp_001.csv"
    run_rows_in_process({"spoiler": spoiler, "careful": careful}, [source], tmp_path / "together")
    run_rows_in_process({"careful": careful}, [source], tmp_path / "alone")
    together = json.loads((tmp_path / "together" / "careful" / "exp_001.json").read_text(encoding="utf-8"))
    alone = json.loads((tmp_path / "alone" / "careful" / "exp_001.json").read_text(encoding="utf-8"))
    assert together == alone
