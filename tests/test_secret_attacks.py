"""The seed-recovery attack, for both tasks: a submission that embeds the public generator, reads only what a
sandbox shows it (the visible data and the mounted hidden inputs) and searches seeds.

With the secret in the attacker's hands (the world before secrets, or a leaked secret.hex) the attack is
perfect, which shows it is real. On a corpus drawn with a fresh secret it scores no better than chance.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bakeoff.tasks import task_plugin
from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.calibration import run_analyze
from generators.ab_test.cheaters import constant_interval
from generators.ab_test.writer import HOLDOUT_DIR, HOLDOUT_TRUTH_FILE
from generators.common.child import child_env
from generators.secret import SECRET_FILE, Secret
from generators.spam_classifier import CorpusParams, generate_corpus
from scorer import score_files
from scorer.intervals import read_truth, score_results

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = Path(__file__).resolve().parent / "submissions"
SPAM = CorpusParams(seed=4, rows=1500, holdout_rows=3000)
AB = AbParams(seed=3, users=400, experiments=6, holdout_users=300, holdout_size_spread=2.0)
AB_GUESS = {"users": AB.users, "experiments": AB.experiments, "holdout_users": AB.holdout_users,
            "holdout_size_spread": AB.holdout_size_spread}


def _attack(name: str, folder: Path, secret: Secret | None) -> Path:
    """The attack submission with the public generator embedded, and the secret when the attacker has it."""
    shutil.copytree(ATTACKS / name, folder)
    for package in ("generators", "durable"):
        shutil.copytree(ROOT / package, folder / "embedded" / package, ignore=shutil.ignore_patterns("__pycache__"))
    if secret is not None:
        (folder / "guess_secret.hex").write_text(secret.hex() + "\n", encoding="utf-8")
    return folder


def test_the_sandbox_never_sees_a_secret():
    for task, secret_free in (("spam_classifier", ("train.csv", "holdout.csv")), ("ab_test", ("sessions.csv", "holdout"))):
        layout = task_plugin(task).corpus_layout()
        assert tuple(part for part, _ in layout.mounts) == secret_free
        assert SECRET_FILE not in layout.required


def _spam_attack_f1(tmp_path: Path, corpus: Path, secret: Secret | None) -> tuple[float, str]:
    """Train and predict as a sandbox would: only train.csv (at data/) and holdout.csv, in a folder of their own."""
    workspace = _attack("attack_seed_search_spam", tmp_path / "workspace", secret)
    (workspace / "data").mkdir()
    shutil.copyfile(corpus / "train.csv", workspace / "data" / "train.csv")
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    shutil.copyfile(corpus / "holdout.csv", mounted / "holdout.csv")
    predictions = tmp_path / "predictions.csv"
    for argv in (["train.py"], ["predict.py", "--input", str(mounted / "holdout.csv"), "--output", str(predictions)]):
        done = subprocess.run([sys.executable, *argv], cwd=workspace, capture_output=True, text=True, env=child_env())
        assert done.returncode == 0, done.stderr
    score = score_files(predictions, corpus / "holdout_answers.csv")
    assert score.ok, score.message
    return score.f1, done.stdout


def test_spam_seed_search_reproduces_the_answers_only_with_the_secret(tmp_path):
    known = Secret.fresh()
    generate_corpus(SPAM, tmp_path / "leaked", secret=known)
    f1, output = _spam_attack_f1(tmp_path / "with-secret", tmp_path / "leaked", known)
    assert f1 == 1.0 and "matched 3000 of 3000" in output  # the attack is real: the secret is all it lacks

    generate_corpus(SPAM, tmp_path / "fresh")  # a fresh secret the attacker does not have
    f1, output = _spam_attack_f1(tmp_path / "without-secret", tmp_path / "fresh", None)
    assert "seed found: 4" in output, "the visible data still gives the seed away, by design"
    # A row or two may match by chance: both holdouts copied the same training row with the same small edit (one
    # match on 3 of 800 fresh secrets, never two); the attack without the secret reproduces nothing more.
    matched = re.search(r"matched (\d+) of 3000", output)
    assert matched is not None and int(matched.group(1)) <= 5, output
    # Chance: labels at the 18% spam rate, independent of the truth, score F1 0.18 +- 0.017 (all spam: 0.305).
    assert f1 < 0.27


def _ab_attack(tmp_path: Path, corpus: Path, secret: Secret | None) -> tuple[list[dict], object]:
    submission = _attack("attack_seed_search_ab", tmp_path / "attack", secret)
    (submission / "guess_params.json").write_text(json.dumps(AB_GUESS), encoding="utf-8")
    results = tmp_path / "results"
    results.mkdir()
    names = list(read_truth(corpus / HOLDOUT_TRUTH_FILE))
    for name in names:  # /holdout/<name>.csv is what the sandbox mounts
        run_analyze(submission, corpus / HOLDOUT_DIR / f"{name}.csv", results / f"{name}.json")
    answers = [json.loads((results / f"{name}.json").read_text()) for name in names]
    return answers, score_results(results, corpus / HOLDOUT_TRUTH_FILE)


@pytest.mark.slow  # over half a minute on the 2-core machine: its file is handed out early
def test_ab_seed_search_recovers_the_truth_only_with_the_secret(tmp_path):
    known = Secret.fresh()
    generate_ab_data(AB, tmp_path / "leaked", secret=known)
    answers, score = _ab_attack(tmp_path / "with-secret", tmp_path / "leaked", known)
    assert all(a["agreement"] == 1.0 and a["seed"] == AB.seed for a in answers)
    assert score.coverage == 1.0 and score.winkler < 1e-6  # a perfect score without estimating anything

    generate_ab_data(AB, tmp_path / "fresh")  # a fresh secret the attacker does not have
    answers, score = _ab_attack(tmp_path / "without-secret", tmp_path / "fresh", None)
    # 64 fair coins agree with any candidate's on about half; 16 candidates never come near all 64.
    assert all(a["agreement"] < 0.85 for a in answers), [a["agreement"] for a in answers]
    truth = read_truth(tmp_path / "fresh" / HOLDOUT_TRUTH_FILE)
    zero = sum(effect == 0.0 for effect in truth.values()) / len(truth)
    assert score.coverage is not None and score.coverage <= zero  # only a zero-effect guess can cover, by luck
    constant = constant_interval(AB)  # the data-free cheater: knowing nothing beats this attack
    width = constant["ci_high"] - constant["ci_low"]
    constant_winkler = sum(width + 40 * max(0.0, abs(effect) - constant["ci_high"]) for effect in truth.values())
    assert score.winkler is not None and score.winkler > constant_winkler / len(truth)


@pytest.mark.parametrize("task", ["spam_classifier", "ab_test"])
def test_a_corpus_names_its_secret_by_hash_only(tmp_path, task):
    out = tmp_path / task
    if task == "ab_test":
        generate_ab_data(AB, out)
    else:
        generate_corpus(SPAM, out)
    secret = Secret.read(out / SECRET_FILE)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["secret_id"] == secret.identity and secret.hex() not in json.dumps(manifest)
