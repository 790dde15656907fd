"""The shipped real items: imported from notebooks through the importer, with a true source and licence each,
paired, in an order that gives nothing away, and rebuilt exactly from their manifest."""

from __future__ import annotations

import json
from pathlib import Path

from bakeoff.review.audit.run import audit_real
from bakeoff.review.importer import read_cells, source_lines
from bakeoff.review.items import FAMILIES, default_real_items_path, group_pairs, key_path, load_items
from bakeoff.review.real_items import build, default_manifest

ROOT = Path(__file__).resolve().parents[1]
REAL = load_items(default_real_items_path())


def test_the_shipped_real_items_are_exactly_what_the_manifest_builds():
    items_text, key_text = build(default_manifest())
    assert items_text == default_real_items_path().read_text(encoding="utf-8")
    assert key_text == key_path(default_real_items_path()).read_text(encoding="utf-8")


def test_at_least_twenty_real_items_each_with_a_true_source_and_licence():
    assert len(REAL) >= 20
    for item in REAL:
        assert item.is_real and item.fixture is None and item.source is not None
        assert (item.source.repository, item.source.licence) == ("bakeoff", "Apache-2.0")
        notebook = ROOT / item.source.path
        assert notebook.is_file(), item.source.path
        code_lines = [line for n, cell in enumerate(read_cells(notebook), start=1) if cell.get("cell_type") == "code"
                      for line in source_lines(cell, n)]
        taken = [line for first, last in item.source.ranges for line in code_lines[first - 1:last]]
        # The source's line ranges hold the item's code (magics aside), in order.
        assert tuple(line for line in taken if not line.lstrip().startswith(("%", "!"))) == item.code_lines, item.id
        assert "bakeoff project" in json.dumps(read_cells(notebook)[0]), "the notebook says whose it is"


def test_real_items_come_in_pairs_of_every_family_in_an_order_that_says_nothing():
    pairs = group_pairs(REAL)
    assert len(pairs) * 2 == len(REAL) and len({bad.family for _, bad in pairs.values()}) == len(FAMILIES)
    position = {item.id: n for n, item in enumerate(REAL)}
    places = [(position[ok.id], position[bad.id]) for ok, bad in pairs.values()]
    assert all(abs(a - b) > 1 for a, b in places) and sum(a < b for a, b in places) == len(places) // 2
    assert all(item.id.startswith("real-") for item in REAL)
    assert any(len(item.source.ranges) > 1 for item in REAL)  # snippets joined from cells apart


def test_every_reader_is_reported_on_the_real_items_per_family():
    rows = audit_real(load_items(), REAL)
    assert len(rows) == 8 and {r.protocol for r in rows} == {"trained on the bank", "as published"}
    for row in rows:
        assert row.metrics.items == len(REAL) and [f.family for f in row.metrics.per_family] == list(FAMILIES)
