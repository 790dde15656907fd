"""The calibration reference submissions (careless, text_only, careful) and the cheaters beside them
(all_spam, base_rate, subject_keywords: degenerate rules a headline must not reward; sender_metadata: the
strongest cheap reader found, the envelope without the text).

The references share one source (`source/train.py`, `source/predict.py`), the cheaters another
(`cheat_source/`); a variant folder holds links to those files plus `variant.txt`. `materialize` writes a
self-contained copy (real files, no links) that runs anywhere the submission
interface is honoured: use it whenever a reference leaves this repository
(a sandbox workspace, a run's repository).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from generators.errors import GeneratorError

VARIANTS = ("careless", "text_only", "careful")
RULES = ("all_spam", "base_rate", "subject_keywords")  # cheaters that learn nothing: beaten at any corpus size
CHEATERS = (*RULES, "sender_metadata")  # the envelope reader: beaten once careful's text model has the rows
SOURCE = Path(__file__).resolve().parent / "source"
CHEAT_SOURCE = Path(__file__).resolve().parent / "cheat_source"
SUBMISSION_FILES = ("train.py", "predict.py")


class UnknownReference(GeneratorError):
    """A reference variant name that does not exist."""


def materialize(variant: str, dest: Path) -> Path:
    """Write the `variant` submission (train.py, predict.py, variant.txt) into `dest`; return dest."""
    if variant not in VARIANTS + CHEATERS:
        raise UnknownReference(f"no reference named {variant!r}; choose one of: {', '.join(VARIANTS + CHEATERS)}")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    source = SOURCE if variant in VARIANTS else CHEAT_SOURCE
    for name in SUBMISSION_FILES:
        shutil.copyfile(source / name, dest / name)
    (dest / "variant.txt").write_text(variant + "\n", encoding="utf-8")
    return dest
