"""What the interval tasks' calibrations (ab_test, simulation) do the same way: check the data folder, run a
reference's script on the host once per hidden item (our own trusted code, as a plain subprocess), and
report their targets as a row of pass/fail checks."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from generators.common.child import child_env
from generators.errors import CorpusNotFound, ReferenceFailed

_TAIL_CHARS = 2000


@dataclass(frozen=True)
class PassFail:
    """Named targets, each True when it held (a subclass's fields)."""

    @property
    def all_passed(self) -> bool:
        return all(asdict(self).values())

    def to_dict(self) -> dict[str, bool]:
        return asdict(self)


def check_data_folder(corpus: Path, parts: Sequence[str], kind: str) -> None:
    """CorpusNotFound naming what `corpus` lacks of `parts`: it is then not `kind` ("an ab_test data folder")."""
    missing = [name for name in parts if not (corpus / name).exists()]
    if missing:
        raise CorpusNotFound(f"{corpus} is not {kind} (missing {', '.join(missing)})")


def run_script(submission: Path, script: str, flag: str, source: Path, output: Path, python: str = sys.executable,
               preexec_fn: Callable[[], None] | None = None) -> None:
    """`python SCRIPT FLAG source --output output` in `submission`; ReferenceFailed on a non-zero exit."""
    argv = [python, script, flag, str(source), "--output", str(output)]
    done = subprocess.run(argv, cwd=submission, capture_output=True, text=True, env=child_env(),
                          preexec_fn=preexec_fn)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-_TAIL_CHARS:]
        raise ReferenceFailed(f"{submission.name} {script} on {Path(source).name} exited with {done.returncode}:\n{tail}")


def run_each(names: Iterable[str], run: Callable[[str], None], jobs: int) -> None:
    """`run` on every hidden item, `jobs` at a time (each waits on its own subprocess)."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(run, names))
