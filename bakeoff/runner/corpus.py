"""Corpora a batch uses without being told: made once with the generator, reused afterwards."""

from __future__ import annotations

from pathlib import Path

# The demo's corpus: small enough for a 2-core machine, with every trap of the full one.
DEMO_ROWS = 4000
DEMO_HOLDOUT_ROWS = 1000


def ensure_corpus(folder: Path, rows: int | None = None, holdout_rows: int | None = None, seed: int = 0) -> Path:
    """`folder` if it already holds a corpus, else a corpus generated into it (default size unless told)."""
    if (folder / "manifest.json").is_file():
        return folder
    from generators.spam import CorpusParams, generate_corpus

    sizes = {}
    if rows is not None:
        sizes["rows"] = rows
    if holdout_rows is not None:
        sizes["holdout_rows"] = holdout_rows
    folder.parent.mkdir(parents=True, exist_ok=True)
    generate_corpus(CorpusParams(seed=seed, **sizes), folder, force=folder.exists())
    return folder
