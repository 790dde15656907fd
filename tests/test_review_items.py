"""The shipped claim-review bank: format, coverage, the debiasing rules, and executable ground truth."""

from __future__ import annotations

import ast
import itertools
import json
import random
import re
from collections import Counter

import pytest

from bakeoff.review.errors import ItemCodeFailed, ItemsInvalid
from bakeoff.review.execute import run_item
from bakeoff.review.items import (
    FAMILIES,
    KEY_OPTIONAL,
    KEY_REQUIRED,
    VISIBLE_FIELDS,
    canary,
    coverage,
    default_items_path,
    group_pairs,
    key_path,
    load_items,
    parse_items,
)
from generators.review_data import DOMAINS, fixture_names

ITEMS = load_items()
ITEM_LINES = [json.loads(line) for line in default_items_path().read_text().splitlines() if line.strip()]
KEY_LINES = [json.loads(line) for line in key_path(default_items_path()).read_text().splitlines() if line.strip()]
RAW = [item.to_dict() for item in ITEMS]  # self-contained records, for the format tests below
BASE = next(record for record in RAW if record["verdict"] == "OK")
PAIRS = group_pairs(ITEMS)
# Words that would tell a reader which twin is sound, in a comment or a name.
GIVEAWAYS = re.compile(r"leak|honest|proper|correct|wrong|careful|cheat|unbiased|nested|sound|clean|safe|"
                       r"bug|mistake|oops|fair|truth|naive_|peek|future|optimistic", re.IGNORECASE)
PLAUSIBLE = (0.55, 0.97)
MIN_ITEMS, MIN_PAIRS, MIN_PER_FAMILY = 100, 50, 10


def test_the_items_file_holds_only_what_a_reviewer_sees_and_the_key_the_rest():
    (items_head, *items), (key_head, *keys) = ITEM_LINES, KEY_LINES
    assert items_head == {"canary": canary(), "part": "items"} and key_head == {"canary": canary(), "part": "key"}
    assert "canary GUID" in canary()
    assert all(set(record) == set(VISIBLE_FIELDS) for record in items)
    assert all(set(record) == {"id", *KEY_REQUIRED, *KEY_OPTIONAL} for record in keys)
    assert [r["id"] for r in items] == [r["id"] for r in keys] == [item.id for item in ITEMS]
    # Without its key file the items file is no bank: it carries no verdict to fall back on.
    with pytest.raises(ItemsInvalid, match="missing field"):
        parse_items(default_items_path().read_text(), "items.jsonl")


def test_the_published_order_gives_nothing_away():
    position = {item.id: n for n, item in enumerate(ITEMS)}
    assert [item.id for item in ITEMS] == [f"cr-{n:03d}" for n in range(1, len(ITEMS) + 1)]
    places = [(position[ok.id], position[bad.id]) for ok, bad in PAIRS.values()]
    assert all(abs(a - b) > 1 for a, b in places), "twins side by side"
    assert sum(a < b for a, b in places) == len(places) // 2  # the sound twin first in half the pairs
    assert sum(b % 2 == 0 for _, b in places) == len(places) // 2  # PROBLEM items even and odd alike
    assert sum(a % 2 == 1 and b % 2 == 0 for a, b in places) <= len(places) // 4
    assert sum(a % 2 == 0 and b % 2 == 1 for a, b in places) <= len(places) // 4


def test_the_builders_shuffle_keeps_twins_apart_for_any_seed():
    from generators.review_data.bank.build import arrange

    pairs = [({"pair_id": f"p{k}", "verdict": "OK"}, {"pair_id": f"p{k}", "verdict": "PROBLEM"}) for k in range(40)]
    for seed in range(5):
        records = arrange(pairs, seed)
        assert [r["id"] for r in records] == [f"cr-{n:03d}" for n in range(1, 81)]
        assert all(a["pair_id"] != b["pair_id"] for a, b in itertools.pairwise(records))
        assert sum(r["verdict"] == "PROBLEM" for r in records[::2]) == 20
    first = arrange(pairs, 1)
    random.seed(7)  # the global generator moved on: the order is the seed's alone
    random.random()
    assert arrange(pairs, 1) == first and arrange(pairs, 2) != first


def test_bank_size_balance_and_coverage():
    cov = coverage(ITEMS)
    assert cov.n_items >= MIN_ITEMS and cov.complete_pairs >= MIN_PAIRS
    assert cov.n_problem == cov.n_ok  # so always-PROBLEM and always-OK both score exactly 0.5
    assert set(cov.problems_per_family) == set(FAMILIES)
    assert min(cov.problems_per_family.values()) >= MIN_PER_FAMILY, cov.problems_per_family
    assert cov.per_domain["time_series"] >= cov.n_items / 4, cov.per_domain
    assert cov.per_domain["text"] >= cov.n_items / 4, cov.per_domain


