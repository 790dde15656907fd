"""The bank's self-audit: no cheap reader reads the shipped bank, and each reader does read a bank that gives
its answers away (so a pass means the bank is clean, not that the readers are blind)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.review.audit.chance import chance_at_least, pair_terms
from bakeoff.review.audit.compression import CompressionReader
from bakeoff.review.audit.features import FeatureReader
from bakeoff.review.audit.ngrams import MinedRulesReader
from bakeoff.review.audit.run import (
    ACCURACY_BOUND,
    FAMILY_CHANCE,
    FAMILY_J_BOUND,
    PAIR_BOUND,
    _held_out,
    audit_bank,
    audit_row,
    halves,
    score,
    templates,
)
from bakeoff.review.audit.surface import AdjacentTwinReader, DeadCodeReader, FirstSeenReader, dead_code
from bakeoff.review.audit.view import Example, Visible, visible
from bakeoff.review.items import FAMILIES, OK, PROBLEM, ReviewItem, group_pairs, load_items

BANK = load_items()


@pytest.fixture(scope="module")
def rows():
    return audit_bank(BANK)


# (reader, protocol, family) cells of the shipped bank whose J is above 0.3, each within what chance allows at its
# family's pair count. The list is exact, so a new cell is seen even where chance still covers it. Both cells are
# the 12 data_leakage pairs, whose templates did not change when the bank grew to 90 pairs: the regression with one
# template held out reads them at J +0.33 (a reader blind to the flaw reaches it 256 times in 4096), the contrastive
# compression reader on half-splits at +0.33 too (207 in 4096). See docs/review.md, "The self-audit's figures".
ABOVE_J_BOUND_BY_CHANCE = {
    ("logistic regression on code features", "leave-one-template-out", "data_leakage"): 256 / 4096,
    ("compression distance (zlib, twins contrasted)", "halves (5 splits, both ways)", "data_leakage"): 207 / 4096}


def test_no_reader_reads_the_shipped_bank_past_the_bounds(rows):
    shown = {(r.reader, r.protocol): (r.metrics.accuracy, r.metrics.pair_accuracy, r.families_over) for r in rows}
    assert all(r.within_bounds for r in rows), shown
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
        assert set(row.chance) == set(FAMILIES) and set(row.to_dict()["chance_per_family"]) == set(FAMILIES)
    above = {(r.reader, r.protocol, f.family): r.chance[f.family] for r in rows for f in r.metrics.per_family
             if f.youden_j > FAMILY_J_BOUND + 1e-9}
    assert above == pytest.approx(ABOVE_J_BOUND_BY_CHANCE), above
    assert all(chance >= FAMILY_CHANCE for chance in above.values())
    assert not any(r.families_over for r in rows)


def test_chance_is_the_exact_sign_flip_null_of_j():
    assert chance_at_least([1] * 7 + [-1] * 3) == 176 / 1024  # a contrastive reader, 7 of 10 pairs: P(Bin(10, 1/2) >= 7)
    assert chance_at_least([1] * 10) == 1 / 1024
    assert chance_at_least([0, 0, 0]) == 1.0 and chance_at_least([]) == 1.0  # twins called alike say nothing
    terms = [5, -3, 0, 2, 2, -1, 4]  # pooled samples: each pair's term is its flawed twin's calls less its sound twin's
    flips = [sum(t if (mask >> i) & 1 else -t for i, t in enumerate(terms)) for mask in range(2 ** len(terms))]
    assert chance_at_least(terms) == sum(total >= sum(terms) for total in flips) / len(flips)


def _family_of(pairs: int, right: int) -> tuple[list[ReviewItem], dict[str, bool]]:
    """`pairs` pairs of one family and a contrastive reader's verdicts telling `right` of them apart."""
    items, verdicts = [], {}
    for k in range(pairs):
        for verdict in (OK, PROBLEM):
            item = ReviewItem(f"{k}-{verdict}", f"claim {k}", "reported = 0.9\n", verdict,
                              "test_set_tuning" if verdict == PROBLEM else None, (), "", f"p{k}", "injected")
            items.append(item)
            verdicts[item.id] = (verdict == PROBLEM) == (k < right)
    return items, verdicts


class _Contrastive:
    name, contrastive = "a contrastive reader", True


@pytest.mark.parametrize(("pairs", "right", "over"), [
    (10, 7, False),   # J 0.4: chance gives it 17% of the time
    (10, 9, False),   # J 0.8: 1.1%, still above 0.05 shared over six families
    (10, 10, True),   # J 1.0: 0.1%
    (40, 27, False),  # J 0.35: 1.9%
    (40, 28, True),   # J 0.4: 0.8%; with enough pairs the bound comes down towards 0.3
    (80, 52, False),  # J 0.3 itself is within, whatever the pairs
])
def test_a_family_fails_past_the_j_bound_only_where_chance_does_not_reach_it(pairs, right, over):
    items, verdicts = _family_of(pairs, right)
    row = audit_row("bank", _Contrastive(), "halves", items, verdicts)
    j = next(f.youden_j for f in row.metrics.per_family if f.family == "test_set_tuning")
    assert j == pytest.approx(2 * right / pairs - 1)
    assert sum(pair_terms(items, [verdicts], "test_set_tuning")) == 2 * right - pairs
    assert row.families_over == (("test_set_tuning",) if over else ())  # (overall, one family is past 0.62 anyway)


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
            # far past the bounds (the regression, with one template held out, reads just under 0.8 of the v4 bank)
            assert score(planted, answered).accuracy >= 0.75, make


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
    assert report["bounds"] == {"accuracy": ACCURACY_BOUND, "pair_accuracy": PAIR_BOUND, "family_youden_j": FAMILY_J_BOUND,
                                "family_chance": FAMILY_CHANCE}
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
    # data_leakage holds 12 pairs (the fewest): a giveaway in all of them moves overall accuracy little (planted in
    # the 18 target_leakage pairs it now lifts the mined rules past the accuracy bound as well).
    planted = _cue_in("data_leakage", "print(len(df), 'rows')\n")
    bank = tmp_path / "planted.jsonl"
    bank.write_text("".join(json.dumps(i.to_dict()) + "\n" for i in planted))
    rows = {(r.reader, r.protocol): r for r in audit_bank(planted, seeds=(0,))}
    mined = rows[("mined n-gram rules", "halves (1 splits, both ways)")]
    assert mined.families_over == ("data_leakage",) and not mined.within_bounds
    assert mined.metrics.accuracy <= ACCURACY_BOUND  # the overall bound alone would let it through
    assert mined.chance["data_leakage"] < FAMILY_CHANCE  # (12 pairs: all told apart, chance's 1 in 4096, or near)
    assert {f for r in rows.values() for f in r.families_over} == {"data_leakage"}  # that family, no other
    checked = CliRunner().invoke(main, ["review", "audit", "--items", str(bank), "--real", str(bank), "--check"])
    assert checked.exit_code == 2, checked.output
    assert "error: AuditOverBounds" in checked.output
    assert "mined n-gram rules (leave-one-template-out): " in checked.output
    assert "data_leakage J +1.00 (chance 0.0002)" in checked.output


def test_a_row_without_its_chance_is_held_to_the_j_bound_alone():
    items, verdicts = _family_of(10, 7)
    row = audit_row("bank", _Contrastive(), "halves", items, verdicts)
    assert row.families_over == () and dataclasses.replace(row, chance={}).families_over == ("test_set_tuning",)
