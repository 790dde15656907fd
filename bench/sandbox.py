"""Sandbox and scorer costs, measured side by side in one run.

1. Per-execution overhead of a trivial command (`python -c pass`) over a bare
   host subprocess, for bakeoff's fresh container, reused container and bwrap,
   each beside the floor it stands on (plain `docker run --rm`, plain
   `docker exec`, plain `bwrap`). Goal: bakeoff adds at most 50% to its floor's
   overhead (ratio <= 1.5).
2. The scorer against pandas + scikit-learn on the same 50,000-row files, both
   as cold processes. Goal: the scorer is no slower (ratio <= 1.0).

Measurements are interleaved (one of each, then again) so that load from
other work on the machine falls on every contender alike; medians are shown.

    .venv/bin/python bench/sandbox.py [--repeat 15] [--rows 50000] [--image bakeoff-sandbox:latest]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRIVIAL = ["python", "-c", "pass"]
GOAL_SANDBOX_RATIO = 1.5
GOAL_SCORER_RATIO = 1.0


def timed(action: Callable[[], None]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run_quietly(argv: list[str]) -> None:
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def interleaved(
    contenders: dict[str, Callable[[], None]], repeat: int, failures: dict[str, str]
) -> dict[str, float]:
    """Median seconds per contender, each run once per round, in a shuffled order per round.

    A contender that raises is dropped and its error kept in `failures`: the
    bench reports what it could not measure instead of stopping.
    """
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    order = list(contenders)
    shuffler = random.Random(0)
    for _ in range(repeat):
        shuffler.shuffle(order)
        for name in list(order):
            try:
                samples[name].append(timed(contenders[name]))
            except Exception as exc:
                failures[name] = f"failed in round {len(samples[name]) + 1}: {exc}"
                order.remove(name)
    return {name: statistics.median(values) for name, values in samples.items() if name not in failures}


# -- part 1: per-execution overhead ------------------------------------------------------


def sandbox_contenders(image: str, workspace: Path, closers: list) -> tuple[dict, dict[str, str]]:
    """The callables to time, and for each unavailable one the reason."""
    contenders: dict[str, Callable[[], None]] = {"bare subprocess": lambda: run_quietly([sys.executable, "-c", "pass"])}
    unavailable: dict[str, str] = {}
    try:
        contenders.update(_docker_contenders(image, workspace, closers))
    except Exception as exc:  # a bench reports what it could not measure and carries on
        unavailable["docker"] = str(exc)
    try:
        contenders.update(_bwrap_contenders(workspace, closers))
    except Exception as exc:
        unavailable["bwrap"] = str(exc)
    return contenders, unavailable


def _docker_contenders(image: str, workspace: Path, closers: list) -> dict:
    from sandbox.base import SandboxSpec
    from sandbox.docker import DockerSandbox

    fresh = DockerSandbox(SandboxSpec(workspace=workspace), image=image, reuse=False)
    closers.append(fresh.close)
    reused = DockerSandbox(SandboxSpec(workspace=workspace), image=image, reuse=True)
    closers.append(reused.close)
    container = subprocess.run(
        ["docker", "run", "-d", "--rm", "--network", "none", image, "sleep", "infinity"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    closers.append(lambda: run_quietly(["docker", "rm", "-f", container]))
    return {
        "plain docker run --rm": lambda: run_quietly(["docker", "run", "--rm", "--network", "none", image, *TRIVIAL]),
        "bakeoff fresh container": lambda: _must_succeed(fresh.exec(TRIVIAL)),
        "plain docker exec": lambda: run_quietly(["docker", "exec", container, *TRIVIAL]),
        "bakeoff reused container": lambda: _must_succeed(reused.exec(TRIVIAL)),
    }


def _bwrap_contenders(workspace: Path, closers: list) -> dict:
    from sandbox.base import SandboxSpec
    from sandbox.bwrap import BwrapSandbox

    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise RuntimeError("bubblewrap is not installed")
    sandbox = BwrapSandbox(SandboxSpec(workspace=workspace))
    closers.append(sandbox.close)
    plain = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
             "--tmpfs", "/tmp", sys.executable, "-c", "pass"]
    return {
        "plain bwrap": lambda: run_quietly(plain),
        "bakeoff bwrap": lambda: _must_succeed(sandbox.exec(TRIVIAL)),
    }


def _must_succeed(result) -> None:
    if not result.ok:
        raise RuntimeError(f"{' '.join(result.argv)} failed in the sandbox: {result.stderr[-300:]}")


PAIRS = (
    ("bakeoff fresh container", "plain docker run --rm"),
    ("bakeoff reused container", "plain docker exec"),
    ("bakeoff bwrap", "plain bwrap"),
)


def report_overhead(medians: dict[str, float], unavailable: dict[str, str]) -> None:
    bare = medians["bare subprocess"]
    print(f"per-execution overhead over a bare `python -c pass` ({bare * 1000:.0f} ms), medians")
    print(f"{'bakeoff':<26}{'overhead':>10}   {'floor':<24}{'overhead':>10}   {'ratio':>6}  goal <= {GOAL_SANDBOX_RATIO}")
    for ours, floor in PAIRS:
        if ours not in medians or floor not in medians:
            continue
        ours_over, floor_over = medians[ours] - bare, medians[floor] - bare
        ratio = ours_over / floor_over if floor_over > 0 else float("inf")
        verdict = "ok" if ratio <= GOAL_SANDBOX_RATIO else "OVER"
        print(f"{ours:<26}{ours_over:>9.3f}s   {floor:<24}{floor_over:>9.3f}s   {ratio:>6.2f}  {verdict}")
    for name, reason in unavailable.items():
        print(f"{name}: not measured ({reason})")


# -- part 2: the scorer against pandas + scikit-learn -------------------------------------

PANDAS_SCORER = (
    "import sys, pandas as pd\n"
    "from sklearn.metrics import f1_score\n"
    "answers = pd.read_csv(sys.argv[1]); predictions = pd.read_csv(sys.argv[2])\n"
    "merged = answers.merge(predictions, on='id', suffixes=('_true', '_pred'), validate='one_to_one')\n"
    "assert len(merged) == len(answers)\n"
    "print(f1_score(merged['label_true'], merged['label_pred']))\n"
)


def write_label_files(folder: Path, rows: int) -> tuple[Path, Path]:
    rng = random.Random(50_000)
    truth = [int(rng.random() < 0.18) for _ in range(rows)]
    predicted = [t if rng.random() < 0.9 else 1 - t for t in truth]
    order = list(range(rows))
    rng.shuffle(order)
    answers, predictions = folder / "answers.csv", folder / "predictions.csv"
    answers.write_text("id,label\n" + "".join(f"{i + 1},{truth[i]}\n" for i in range(rows)))
    predictions.write_text("id,label\n" + "".join(f"{i + 1},{predicted[i]}\n" for i in order))
    return answers, predictions


def scorer_contenders(answers: Path, predictions: Path) -> dict[str, Callable[[], None]]:
    scorer = [sys.executable, "-m", "scorer", "--predictions", str(predictions), "--answers", str(answers), "--json"]
    pandas = [sys.executable, "-c", PANDAS_SCORER, str(answers), str(predictions)]
    return {
        "scorer (python -m scorer)": lambda: subprocess.run(scorer, check=True, capture_output=True, cwd=ROOT),
        "pandas + scikit-learn": lambda: subprocess.run(pandas, check=True, capture_output=True),
    }


def report_scorer(medians: dict[str, float], failures: dict[str, str], rows: int) -> None:
    if failures:
        for name, reason in failures.items():
            print(f"{name}: not measured ({reason})")
        return
    ours, theirs = medians["scorer (python -m scorer)"], medians["pandas + scikit-learn"]
    ratio = ours / theirs
    verdict = "ok" if ratio <= GOAL_SCORER_RATIO else "OVER"
    print(f"\nscoring {rows:,} rows, cold processes, medians")
    print(f"scorer (python -m scorer)   {ours:7.3f}s")
    print(f"pandas + scikit-learn       {theirs:7.3f}s")
    print(f"ratio scorer / pandas       {ratio:7.2f}   goal <= {GOAL_SCORER_RATIO}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="rounds per contender (default 15)")
    parser.add_argument("--rows", type=int, default=50_000, help="rows in the scorer's files (default 50,000)")
    parser.add_argument("--image", default="bakeoff-sandbox:latest", help="sandbox image for the Docker rows")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))

    closers: list = []
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as scratch:
        workspace = Path(scratch) / "workspace"
        workspace.mkdir()
        try:
            contenders, unavailable = sandbox_contenders(args.image, workspace, closers)
            # One untimed round first: first container start, page cache, imports.
            interleaved(contenders, 1, unavailable)
            live = {name: action for name, action in contenders.items() if name not in unavailable}
            report_overhead(interleaved(live, args.repeat, unavailable), unavailable)
        finally:
            for close in reversed(closers):
                close()
        answers, predictions = write_label_files(Path(scratch), args.rows)
        scoring = scorer_contenders(answers, predictions)
        failures: dict[str, str] = {}
        interleaved(scoring, 1, failures)  # warm-up
        report_scorer(interleaved(scoring, max(3, args.repeat // 3), failures), failures, args.rows)


if __name__ == "__main__":
    main()
