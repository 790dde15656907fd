"""The shipped claim-review items: format, balance, coverage, and executable ground truth."""

from __future__ import annotations

import json

import pytest

from bakeoff.review.errors import ItemCodeFailed, ItemsInvalid
from bakeoff.review.execute import run_item
from bakeoff.review.items import (
    FAMILIES,
    REQUIRED_FIELDS,
    coverage,
    default_items_path,
    group_pairs,
    load_items,
    parse_items,
)
from generators.review_data import fixture_names

ITEMS = load_items()
RAW = [json.loads(line) for line in default_items_path().read_text().splitlines() if line.strip()]


def test_every_record_has_exactly_the_documented_fields():
    for record in RAW:
        assert set(record) == set(REQUIRED_FIELDS) | {"fixture"}, record["id"]


def test_at_least_40_items_balanced_between_problem_and_ok():
    cov = coverage(ITEMS)
    assert cov.n_items >= 40
    assert cov.n_problem == cov.n_ok


def test_every_family_has_at_least_three_problem_items():
    cov = coverage(ITEMS)
    assert set(cov.problems_per_family) == set(FAMILIES)
    assert min(cov.problems_per_family.values()) >= 3, cov.problems_per_family


def test_at_least_eight_matched_pairs_of_one_ok_and_one_problem_twin():
    pairs = group_pairs(ITEMS)
    assert len(pairs) >= 8
    for ok_twin, problem_twin in pairs.values():
        assert (ok_twin.verdict, problem_twin.verdict) == ("OK", "PROBLEM")
        assert ok_twin.fixture == problem_twin.fixture  # same data, so the twins can be compared
    assert all(item.pair_id in pairs for item in ITEMS if item.pair_id is not None)


def test_code_is_notebook_sized_and_flaw_lines_point_inside_it():
    for item in ITEMS:
        lines = item.code_lines
        assert 10 <= len(lines) <= 40, item.id
        for number in item.flaw_lines:
            assert 1 <= number <= len(lines), item.id
            assert lines[number - 1].strip() and not lines[number - 1].lstrip().startswith("#"), item.id
        assert bool(item.flaw_lines) == item.is_problem, item.id


def test_injected_items_are_the_problem_twins_of_pairs():
    for item in ITEMS:
        if item.origin == "injected":
            assert item.is_problem and item.pair_id is not None, item.id


@pytest.mark.parametrize(
    "item_id",
    [
        "houses-log1p-before-split",  # a parameter-free transform before the split
        "campaign-scaler-in-pipeline",  # a scaler inside a Pipeline under cross-validation
        "churn-shuffled-kfold-pipeline",  # shuffled KFold on independent rows
        "inbox-hashing-before-split",  # a hashing vectorizer that fits nothing
    ],
)
def test_the_over_flagger_traps_are_sound_items(item_id):
    item = next(item for item in ITEMS if item.id == item_id)
    assert item.verdict == "OK"


@pytest.mark.parametrize(
    "item_id, family",
    [
        ("campaign-scaler-before-cv", "data_leakage"),
        ("assay-select-then-cv", "data_leakage"),
        ("store-shuffled-kfold", "cv_misuse"),
        ("leads-oversample-then-cv", "cv_misuse"),
        ("fraud-accuracy", "metric_mismatch"),
        ("churn-impute-all-rows", "data_leakage"),
    ],
)
def test_the_broken_twins_are_problem_items_in_pairs(item_id, family):
    item = next(item for item in ITEMS if item.id == item_id)
    assert (item.verdict, item.family) == ("PROBLEM", family)
    assert item.pair_id is not None


def test_every_item_names_a_known_fixture():
    assert {item.fixture for item in ITEMS} <= set(fixture_names())


@pytest.mark.parametrize("item", ITEMS, ids=[item.id for item in ITEMS])
def test_every_items_code_runs_on_its_fixture_and_its_claim_states_the_figure(item):
    run = run_item(item, seed=0)
    assert run.item_id == item.id
    # The claim's figure was written from the code's own output on seed 0 data.
    reported = run.reported
    shown = [f"{reported:.1%}", f"{reported:.1f}", f"{reported:.2f}", f"{reported:.3f}"]
    assert any(text in item.claim for text in shown), (item.id, reported, item.claim)


def test_code_that_forgets_reported_is_caught():
    item = ITEMS[0]
    broken = type(item)(**{**item.__dict__, "code": item.code.replace("reported = ", "figure = ")})
    with pytest.raises(ItemCodeFailed, match="did not set `reported`"):
        run_item(broken, seed=0)


def _line(**overrides) -> str:
    record = dict(RAW[0])
    record.update(overrides)
    return json.dumps(record)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"verdict": "MAYBE"}, "verdict must be OK or PROBLEM"),
        ({"verdict": "PROBLEM", "family": "data_leakage", "flaw_lines": [99]}, "outside the code"),
        ({"verdict": "PROBLEM", "family": "data_leakage", "flaw_lines": []}, "at least one flaw line"),
        ({"verdict": "PROBLEM", "family": "vibes", "flaw_lines": [3]}, "family must be one of"),
        ({"family": "data_leakage"}, "OK item has family null"),
        ({"origin": "kaggle"}, "origin must be"),
        ({"colour": "red"}, "unknown field"),
        ({"code": ""}, "code must be a non-empty string"),
        ({"id": "review#2"}, "may hold only letters"),
        ({"id": "leak-1\n"}, "may hold only letters"),  # a trailing newline would end up in a conversation key
    ],
)
def test_invalid_items_are_refused_with_a_located_message(overrides, message):
    with pytest.raises(ItemsInvalid, match=message) as caught:
        parse_items(_line(**overrides), "mine.jsonl")
    assert "mine.jsonl:1" in str(caught.value)


def test_missing_fields_and_bad_json_are_refused():
    record = dict(RAW[0])
    del record["explanation"]
    with pytest.raises(ItemsInvalid, match="missing field.*explanation"):
        parse_items(json.dumps(record), "x.jsonl")
    with pytest.raises(ItemsInvalid, match="x.jsonl:2: not valid JSON"):
        parse_items(_line() + "\n{oops\n", "x.jsonl")


def test_duplicate_ids_and_malformed_pairs_are_refused():
    with pytest.raises(ItemsInvalid, match="duplicate item id"):
        parse_items(_line() + "\n" + _line(), "x.jsonl")
    ok_twin = next(r for r in RAW if r["pair_id"] and r["verdict"] == "OK")
    other_ok = dict(ok_twin, id="another-ok")
    with pytest.raises(ItemsInvalid, match="one OK and one PROBLEM"):
        parse_items(json.dumps(ok_twin) + "\n" + json.dumps(other_ok), "x.jsonl")


def test_a_subset_with_a_lone_twin_is_valid(tmp_path):
    subset = tmp_path / "subset.jsonl"
    subset.write_text("\n".join(json.dumps(r) for r in RAW[:3]) + "\n")
    items = load_items(subset)
    assert len(items) == 3
    assert len(group_pairs(items)) == 1  # the third item's twin is not in the subset


def test_a_missing_items_file_is_a_clear_error(tmp_path):
    with pytest.raises(ItemsInvalid, match="no items file"):
        load_items(tmp_path / "absent.jsonl")
