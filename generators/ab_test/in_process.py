"""Running the A/B references' and cheaters' own analyze.py scripts in this process, for the full-size bench.

The calibration runs each row's analyze.py as a subprocess once per hidden experiment: ten rows, 96
experiments and four corpora are 3,840 Python starts with pandas imported in each, about an hour on the shared
machine. `run_rows_in_process` runs the SAME scripts with runpy (`__main__`, the same argv, their own folder
as `__file__`, so what a cheater carries beside its script is read as before), experiment by experiment, and
parses each experiment's log once: every script's `pd.read_csv(its input)` gets a fresh copy of that parse.
Only trusted code of this repository runs here (a submission never does).
"""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd

from generators.errors import ReferenceFailed


@contextlib.contextmanager
def _one_parse(source: Path) -> Iterator[None]:
    """While open, pd.read_csv(source) with no other argument returns a copy of one parse of `source`."""
    original = pd.read_csv
    parsed = original(source)

    def read_csv(path: object, *args: object, **kwargs: object) -> pd.DataFrame:
        if not args and not kwargs and isinstance(path, (str, Path)) and Path(path) == source:
            return parsed.copy()
        return original(path, *args, **kwargs)

    pd.read_csv = read_csv
    try:
        yield
    finally:
        pd.read_csv = original


def _run_script(script: Path, source: Path, output: Path) -> None:
    """`python script --input source --output output`, in this process; ReferenceFailed on an exit or error."""
    argv = sys.argv
    sys.argv = [str(script), "--input", str(source), "--output", str(output)]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as errors:
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise ReferenceFailed(f"{script.parent.name} on {source.name} exited with {exc.code}: "
                                  f"{errors.getvalue()[-2000:]}") from None
    except Exception as exc:  # noqa: BLE001 - a reference's own failure, named with its input
        raise ReferenceFailed(f"{script.parent.name} on {source.name} raised {type(exc).__name__}: {exc}") from None
    finally:
        sys.argv = argv


def run_rows_in_process(submissions: Mapping[str, Path], inputs: Sequence[Path], results: Path,
                        progress: Callable[[str], None] = lambda _: None) -> dict[str, float]:
    """Each submission's analyze.py on every input, writing results/<row>/<input's stem>.json; the seconds each
    row's runs took (the shared parse not counted)."""
    seconds = dict.fromkeys(submissions, 0.0)
    for folder in submissions:
        (results / folder).mkdir(parents=True, exist_ok=True)
    for index, source in enumerate(inputs):
        if index % 16 == 0:
            progress(f"experiment {index + 1} of {len(inputs)} ({source.parent.parent.name})")
        with _one_parse(source):
            for row, submission in submissions.items():
                started = time.perf_counter()
                _run_script(submission / "analyze.py", source, results / row / f"{source.stem}.json")
                seconds[row] += time.perf_counter() - started
    return seconds