def test_every_item_is_one_twin_of_a_pair_on_the_same_data():
    assert all(item.pair_id in PAIRS for item in ITEMS)
    for ok_twin, problem_twin in PAIRS.values():
        assert (ok_twin.verdict, problem_twin.verdict) == ("OK", "PROBLEM")
        assert ok_twin.fixture == problem_twin.fixture and ok_twin.domain == problem_twin.domain
        assert ok_twin.template == problem_twin.template and ok_twin.template
        assert (ok_twin.origin, problem_twin.origin) == ("original", "injected")


def _tokens(code: str) -> Counter:
    return Counter(re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|\S", code))


def test_a_third_of_the_pairs_need_data_flow_no_line_of_the_flawed_twin_is_its_own():
    """The twins hold the same lines in another order, or the same tokens in other places."""
    same_lines = [p for p, (ok, bad) in PAIRS.items() if sorted(ok.code_lines) == sorted(bad.code_lines)]
    same_tokens = [p for p, (ok, bad) in PAIRS.items() if p not in same_lines and _tokens(ok.code) == _tokens(bad.code)]
    assert len(same_lines) + len(same_tokens) >= len(PAIRS) / 3, (same_lines, same_tokens)


def test_no_item_holds_dead_code():
    from bakeoff.review.audit.surface import dead_code

    assert {item.id: dead_code(item.code) for item in ITEMS if dead_code(item.code)} == {}


def test_both_twins_carry_the_same_claim_word_for_word():
    for ok_twin, problem_twin in PAIRS.values():
        assert ok_twin.claim == problem_twin.claim, ok_twin.pair_id


def _comments(code: str) -> list[str]:
    return [line.split("#", 1)[1].strip() for line in code.splitlines() if "#" in line and '"#' not in line]


def _names(code: str) -> set[str]:
    """Every name the code binds: variables, functions, loop variables."""
    tree = ast.parse(code)
    bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return bound | {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def test_no_comment_or_name_hints_at_soundness_or_at_the_flaw():
    for ok_twin, problem_twin in PAIRS.values():
        # The twins' comments are the same: a comment can describe the data, never the difference.
        assert sorted(_comments(ok_twin.code)) == sorted(_comments(problem_twin.code)), ok_twin.pair_id
        for item in (ok_twin, problem_twin):
            for text in (*_comments(item.code), *_names(item.code)):
                assert not GIVEAWAYS.search(text), (item.id, text)
        assert _names(problem_twin.code) <= _names(ok_twin.code) | {"df", "train", "extra"}, ok_twin.pair_id


def test_code_lengths_and_apis_are_balanced_between_the_twins():
    def imports(code):
        return {line for line in code.splitlines() if line.startswith(("import ", "from "))}

    for ok_twin, problem_twin in PAIRS.values():
        assert abs(len(ok_twin.code_lines) - len(problem_twin.code_lines)) <= 1, ok_twin.pair_id
        assert imports(ok_twin.code) == imports(problem_twin.code), ok_twin.pair_id
    ok_lines = [len(i.code_lines) for i in ITEMS if not i.is_problem]
    bad_lines = [len(i.code_lines) for i in ITEMS if i.is_problem]
    assert abs(sum(ok_lines) - sum(bad_lines)) <= len(PAIRS)


def test_code_is_notebook_sized_and_flaw_lines_point_at_code():
    for item in ITEMS:
        lines = item.code_lines
        assert 10 <= len(lines) <= 40, item.id
        for number in item.flaw_lines:
            assert lines[number - 1].strip() and not lines[number - 1].lstrip().startswith("#"), item.id


def test_every_problem_is_judgeable_from_its_own_code_and_claim():
    # Every column the flawed twin's flaw rests on is named in its code, and the claim says what is measured.
    for _ok_twin, problem_twin in PAIRS.values():
        mechanism = problem_twin.mechanism
        for column in (mechanism.get("column"), mechanism.get("date")):
            if column:
                assert column in problem_twin.code, problem_twin.id
        assert re.search(r"\d\.\d\d", problem_twin.claim), problem_twin.id


def test_every_item_names_a_known_fixture_and_its_domain():
    for item in ITEMS:
        assert item.fixture in fixture_names(), item.id
        assert item.domain == DOMAINS[item.fixture], item.id


_FIGURE = re.compile(r"(?<![\d.])(\d+\.\d+)(?!\d|\.\d)")


@pytest.mark.parametrize("item", ITEMS, ids=[item.id for item in ITEMS])
def test_every_items_code_runs_and_its_claim_states_the_figure_it_reports(item):
    run = run_item(item, seed=0)
    figures = _FIGURE.findall(item.claim)
    assert len(figures) == 1, item.claim
    (figure,) = figures
    decimals = len(figure.split(".")[1])
    assert f"{run.reported:.{decimals}f}" == figure, (item.id, run.reported)
    assert PLAUSIBLE[0] <= run.reported <= PLAUSIBLE[1], (item.id, run.reported)


def test_code_that_forgets_reported_is_caught():
    item = ITEMS[0]
    broken = type(item)(**{**item.__dict__, "code": item.code.replace("reported", "figure")})
    with pytest.raises(ItemCodeFailed, match="did not set `reported`"):
        run_item(broken, seed=0)


def _line(**overrides) -> str:
    record = dict(BASE)
    record.update(overrides)
    return json.dumps(record)


SOURCE = {"repository": "example/notebooks", "path": "a.ipynb", "lines": "3-14", "licence": "MIT"}


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
        ({"id": "leak-1\n"}, "may hold only letters"),
        ({"domain": "audio"}, "domain must be one of"),
        ({"origin": "real", "fixture": None}, "real item needs a source"),
        ({"source": SOURCE}, "only a real item has a source"),
        ({"origin": "real", "source": {**SOURCE, "lines": "14-3"}}, "runs backwards"),
        ({"origin": "real", "source": {**SOURCE, "licence": None}}, "source needs licence"),
        ({"origin": "real", "source": {"path": "a.py", "lines": "1-2", "licence": "MIT"}}, "repository or a url"),
        ({"origin": "real", "source": {**SOURCE, "author": "x"}}, "unknown source field"),
    ],
)
def test_invalid_items_are_refused_with_a_located_message(overrides, message):
    with pytest.raises(ItemsInvalid, match=message) as caught:
        parse_items(_line(**overrides), "mine.jsonl")
    assert "mine.jsonl:1" in str(caught.value)


