"""The shipped real items, built from notebooks through the importer: `python -m bakeoff.review.real_items`.

task_specs/claim_review/real/manifest.toml holds one import request per item (notebook,
cells, claim, label, and text that picks out each flaw line); this module imports every
one with bakeoff.review.importer, exactly as `bakeoff review import` would, puts the
items in a seeded order that gives nothing away (the bank builder's own rule: twins
apart, the sound twin first in half the pairs), numbers them `real-NNN` and writes the
bank's two files (items and key) beside the manifest.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import durable
from bakeoff.review.errors import ItemsInvalid
from bakeoff.review.importer import ImportRequest, build_record, cell_numbers, chosen_lines, read_cells
from bakeoff.review.items import bank_texts, canary, default_real_items_path, item_from_record, key_path

MANIFEST = "manifest.toml"
REQUEST_KEYS = {"pair", "notebook", "claim", "cells", "verdict", "family", "flaw", "explanation"}


def _flaw_lines(notebook: Path, cells: str, markers: list[str]) -> tuple[int, ...]:
    """Where each marker stands among the chosen cells' lines taken together (as --flaw-lines counts)."""
    all_cells = read_cells(notebook)
    taken, _ = chosen_lines(all_cells, cell_numbers(cells, len(all_cells)))
    found = []
    for marker in markers:
        hits = [n for n, line in enumerate(taken, start=1) if marker in line]
        if len(hits) != 1:
            raise ItemsInvalid(f"{notebook} cells {cells}: flaw text {marker!r} is on lines {hits}, not on one line")
        found.append(hits[0])
    return tuple(sorted(found))


def requests(manifest: Path) -> list[ImportRequest]:
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ItemsInvalid(f"cannot read {manifest}: {exc}") from None
    root, repository_root = manifest.parent, _repository_root()
    out = []
    for number, entry in enumerate(data.get("item", []), start=1):
        unknown = sorted(set(entry) - REQUEST_KEYS)
        if unknown:
            raise ItemsInvalid(f"{manifest}: item {number} has unknown key(s) {', '.join(unknown)}")
        notebook = root / entry["notebook"]
        out.append(ImportRequest(
            notebook=notebook, cells=entry["cells"], claim=entry["claim"], verdict=entry["verdict"],
            licence=data["licence"], family=entry.get("family"),
            flaw_lines=_flaw_lines(notebook, entry["cells"], entry.get("flaw", [])),
            repository=data["repository"], path=notebook.resolve().relative_to(repository_root).as_posix(),
            item_id=f"{entry['pair']}.{entry['verdict'].lower()}", explanation=entry.get("explanation"),
            pair_id=entry["pair"]))
    return out


def _repository_root() -> Path:
    """The folder holding task_specs/: the source paths are given from there, as in the repository."""
    import task_specs

    return Path(task_specs.__file__).resolve().parents[1]


def build(manifest: Path) -> tuple[str, str]:
    """(items file, key file) texts for the manifest's items, in the published order."""
    from generators.review_data.bank.build import arrange

    data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    pairs: dict[str, dict[str, dict]] = {}
    for request in requests(manifest):
        record = build_record(request)
        pairs.setdefault(str(request.pair_id), {})[record["verdict"]] = record
    ordered = arrange([(twins["OK"], twins["PROBLEM"]) for twins in pairs.values()], int(data["seed"]), prefix="real")
    items = [item_from_record(record, str(manifest)) for record in ordered]
    return bank_texts(items, canary())


def default_manifest() -> Path:
    return default_real_items_path().parent / MANIFEST


def main(argv: list[str]) -> int:
    """`[--out FILE]`: where to write the items (default: beside the manifest); the key goes beside it."""
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else default_real_items_path()
    items_text, key_text = build(default_manifest())
    durable.write_text(key_path(out), key_text)
    durable.write_text(out, items_text)
    print(f"{items_text.count(chr(10)) - 1} real items written to {out} and its key", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
