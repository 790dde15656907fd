"""How this fixture was made: a small batch written by bakeoff at commit 3f06060 (before the typed records).

Run it with the OLD code first on the path, from a worktree of that commit:

    git worktree add /tmp/before 3f06060
    cd /tmp && PYTHONPATH=/tmp/before /work/main/.venv/bin/python \
        /work/main/tests/data/batch_before_records/make_fixture.py /tmp/h2b/verify OUT

It writes WORK (corpus, scripted answers, the full batch) and OUT/batch (the records a report reads)
and OUT/expected (the old code's report of OUT/batch).

When the report itself changes on purpose (issue 27: scores first, cost, intervals from too few runs
withheld), OUT/expected is made again from the same committed records by the new code, after its diff
against the old one was read:

    cd /tmp && PYTHONPATH=/work/wt/iNN /work/main/.venv/bin/python \
        /work/wt/iNN/tests/data/batch_before_records/make_fixture.py --expected-only \
        /work/wt/iNN/tests/data/batch_before_records

The committed records hold WORK's absolute paths (/tmp/h2b/verify) as the old runner wrote them; the report shows them as text, nothing opens them.
Kept out: the run repositories (a nested git repository cannot be committed; only repo/DESIGN.md is
read), transcript.jsonl, predictions/, events.jsonl, plan.toml and the corpus's csv files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

OLD_TREE = Path(os.environ.get("PYTHONPATH", "/tmp/before").split(os.pathsep)[0])
sys.path.insert(0, str(OLD_TREE / "tests"))

import bakeoff  # noqa: E402

if not Path(bakeoff.__file__).resolve().is_relative_to(OLD_TREE.resolve()):
    raise SystemExit(f"bakeoff comes from {bakeoff.__file__}, not from the old tree {OLD_TREE}")

from runner_support import (  # noqa: E402
    DESIGN,
    EXPLORE,
    PREDICT_BROKEN,
    PREDICT_ZERO,
    README,
    TRAIN,
    TRAIN_CRASHING,
    implementation,
    make_tiny_corpus,
)

KEEPS = DESIGN.replace(
    "Dropped: moderator_flagged, because a moderator sets it after\narrival and it does not exist when the message is scored.",
    "Kept: moderator_flagged as a feature, it is available for every message.",
)
# Every run of a model replays the same script, so each model is one kind of run.
SCRIPTS = {
    # both runs crash (a module that does not exist) and the repair turn rescues them
    "alpha": [
        {"key": "explore#1", "text": EXPLORE},
        {"key": "decide#1", "text": DESIGN},
        {"key": "implement#1", "text": implementation(TRAIN_CRASHING)},
        {"key": "implement#2", "text": implementation()},
        {"key": "docs#1", "text": README},
    ],
    # the design never arrives (a timeout: uncaptured), an all-ham predictor is scored, docs cut off (unusable)
    "beta": [
        {"key": "explore#1", "text": EXPLORE},
        {"key": "decide#1", "text": "", "error": "the model did not answer in time", "error_kind": "timeout"},
        {"key": "implement#1", "text": implementation(TRAIN, PREDICT_ZERO)},
        {"key": "docs#1", "text": "# file: README.md\n```markdown\n# Spam filter\nIt predicts", "finish_reason": "length"},
    ],
    # keeps the leak, writes a broken output, its repair answer is lost in transport
    "gamma": [
        {"key": "explore#1", "text": EXPLORE},
        {"key": "decide#1", "text": KEEPS},
        {"key": "implement#1", "text": implementation(TRAIN, PREDICT_BROKEN)},
        {"key": "implement#2", "text": "", "error": "connection reset", "error_kind": "transport_error"},
        {"key": "docs#1", "text": README},
    ],
}
JUDGE = ("excluded_with_reason", "excluded_with_reason", "kept", "excluded_with_reason", "I cannot tell", "kept")


def jsonl(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def old_bakeoff(*args: str) -> None:
    command = [sys.executable, "-c", "from bakeoff.cli import main; main()", *args]
    subprocess.run(command, check=True, cwd="/tmp", env={**os.environ, "PYTHONPATH": str(OLD_TREE)})


def make_batch(work: Path) -> Path:
    work.mkdir(parents=True)
    corpus = make_tiny_corpus(work / "corpus")
    models = ", ".join(
        f'{{ spec = "scripted:{jsonl(work / f"{name}.jsonl", lines)}", label = "{name}" }}' for name, lines in SCRIPTS.items()
    )
    plan = work / "plan.toml"
    plan.write_text(
        f'runs = 2\ncorpus = "{corpus}"\nsandbox = "docker"\nseed = 3\nmodels = [{models}]\n'
        "[limits]\nmemory_mb = 2048\npids = 256\ncpus = 1.0\n[task_settings]\nsmoke_rows = 50\n",
        encoding="utf-8",
    )
    batch = work / "batch"
    old_bakeoff("run", "--plan", str(plan), "--out", str(batch))
    judge = jsonl(work / "judge.jsonl", [{"key": "judge#1", "text": text} for text in JUDGE])
    old_bakeoff("analyze", str(batch), "--judge", f"scripted:{judge}", "--probe-rows", "300", "--retrain-seeds", "1")
    old_bakeoff("review", "--model", "baseline:cues", "--out", str(batch / "review" / "cues"))
    old_bakeoff("calibrate", "--corpus", str(corpus))
    return batch


def strip(work: Path, target: Path) -> None:
    """The files a report reads, and two changes that give the reader more cases."""
    batch = work / "batch"
    target.mkdir(parents=True)
    shutil.copy(batch / "batch.json", target)
    (target / "corpus").mkdir()
    for name in ("manifest.json", "calibration.json"):
        shutil.copy(work / "corpus" / name, target / "corpus")
    shutil.copytree(batch / "review", target / "review")
    for run in sorted((batch / "runs").iterdir()):
        into = target / "runs" / run.name
        shutil.copytree(run / "stages", into / "stages")
        for name in ("run.json", "analysis.json", "repo/DESIGN.md"):
            if (run / name).is_file():
                (into / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(run / name, into / name)
    # beta-r02 stays unfinished (cut before docs); alpha-r02 is finished and never analysed
    for name in ("beta-r02/run.json", "beta-r02/stages/6-docs.json", "beta-r02/analysis.json", "alpha-r02/analysis.json"):
        (target / "runs" / name).unlink()


def expected(batch: Path, out: Path) -> None:
    report = out / "report"
    old_bakeoff("report", str(batch), "--out", str(report))
    keep = out / "expected"
    keep.mkdir()
    for name in ("report.md", "summary.json", "tables", "plots"):
        source = report / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, keep / name)
    # the review's page is left out: it shows the claim-review items read from the absolute path review.json
    # names (inside the old worktree), so it depends on that worktree existing where the test runs
    pages = [report / "report.html", *sorted((report / "transcripts").glob("*.html"))]
    pages = [p for p in pages if not p.name.startswith("review-")]
    digests = {p.relative_to(report).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in pages}
    (keep / "html_sha256.json").write_text(json.dumps(digests, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(report)


if __name__ == "__main__":
    if sys.argv[1] == "--expected-only":  # the report of the committed records, by the tree on PYTHONPATH
        out = Path(sys.argv[2])
        shutil.rmtree(out / "expected")
        expected((out / "batch").resolve(), out.resolve())
        raise SystemExit(0)
    work, out = Path(sys.argv[1]), Path(sys.argv[2])
    make_batch(work)
    strip(work, out / "batch")
    expected(out / "batch", out)
