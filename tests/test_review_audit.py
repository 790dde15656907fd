"""The bank's self-audit: no cheap reader reads the shipped bank, and each reader does read a bank that gives
its answers away (so a pass means the bank is clean, not that the readers are blind)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.review.audit.compression import CompressionReader
from bakeoff.review.audit.features import FeatureReader
from bakeoff.review.audit.ngrams import MinedRulesReader
from bakeoff.review.audit.run import (
    ACCURACY_BOUND,
    FAMILY_J_BOUND,
    PAIR_BOUND,
    _held_out,
    audit_bank,
    halves,
    score,
    templates,
)
from bakeoff.review.audit.surface import AdjacentTwinReader, DeadCodeReader, FirstSeenReader, dead_code
from bakeoff.review.audit.view import Example, Visible, visible
from bakeoff.review.items import FAMILIES, group_pairs, load_items

BANK = load_items()


@pytest.fixture(scope="module")
def rows():
    return audit_bank(BANK)


# (reader, protocol, family) cells of the shipped bank past the per-family bound, measured and not met yet. The
# list is exact: a new cell fails, and so does a listed cell that comes within (then take it off). The one cell is
# 7 of 10 test_set_tuning pairs told apart by the contrastive compression reader with one template held out; a
# reader at chance does that one time in six (see docs/review.md, "The self-audit's figures").
FAMILY_BOUND_NOT_MET = {("compression distance (zlib, twins contrasted)", "leave-one-template-out", "test_set_tuning")}


def test_no_reader_reads_the_shipped_bank_past_the_bounds(rows):
    shown = {(r.reader, r.protocol): (r.metrics.accuracy, r.metrics.pair_accuracy, r.families_over) for r in rows}
    assert all(r.within_bounds or {(r.reader, r.protocol, f) for f in r.families_over} <= FAMILY_BOUND_NOT_MET
               for r in rows), shown
    for row in rows:
        assert row.metrics.accuracy <= ACCURACY_BOUND
        assert row.contrastive or row.metrics.pair_accuracy <= PAIR_BOUND
        assert row.worst[0] is None or row.worst[0] <= ACCURACY_BOUND + 0.05  # no single split far past it either
    readers = {r.reader for r in rows}
    assert {"baseline:cues", "dead code", "mined n-gram rules", "logistic regression on code features",
            "order: right after its twin", "order: its twin came earlier", "order: parity of the position",
            CompressionReader.name} <= readers
    learning = ("mined n-gram rules", "logistic regression on code features", CompressionReader.name)
    protocols = {r.protocol for r in rows if r.reader in learning}
    assert protocols == {"halves (5 splits, both ways)", "leave-one-template-out"}


def test_the_file_order_and_the_dead_code_say_exactly_nothing(rows):
    by_reader = {r.reader: r.metrics for r in rows}
    assert by_reader["order: right after its twin"].accuracy == 0.5  # no twin stands next to its twin
    assert by_reader["order: its twin came earlier"].accuracy == 0.5  # the sound twin first in half the pairs
    assert by_reader["dead code"].accuracy == 0.5 and by_reader["dead code"].problem_recall == 0.0


def test_every_row_reports_youden_j_per_family_within_the_family_bound(rows):
    for row in rows:
        assert [f.family for f in row.metrics.per_family] == list(FAMILIES)
        assert all(f.youden_j is not None for f in row.metrics.per_family), row.reader
        assert set(row.to_dict()["youden_j_per_family"]) == set(FAMILIES)
    over = {(r.reader, r.protocol, f.family): f.youden_j for r in rows for f in r.metrics.per_family
            if f.family in r.families_over}
    assert set(over) == FAMILY_BOUND_NOT_MET, over
    assert all(f.youden_j <= FAMILY_J_BOUND + 1e-9 for r in rows for f in r.metrics.per_family
               if (r.reader, r.protocol, f.family) not in FAMILY_BOUND_NOT_MET)


def _giveaway(edit) -> tuple:
    """The bank with every flawed twin's code edited by `edit`."""
    return tuple(dataclasses.replace(i, code=edit(i.code)) if i.is_problem else i for i in BANK)


