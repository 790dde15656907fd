"""The corpus cannot change under a batch: the sha256 of every corpus file a batch uses, checked before each run.

Flipping the answer key mid-batch once made later runs score against another key, silently.
The fingerprint is taken when the batch folder is created and stored in batch.json; a batch
whose corpus files no longer match is refused (CorpusChanged) before another run starts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.taskapi.context import CorpusFiles

_CHUNK = 1 << 20


class CorpusChanged(BakeoffError):
    """A corpus file differs from the one the batch was started with."""


def _sha256(path: Path) -> str | None:
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def corpus_fingerprint(corpus: CorpusFiles) -> dict[str, str | None]:
    """Path in the corpus folder -> sha256 of every corpus file a run reads or is graded with (None: absent).

    Which files those are is the task's (CorpusLayout); a folder counts as each of its files."""
    return {corpus.relative(path): _sha256(path) for path in corpus.files()}


def check_fingerprint(corpus: CorpusFiles, recorded: Mapping[str, str | None]) -> None:
    """CorpusChanged naming every file whose content is not the one recorded at the batch's creation."""
    now = corpus_fingerprint(corpus)
    changed = sorted(name for name in set(recorded) | set(now) if recorded.get(name) != now.get(name))
    if changed:
        raise CorpusChanged(
            f"corpus {corpus.folder} changed since this batch started: {', '.join(changed)} differ from the files "
            "the batch recorded; its runs would be graded on different data. Restore the corpus, or start a new "
            "batch (another --out folder)"
        )
