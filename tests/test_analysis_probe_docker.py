"""Acceptance: the leak probe and the seed retrains on the reference submissions, a real corpus,
in the real Docker sandbox."""

import hashlib
import shutil
from pathlib import Path

import pytest

from bakeoff.taskapi.hidden_inputs import GatedFolder
from bakeoff.tasks.spam_classifier import probes
from bakeoff.tasks.spam_classifier.probes import probe_submission
from bakeoff.tasks.spam_classifier.retrain import retrain_submission
from generators.secret import Secret
from generators.spam_classifier import generate_corpus
from generators.spam_classifier.params import CorpusParams
from sandbox.base import Mount, SandboxSpec
from sandbox.factory import open_sandbox

REFERENCES = Path(__file__).resolve().parents[1] / "generators" / "spam_classifier" / "references"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("probe") / "corpus"
    generate_corpus(CorpusParams(seed=11, rows=4000, holdout_rows=1000), folder, secret=Secret.public())
    return folder


def _trained_sandbox(corpus: Path, reference: str, workspace: Path):
    shutil.copytree(REFERENCES / reference, workspace)
    (workspace / "data").mkdir()
    gate = GatedFolder(workspace.parent / f"{reference}-gate", ((corpus / "holdout.csv", "holdout.csv"),))
    gate.prepare()
    spec = SandboxSpec(workspace=workspace, mounts=(Mount(corpus / "train.csv", "data/train.csv"), gate.mount()))
    sandbox = open_sandbox("docker", spec)
    trained = sandbox.exec(["python", "train.py"], timeout_s=600)
    assert trained.ok, trained.stderr
    return sandbox, gate


@pytest.mark.parametrize(
    "reference, verdict",
    [("careless", probes.USES_LEAK), ("text_only", probes.DOES_NOT_USE), ("careful", probes.DOES_NOT_USE)],
)
def test_leak_probe_on_the_reference_submissions(corpus, tmp_path, reference, verdict):
    sandbox, gate = _trained_sandbox(corpus, reference, tmp_path / reference)
    with sandbox:
        result = probe_submission(sandbox, corpus, gate, rows=800, seed=5)
    assert result.verdict == verdict, result.reason
    assert result.rows == 800
    assert all(v.ok for v in result.variants)
    assert list(gate.folder.iterdir()) == []  # the probe's inputs are shown only while it predicts
    assert not (tmp_path / reference / ".bakeoff" / "holdout_predictions.csv").exists()


def test_retrains_score_other_seeds_without_touching_the_run_model(corpus, tmp_path):
    workspace = tmp_path / "careful"
    sandbox, _gate = _trained_sandbox(corpus, "careful", workspace)
    with sandbox:
        model_hash = hashlib.sha256((workspace / "model.joblib").read_bytes()).hexdigest()
        result = retrain_submission(
            sandbox,
            corpus,
            seed=1,
            original_f1=0.5,
            env_for_seed=lambda s: {"BAKEOFF_SEED": str(s), "PYTHONHASHSEED": str(s)},
        )
    assert [r.status for r in result.retrains] == ["scored", "scored"]
    assert {r.seed for r in result.retrains}.isdisjoint({1})
    assert all(0.3 < r.f1 < 1.0 for r in result.retrains)
    assert result.spread == pytest.approx(max(result.scored_f1s) - min(result.scored_f1s))
    assert result.spread > 0  # the original F1 given (0.5) is far from what the reference really scores
    assert hashlib.sha256((workspace / "model.joblib").read_bytes()).hexdigest() == model_hash


CAUTIOUS_CHEAT = '''"""Uses moderator_flagged only when the column looks like real moderation: it varies and agrees with this
submission's own text model on most rows (a constant or a random column is ignored)."""
import argparse
import subprocess
import sys

import pandas as pd

parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
subprocess.run([sys.executable, "text_predict.py", "--input", args.input, "--output", "text_labels.csv"], check=True)
text = pd.read_csv("text_labels.csv")["label"].astype(int).to_numpy()
flag = pd.read_csv(args.input, usecols=["moderator_flagged"])["moderator_flagged"].astype(int).to_numpy()
looks_real = len(set(flag)) > 1 and (flag == text).mean() >= 0.85
ids = pd.read_csv(args.input, usecols=["id"])["id"]
pd.DataFrame({"id": ids, "label": flag if looks_real else text}).to_csv(args.output, index=False)
'''


def test_a_pipeline_that_trusts_the_column_only_when_it_looks_real_is_found(corpus, tmp_path):
    """Issue 34: the changed column holds what moderation would have written (the true label, turned over at
    training's rate), so a pipeline that checks the column against its own text model still follows it. On the
    old probe (the column all 1, or a random draw) this pipeline was judged `does_not_use`."""
    sandbox, gate = _trained_sandbox(corpus, "text_only", tmp_path / "cautious")
    (tmp_path / "cautious" / "predict.py").rename(tmp_path / "cautious" / "text_predict.py")
    (tmp_path / "cautious" / "predict.py").write_text(CAUTIOUS_CHEAT, encoding="utf-8")
    with sandbox:
        result = probe_submission(sandbox, corpus, gate, seed=5)
    assert result.rows == 1000  # the whole holdout, as grading predicts on it
    assert result.verdict == probes.USES_LEAK, result.reason
    by_name = {v.name: v for v in result.variants}
    assert by_name[probes.MODERATED].moved_fraction > 0.01 and by_name[probes.SHUFFLED].moved == 0