def test_the_readers_read_a_bank_that_gives_itself_away():
    pairs = group_pairs(BANK)
    sound_then_flawed = tuple(item for pair in pairs.values() for item in pair)  # the first banks' order
    seen = visible(sound_then_flawed)
    file = [seen[i.id] for i in sound_then_flawed]
    for reader in (AdjacentTwinReader(), FirstSeenReader()):
        answered = dict(zip((i.id for i in sound_then_flawed), reader.answer(file, file), strict=True))
        assert score(sound_then_flawed, answered).pair_accuracy == 1.0, reader.name
    debris = _giveaway(lambda code: code.replace("\n", "\nunused_copy = None\n", 1))
    answered = dict(zip((i.id for i in debris), DeadCodeReader().answer(list(visible(debris).values()), []),
                        strict=True))
    assert score(debris, answered).accuracy == 1.0
    planted = _giveaway(lambda code: code + "print(df.shape)\n")
    for make in (MinedRulesReader, FeatureReader, CompressionReader):
        for folds in (halves(planted, 0), templates(planted)):
            _, answered = _held_out(make, planted, folds, visible(planted))
            assert score(planted, answered).accuracy >= 0.8, make  # far past the bounds


def test_dead_code_finds_unused_imports_names_and_overwritten_values():
    code = ("import numpy as np\nimport pandas as pd\nx = 1\nx = 2\ny = pd.Series([x])\n"
            "def f(a, b):\n    return a\nreported = f(y, 0)\n")
    assert dead_code(code) == ["unread np", "overwritten x", "unread argument b"]
    closure = "def score(m):\n    return m + level\nlevel = 1\nfirst = score(0)\nlevel = 2\nreported = score(first)\n"
    assert dead_code(closure) == []


def test_bakeoff_review_audit_prints_the_rows_and_check_fails_a_bank_that_gives_itself_away(tmp_path):
    pairs = list(group_pairs(BANK).values())[:12]
    subset = tmp_path / "subset.jsonl"
    subset.write_text("".join(json.dumps(i.to_dict()) + "\n" for pair in pairs for i in pair))  # sound, then flawed
    result = CliRunner().invoke(main, ["review", "audit", "--items", str(subset), "--real", str(subset), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["bounds"] == {"accuracy": ACCURACY_BOUND, "pair_accuracy": PAIR_BOUND, "family_youden_j": FAMILY_J_BOUND}
    adjacent = next(r for r in report["bank"] if r["reader"] == "order: right after its twin")
    assert adjacent["accuracy"] == 1.0 and not adjacent["within_bounds"]
    assert {r["protocol"] for r in report["real"]} == {"trained on the bank", "as published"} and len(report["real"]) == 8
    checked = CliRunner().invoke(main, ["review", "audit", "--items", str(subset), "--real", str(subset), "--check"])
    assert checked.exit_code == 2 and "error: AuditOverBounds: past the bounds on the bank:" in checked.output
    assert "order: right after its twin (as published)" in checked.output
    assert "Youden's J per family" in checked.output


def test_the_compression_reader_contrasts_twins_by_their_claim():
    reader = CompressionReader()
    flawed = "best = pick(scores['test'])\nreported = scores['test'][best]\n"
    sound = "best = pick(scores['val'])\nreported = scores['test'][best]\n"
    reader.fit([Example(Visible("c1", flawed, 0), True, "p1"), Example(Visible("c1", sound, 1), False, "p1")])
    twins = [Visible("c2", sound.replace("scores", "table"), 2), Visible("c2", flawed.replace("scores", "table"), 3)]
    assert reader.answer(twins, twins) == [False, True]  # one of each, the flawed one nearer the flawed example


def _cue_in(family: str, cue: str) -> tuple:
    """The bank with `cue` added to the flawed twins of one family only: overall it hardly shows, in that family
    it gives every answer away."""
    return tuple(dataclasses.replace(i, code=i.code + cue) if i.family == family else i for i in BANK)


def test_check_fails_past_the_per_family_bound_naming_the_family_and_the_reader(tmp_path):
    planted = _cue_in("test_set_tuning", "print(len(df), 'rows')\n")
    bank = tmp_path / "planted.jsonl"
    bank.write_text("".join(json.dumps(i.to_dict()) + "\n" for i in planted))
    rows = {(r.reader, r.protocol): r for r in audit_bank(planted, seeds=(0,))}
    mined = rows[("mined n-gram rules", "halves (1 splits, both ways)")]
    assert "test_set_tuning" in mined.families_over and not mined.within_bounds
    assert mined.metrics.accuracy <= ACCURACY_BOUND  # the overall bound alone would let it through
    checked = CliRunner().invoke(main, ["review", "audit", "--items", str(bank), "--real", str(bank), "--check"])
    assert checked.exit_code == 2, checked.output
    assert "error: AuditOverBounds" in checked.output
    assert "mined n-gram rules (leave-one-template-out): " in checked.output
    assert "test_set_tuning J +1.00" in checked.output
