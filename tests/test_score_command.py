"""`bakeoff score REPO --corpus DIR` end to end, on real Docker (the default isolation), run as root."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bakeoff.tasks.spam_classifier.grade import GradingRequest, grade_in_sandbox
from bakeoff.tasks.spam_classifier.score import ScoreOptions, ScoringUnavailable, score_submission
from generators.secret import Secret
from generators.spam_classifier import generate_corpus
from generators.spam_classifier.params import CorpusParams
from sandbox.base import SandboxSpec
from sandbox.factory import open_sandbox
from sandbox.wheelhouse import default_wheelhouse

BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))

# A submission whose "model" is a JSON list of spam words: no pickled library
# objects, so it runs the same on the host and in the image.
KEYWORD_PREDICT = """
import argparse, csv, json, os
parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
words = json.load(open("model.json"))
print("git folder visible:", os.path.exists(".git"))
with open(args.input, newline="", encoding="utf-8") as source, open(args.output, "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["id", "label"])
    for row in csv.DictReader(source):
        text = (row["subject"] + " " + row["body"]).lower()
        writer.writerow([row["id"], int(any(word in text for word in words))])
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("score-command") / "corpus"
    generate_corpus(CorpusParams(seed=5, rows=400, holdout_rows=300), folder, secret=Secret.public())
    return folder


def make_repo(folder: Path, files: dict[str, str], untracked: dict[str, str] | None = None) -> Path:
    """A real git repository with `files` committed and `untracked` left untracked."""
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "submission"], check=True)
    for name, text in (untracked or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` (.git included) with a hash of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def bakeoff_score(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([BAKEOFF, "score", *args], capture_output=True, text=True, check=False)


@pytest.mark.docker
def test_scores_a_repository_with_an_untracked_model_and_leaves_it_untouched(corpus, tmp_path):
    repo = make_repo(tmp_path / "repo", {"predict.py": KEYWORD_PREDICT}, {"model.json": '["winner", "free"]'})
    before = snapshot(repo)
    completed = bakeoff_score(str(repo), "--corpus", str(corpus), "--json")
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout)
    assert outcome["status"] == "scored"
    assert outcome["isolation"] == "docker"
    assert outcome["rung"] == 5
    for key in ("stage", "crash_class", "detail", "traceback_tail", "f1", "metrics", "timings", "requirements"):
        assert key in outcome
    assert outcome["f1"] == outcome["metrics"]["f1"]
    assert set(outcome["metrics"]["confusion"]) == {"tp", "fp", "fn", "tn"}
    predict_step = next(step for step in outcome["steps"] if step["stage"] == "predict")
    assert "git folder visible: False" in predict_step["stdout_tail"]  # .git is not copied
    assert snapshot(repo) == before


@pytest.mark.docker
def test_a_crashing_submission_was_graded_so_the_exit_is_zero(corpus, tmp_path):
    repo = make_repo(tmp_path / "repo", {"predict.py": "import lightgbm_is_not_here\n"})
    completed = bakeoff_score(str(repo), "--corpus", str(corpus), "--json")
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout)
    assert (outcome["status"], outcome["crash_class"], outcome["detail"]) == (
        "crashed",
        "module_not_found",
        "lightgbm_is_not_here",
    )
    assert outcome["f1"] == 0


@pytest.mark.docker
def test_human_readable_output(corpus, tmp_path):
    files = {"predict.py": KEYWORD_PREDICT, "README.md": "Validation F1 on a held-out split.\nEXPECTED_F1: 0.7\n"}
    repo = make_repo(tmp_path / "repo", files, {"model.json": '["winner"]'})
    completed = bakeoff_score(str(repo), "--corpus", str(corpus))
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("status: scored")
    assert "claimed f1 (EXPECTED_F1 in its readme): 0.7000" in completed.stdout
    assert "isolation: docker" in completed.stdout


@pytest.mark.docker
def test_a_missing_predict_script_is_an_outcome(corpus, tmp_path):
    repo = make_repo(tmp_path / "repo", {"README.md": "nothing here\n"})
    outcome = score_submission(repo, corpus, ScoreOptions())
    assert (outcome.status, outcome.stage, outcome.rung) == ("no_script", "predict", 0)


@pytest.mark.docker
def test_a_timeout_is_its_own_status(corpus, tmp_path):
    repo = make_repo(tmp_path / "repo", {"predict.py": "import time\nwhile True:\n    time.sleep(1)\n"})
    outcome = score_submission(repo, corpus, ScoreOptions(timeout_s=3))
    assert (outcome.status, outcome.stage, outcome.crash_class) == ("timeout", "predict", None)


@pytest.mark.docker
def test_predictions_linked_to_the_answer_key_are_not_scored(corpus, tmp_path):
    # The sandbox cannot read the key, but a symbolic link it leaves in the
    # workspace would point the host's scorer at it.
    answers = (corpus / "holdout_answers.csv").resolve()
    predict = ("import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--input')\np.add_argument('--output')\n"
               f"os.symlink({str(answers)!r}, p.parse_args().output)\n")
    repo = make_repo(tmp_path / "repo", {"predict.py": predict})
    outcome = score_submission(repo, corpus, ScoreOptions())
    assert (outcome.status, outcome.f1) == ("bad_output", 0.0)
    assert outcome.metrics.error == "not_a_regular_file"


def test_a_bad_corpus_path_cannot_be_graded(tmp_path):
    repo = make_repo(tmp_path / "repo", {"predict.py": KEYWORD_PREDICT})
    completed = bakeoff_score(str(repo), "--corpus", str(tmp_path / "no-corpus"), "--json")
    assert completed.returncode != 0
    assert "error: CorpusFolderMissing:" in completed.stderr and "does not exist" in completed.stderr  # every command's
    assert "bakeoff generate" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert completed.stdout == ""


def test_a_corpus_without_its_answer_key_cannot_be_graded(corpus, tmp_path):
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "holdout.csv").write_bytes((corpus / "holdout.csv").read_bytes())
    repo = make_repo(tmp_path / "repo", {"predict.py": KEYWORD_PREDICT})
    completed = bakeoff_score(str(repo), "--corpus", str(partial))
    assert completed.returncode != 0
    assert "holdout_answers.csv" in completed.stderr


@pytest.mark.docker
def test_a_missing_image_cannot_be_graded_and_says_what_to_do(corpus, tmp_path):
    repo = make_repo(tmp_path / "repo", {"predict.py": KEYWORD_PREDICT})
    options = ScoreOptions(sandbox_options={"image": "bakeoff-sandbox:does-not-exist"})
    with pytest.raises(ScoringUnavailable, match="bakeoff sandbox build"):
        score_submission(repo, corpus, options)


def test_no_isolation_needs_the_explicit_flag(corpus, tmp_path):
    repo = make_repo(tmp_path / "repo", {"predict.py": KEYWORD_PREDICT}, {"model.json": '["winner"]'})
    with pytest.raises(ScoringUnavailable, match="unsafe"):
        score_submission(repo, corpus, ScoreOptions(sandbox_kind="none"))
    completed = bakeoff_score(str(repo), "--corpus", str(corpus), "--unsafe-no-isolation", "--json")
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout)
    assert (outcome["status"], outcome["isolation"]) == ("scored", "none")


def test_help_lists_the_options():
    completed = subprocess.run([BAKEOFF, "score", "--help"], capture_output=True, text=True, check=False)
    assert completed.returncode == 0
    for option in ("--corpus", "--train", "--timeout", "--sandbox", "--unsafe-no-isolation", "--json"):
        assert option in completed.stdout


@pytest.mark.docker
def test_a_linked_output_folder_is_not_followed_by_the_host(corpus, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "predictions.csv").write_text("id,label\n", encoding="utf-8")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    # left before grading (the host makes `out` a real folder again) and planted again by predict.py itself
    (workspace / "out").symlink_to(outside)
    (workspace / "predict.py").write_text(
        f"import os, shutil\nshutil.rmtree('out', ignore_errors=True)\nos.symlink({str(outside)!r}, 'out')\n",
        encoding="utf-8")
    request = GradingRequest(
        features_in_sandbox="predict.py",
        answers=corpus / "holdout_answers.csv",
        wheelhouse=default_wheelhouse(),
        predictions_name="out/predictions.csv",
    )
    with open_sandbox("docker", SandboxSpec(workspace=workspace)) as sandbox:
        outcome = grade_in_sandbox(sandbox, workspace, request)
    assert (outcome.status, outcome.metrics.error) == ("bad_output", "not_a_regular_file")
    assert (outside / "predictions.csv").exists()  # the stale-output cleanup did not reach outside
