"""Shared pieces of the runner and batch tests: a tiny corpus, scripted answers, a batch launcher.

The scripted train.py draws unseeded random numbers on purpose (a random
validation split and a random subsample of the training rows): only the
harness's seeding makes two runs of it give the same model and the same F1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
TINY_ROWS = 1500
TINY_HOLDOUT_ROWS = 500


def make_tiny_corpus(folder: Path) -> Path:
    from generators.secret import Secret
    from generators.spam_classifier import CorpusParams, generate_corpus

    generate_corpus(CorpusParams(seed=7, rows=TINY_ROWS, holdout_rows=TINY_HOLDOUT_ROWS), folder, secret=Secret.public())
    return folder


def fenced(name: str, body: str, language: str = "python") -> str:
    return f"# file: {name}\n```{language}\n{body.strip()}\n```\n"


EXPLORE = fenced("explore.py", """
import pandas as pd
df = pd.read_csv("data/train.csv")
print(df.shape)
print(df["label"].value_counts(normalize=True))
print(df.isna().sum())
""")

DESIGN = """Here is my design.

# file: DESIGN.md
```markdown
# Design
Metric: F1 of the spam class, because spam is the minority class (imbalance).
Columns: subject and body as text. Dropped: moderator_flagged, because a moderator sets it after
arrival and it does not exist when the message is scored.
Validation: a held-out split of the training data.
EXPECTED_F1: 0.70
```
"""

TRAIN = """
import pickle
import random

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score

df = pd.read_csv("data/train.csv")
# Unseeded on purpose: the harness seeds random and numpy for us.
keep = np.random.rand(len(df)) < 0.85
df = df[keep]
text = (df["subject"].fillna("") + " " + df["body"].fillna("")).tolist()
rows = list(range(len(df)))
random.shuffle(rows)
cut = int(len(rows) * 0.8)
train_rows, valid_rows = rows[:cut], rows[cut:]
vectorizer = TfidfVectorizer(min_df=2)
features = vectorizer.fit_transform(text)
labels = df["label"].to_numpy()
model = LogisticRegression(max_iter=300, class_weight="balanced")
model.fit(features[train_rows], labels[train_rows])
estimate = f1_score(labels[valid_rows], model.predict(features[valid_rows]))
model.fit(features, labels)
with open("model.pkl", "wb") as handle:
    pickle.dump((vectorizer, model), handle)
print(f"validation rows: {len(valid_rows)}")
print(f"EXPECTED_F1: {estimate:.3f}")
"""

PREDICT = """
import argparse
import pickle

import pandas as pd

parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
with open("model.pkl", "rb") as handle:
    vectorizer, model = pickle.load(handle)