def test_a_real_item_without_a_fixture_loads_with_its_source():
    (item,) = parse_items(_line(origin="real", fixture=None, source=SOURCE, pair_id=None, mechanism=None), "r.jsonl")
    assert item.is_real and item.fixture is None and item.source.repository == "example/notebooks"
    assert item.to_dict()["source"]["lines"] == "3-14"


def test_missing_fields_bad_json_duplicates_and_malformed_pairs_are_refused(tmp_path):
    record = dict(BASE)
    del record["explanation"]
    with pytest.raises(ItemsInvalid, match="missing field.*explanation"):
        parse_items(json.dumps(record), "x.jsonl")
    with pytest.raises(ItemsInvalid, match="x.jsonl:2: not valid JSON"):
        parse_items(_line() + "\n{oops\n", "x.jsonl")
    with pytest.raises(ItemsInvalid, match="duplicate item id"):
        parse_items(_line() + "\n" + _line(), "x.jsonl")
    ok_twin = next(r for r in RAW if r["verdict"] == "OK")
    with pytest.raises(ItemsInvalid, match="one OK and one PROBLEM"):
        parse_items(json.dumps(ok_twin) + "\n" + json.dumps(dict(ok_twin, id="another-ok")), "x.jsonl")
    subset = tmp_path / "subset.jsonl"
    ok, bad = next(iter(PAIRS.values()))
    lone = next(i for i in ITEMS if i.pair_id != ok.pair_id)
    subset.write_text("\n".join(json.dumps(i.to_dict()) for i in (ok, lone, bad)) + "\n")
    assert len(group_pairs(load_items(subset))) == 1
    with pytest.raises(ItemsInvalid, match="no items file"):
        load_items(tmp_path / "absent.jsonl")


def _bank(tmp_path, items, keys) -> object:
    path = tmp_path / "bank.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in items))
    key_path(path).write_text("".join(json.dumps(r) + "\n" for r in keys))
    return path


def test_a_bank_and_its_key_must_match_line_for_line(tmp_path):
    ok, bad = next(iter(PAIRS.values()))
    visible, keys = [ok.visible_record(), bad.visible_record()], [ok.key_record(), bad.key_record()]
    assert load_items(_bank(tmp_path, visible, keys[::-1])) == (ok, bad)  # joined by id, in the items file's order
    cases = [
        ([dict(visible[0], verdict="OK"), visible[1]], keys, "holds only id, claim, code; move verdict"),
        (visible, keys[:1], "has no line in"),
        (visible[:1], keys, "key lines for items not in"),
        (visible, [keys[0], dict(keys[1], colour="red")], "unknown key field"),
        (visible, [keys[0], keys[0]], "duplicate item id"),
        ([{"canary": "x", "part": "key"}, *visible], keys, "header is for a key file"),
        ([visible[0], {"canary": "x"}], keys, "header line .* comes first"),
    ]
    for items, key, message in cases:
        with pytest.raises(ItemsInvalid, match=message):
            load_items(_bank(tmp_path, items, key))