df = pd.read_csv(args.input)
text = (df["subject"].fillna("") + " " + df["body"].fillna("")).tolist()
pd.DataFrame({"id": df["id"], "label": model.predict(vectorizer.transform(text))}).to_csv(args.output, index=False)
"""

# A train.py that crashes: a module that does not exist.
# A predict.py with no dependencies that calls every message ham: it always runs.
PREDICT_ZERO = """
import argparse, csv
parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
with open(args.input, newline="") as source, open(args.output, "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["id", "label"])
    for row in csv.DictReader(source):
        writer.writerow([row["id"], 0])
"""

TRAIN_CRASHING = "import spam_magic_toolkit\n" + TRAIN
# A predict.py that runs but writes no valid file (a wrong header): lower on the ladder than a scored one.
PREDICT_BROKEN = PREDICT.replace('{"id": df["id"], "label"', '{"message": df["id"], "spam"')

README = fenced("README.md", """
# Spam filter
TF-IDF and logistic regression on subject and body.
EXPECTED_F1: 0.71
""", language="markdown")


def implementation(train: str = TRAIN, predict: str = PREDICT) -> str:
    return "Here is the code.\n\n" + fenced("train.py", train) + "\n" + fenced("predict.py", predict) + "\n" + fenced(
        "requirements.txt", "pandas\nscikit-learn\nnumpy", language="text"
    )


def answers(implement: str, repair: str | None = None, docs: str = README) -> list[dict]:
    lines = [
        {"key": "explore#1", "text": EXPLORE},
        {"key": "decide#1", "text": DESIGN},
        {"key": "implement#1", "text": implement},
    ]
    if repair is not None:
        lines.append({"key": "implement#2", "text": repair})
    lines.append({"key": "docs#1", "text": docs})
    return lines


def write_script(path: Path, lines: list[dict], copies: int = 1) -> Path:
    """A scripted-backend file; `copies` repeats the answers once per run served by one backend."""
    path.write_text("".join(json.dumps(line) + "\n" for _ in range(copies) for line in lines), encoding="utf-8")
    return path


def write_plan(path: Path, corpus: Path, script: Path, runs: int, sandbox: str = "docker", extra: str = "",
               task: str | None = None) -> Path:
    """A plan file; `task` None leaves the task line out (the plan runs the default take-home)."""
    path.write_text(
        f'runs = {runs}\ncorpus = "{corpus}"\nsandbox = "{sandbox}"\nseed = 3\n'
        + (f'task = "{task}"\n' if task else "") +
        f'models = [{{ spec = "scripted:{script}", label = "scripted" }}]\n'
        "[limits]\nmemory_mb = 2048\npids = 256\ncpus = 1.0\n"
        # smoke_rows is the spam take-home's own setting (its settings.toml): another task refuses it
        "[task_settings]\n" + ("" if task else "smoke_rows = 50\n") + extra,
        encoding="utf-8",
    )
    return path


SANDBOX_LIMITS = {"memory_mb": 2048, "pids": 256, "cpus": 1.0}  # a scripted batch's sandbox, as write_plan's
# The scripted end-to-end batch's plan: every model granted its repair turn, a small smoke test.
REPAIRING_PLAN = {"seed": 11, "task_settings": {"always_repair": True, "smoke_rows": 50, "context_tokens": 16384}}


def run_scripted_batch(root: Path, scripts: dict[str, list[dict]], plan: dict, **options):
    """One scripted model per entry of `scripts` (label: its answers, written under `root`), one run each in
    the real Docker sandbox with SANDBOX_LIMITS unless `plan` says otherwise, run into root/batch.

    `plan` holds the rest of the plan (corpus, seed, task_settings...); `options` go to BatchOptions.
    Returns the BatchResult.
    """
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    models = [{"label": name, "spec": f"scripted:{write_script(root / f'{name}.jsonl', lines)}"}
              for name, lines in scripts.items()]
    mapping = {"models": models, "runs": 1, "sandbox": "docker", "limits": SANDBOX_LIMITS, **plan}
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    return run_plan(plan_from_mapping(mapping, root), BatchOptions(out_dir=root / "batch", wheelhouse=wheelhouse, **options))


def bakeoff_cli(*args: str, env_extra: dict | None = None, timeout: float | None = None) -> subprocess.CompletedProcess:
    """The real `bakeoff` command in a child process (so it can be SIGKILLed)."""
    env = {**os.environ, **(env_extra or {})}
    command = [str(Path(sys.executable).parent / "bakeoff"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=timeout)


def run_demo(tmp_path: Path, task: str, answers: list[dict]) -> tuple[subprocess.CompletedProcess, Path, Path, dict]:
    """`bakeoff demo --task TASK` with a scripted model giving `answers`: (the finished command, the demo's folder,
    its one run's folder, that run's record); the command must have succeeded."""
    script = write_script(tmp_path / "script.jsonl", answers)
    out = tmp_path / "demo"
    done = bakeoff_cli("demo", "--task", task, "--model", f"scripted:{script}", "--out", str(out))
    assert done.returncode == 0, done.stderr
    (run_dir,) = (out / "runs").iterdir()
    return done, out, run_dir, json.loads((run_dir / "run.json").read_text())


def stage_records(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "stages").glob("*.json"))]
