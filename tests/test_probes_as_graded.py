"""Issue 34: a probe's run cannot be told from a graded one (ab_test's unit probe, simulation's behaviour probe).

A recording sandbox plays the submission: for every command it notes what a submission could look at (its
argv, its wall-clock limit, its environment, the hidden folder's listing with each file's size, the input's
first line) and answers with a fixed interval. The probe's runs must look like the grading run of the same
hidden item in every one of those, except the content a probe changes on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from bakeoff.records import Rung
from bakeoff.taskapi.grading import GradeJob
from bakeoff.taskapi.score import FolderWorkspace
from bakeoff.tasks import task_plugin
from sandbox.base import ExecResult
from sandbox.paths import HOLDOUT_DIR


class Recorder:
    """A sandbox that runs nothing: it records what the submission would see and writes a fixed result."""

    kind = "none"

    def __init__(self, workspace: Path, gate_folder: Path, keys: tuple[str, str, str]) -> None:
        self.spec = SimpleNamespace(workspace=workspace, mounts=())
        self.gate_folder, self.keys = gate_folder, keys
        self.calls: list[dict] = []

    def writable_folders(self) -> list[Path]:
        return [self.spec.workspace]

    def exec(self, argv, timeout_s=None, env=None) -> ExecResult:
        argv = list(argv)
        source = argv[argv.index("--output") - 1]
        listing = {p.name: p.stat().st_size for p in sorted(self.gate_folder.iterdir())}
        self.calls.append({"argv": argv, "timeout_s": timeout_s, "env": dict(env or {}), "listing": listing,
                           "input": source})
        output = self.spec.workspace / argv[argv.index("--output") + 1]
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(dict(zip(self.keys, (0.01, -0.02, 0.04), strict=True))), encoding="utf-8")
        return ExecResult(tuple(argv), 0, "", "", False, False, 0.0)


def _job(task: str, corpus: Path, tmp_path: Path, keys: tuple[str, str, str]) -> tuple[GradeJob, Recorder]:
    plugin = task_plugin(task)
    files = plugin.corpus_files(corpus)
    gate = files.hidden_gate(tmp_path / "hidden_inputs")
    gate.prepare()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for script in ("analyze.py", "simulate.py"):  # the recorder plays the script; grading wants the file there
        (workspace / script).write_text("", encoding="utf-8")
    sandbox = Recorder(workspace, gate.folder, keys)
    job = GradeJob(sandbox=sandbox, workspace=FolderWorkspace(workspace), corpus=files,  # type: ignore[arg-type]
                   settings=plugin.spec().settings, wheelhouse=None, outputs_dir=tmp_path / "outputs", label="check",
                   env={"BAKEOFF_SEED": "7", "PYTHONHASHSEED": "7"}, hidden=gate)
    return job, sandbox


def _as_seen(call: dict) -> dict:
    """What a submission can compare between two runs of the same hidden item (the listing's names: a probe
    may change the size of the file it changes, never which files are there)."""
    return {"argv": call["argv"], "timeout_s": call["timeout_s"], "env": call["env"],
            "names": sorted(call["listing"])}


def _hidden_runs(calls: list[dict], name: str) -> list[dict]:
    return [c for c in calls if c["input"].startswith(HOLDOUT_DIR + "/") and Path(c["input"]).name == name]


@pytest.fixture(scope="module")
def ab_corpus(tmp_path_factory) -> Path:
    from generators.ab_test import AbParams, generate_ab_data
    from generators.secret import Secret

    out = tmp_path_factory.mktemp("ab") / "data"
    generate_ab_data(AbParams(seed=9, users=2000, experiments=3, holdout_users=200), out, secret=Secret.public())
    return out


def test_the_unit_probe_runs_as_grading_runs_the_same_experiment(ab_corpus, tmp_path):
    plugin = task_plugin("ab_test")
    job, sandbox = _job("ab_test", ab_corpus, tmp_path, ("effect", "ci_low", "ci_high"))
    graded = plugin.grade(job)
    assert graded.ladder_check().rung == Rung.SCORED
    graded_calls = list(sandbox.calls)
    sandbox.calls.clear()
    record = plugin.folder_probe(job, graded)
    assert record.unit.value != "failed", record
    probe_calls = sandbox.calls
    experiment = f"{record.experiment}.csv"
    (graded_run,) = _hidden_runs(graded_calls, experiment)
    assert len(probe_calls) == 3 and _hidden_runs(probe_calls, experiment) == probe_calls
    for call in probe_calls:
        assert _as_seen(call) == _as_seen(graded_run)
    # the unchanged input is byte for byte the graded one; the others change only the experiment's own file
    assert probe_calls[0]["listing"] == graded_run["listing"]
    for call in probe_calls[1:]:
        assert {k: v for k, v in call["listing"].items() if k != experiment} == \
            {k: v for k, v in graded_run["listing"].items() if k != experiment}
    assert list(job.hidden.folder.iterdir()) == []  # the gate is shut again
    assert not any(p.name.startswith(("unit_probe", "behaviour_probe", "probe")) for p in
                   (job.workspace.path / ".bakeoff").iterdir())


@pytest.fixture(scope="module")
def sim_corpus(tmp_path_factory) -> Path:
    from sim_runner_support import make_tiny_sim_data

    return make_tiny_sim_data(tmp_path_factory.mktemp("sim") / "data")


def test_the_behaviour_probe_runs_as_grading_runs_the_same_configuration(sim_corpus, tmp_path):
    from bakeoff.tasks.simulation.check import request_for, truth_table
    from bakeoff.tasks.simulation.layout import HOLDOUT_PART
    from bakeoff.tasks.simulation.probe import probe_in_sandbox

    plugin = task_plugin("simulation")
    job, sandbox = _job("simulation", sim_corpus, tmp_path, ("estimate", "ci_low", "ci_high"))
    graded = plugin.grade(job)
    assert graded.ladder_check().rung == Rung.SCORED
    graded_calls = list(sandbox.calls)
    sandbox.calls.clear()
    record = probe_in_sandbox(sandbox, job.corpus.path(HOLDOUT_PART), truth_table(job.corpus), gate=job.hidden,
                              request=request_for(job), count=1, seeds=2, factor=2)
    (probed,) = record.configurations
    name = f"{probed.configuration}.json"
    (graded_run,) = _hidden_runs(graded_calls, name)
    probe_calls = sandbox.calls
    assert len(probe_calls) == 3 and _hidden_runs(probe_calls, name) == probe_calls
    for call in probe_calls[:-1]:  # the other seeds: the very command and limits of the graded run
        assert _as_seen(call) == _as_seen(graded_run)
    longer = probe_calls[-1]  # twice the budget: the command grading would run on a file with that budget
    budget = json.loads((job.corpus.path(HOLDOUT_PART) / name).read_text(encoding="utf-8"))["cpu_seconds"]
    assert str(2 * int(budget)) in longer["argv"] and longer["env"] == graded_run["env"]
    assert sorted(longer["listing"]) == sorted(graded_run["listing"])
    assert list(job.hidden.folder.iterdir()) == []


def test_a_probe_input_under_a_name_grading_never_shows_is_refused(tmp_path):
    from bakeoff.taskapi.hidden_inputs import GatedFolder

    holdout = tmp_path / "exp_000.csv"
    holdout.write_text("user_id\n1\n", encoding="utf-8")
    gate = GatedFolder(tmp_path / "gate", ((holdout, "exp_000.csv"),))
    gate.prepare()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    box = SimpleNamespace(spec=SimpleNamespace(mounts=()), writable_folders=lambda: [workspace])
    for name in ("probe.csv", "../exp_000.csv"):
        with pytest.raises(ValueError, match="not a hidden input"), gate.opened(box, {name: holdout}):
            pass
        assert list(gate.folder.iterdir()) == []


SIM_SWITCHER = '''"""Simulates carelessly where it is graded (under /holdout) and carefully anywhere else."""
import runpy
import sys

i = sys.argv.index("--config")
graded = sys.argv[i + 1].startswith("/holdout/")
runpy.run_path("half.py" if graded else "careful.py", run_name="__main__")
'''


@pytest.mark.docker
@pytest.mark.slow
def test_a_simulation_that_switches_off_the_hidden_folder_is_judged_by_what_it_does_when_graded(sim_corpus,
                                                                                                 tmp_path):
    """Issue 34: on the old probe (configurations under .bakeoff/behaviour_probe/) this submission was `sound`."""
    from bakeoff.tasks.simulation.analysis import SimRequest, hidden_budgets
    from bakeoff.tasks.simulation.check import truth_table
    from bakeoff.tasks.simulation.layout import HOLDOUT_IN_SANDBOX, HOLDOUT_PART
    from bakeoff.tasks.simulation.probe import probe_in_sandbox
    from generators.simulation.calibration import materialize_sim
    from generators.simulation.probe import Behaviour
    from sandbox.base import SandboxSpec
    from sandbox.factory import open_sandbox

    workspace = tmp_path / "switcher"
    workspace.mkdir()
    for variant, name in (("sim_half", "half.py"), ("sim_careful", "careful.py")):
        (materialize_sim(variant, tmp_path / variant) / "simulate.py").rename(workspace / name)
    (workspace / "simulate.py").write_text(SIM_SWITCHER, encoding="utf-8")
    files = task_plugin("simulation").corpus_files(sim_corpus)
    gate = files.hidden_gate(tmp_path / "hidden_inputs")
    gate.prepare()
    holdout = files.path(HOLDOUT_PART)
    request = SimRequest("unused", 1, HOLDOUT_IN_SANDBOX, hidden_budgets(holdout), Path("unused"), Path("unused"), None)

    with open_sandbox("docker", SandboxSpec(workspace=workspace, mounts=(gate.mount(),))) as sandbox:
        record = probe_in_sandbox(sandbox, holdout, truth_table(files), gate=gate, request=request)
    assert record.behaviour is Behaviour.INDEPENDENT, record


def test_the_leak_probes_inputs_look_like_the_graded_holdout(tmp_path):
    """Issue 34: the unchanged input is the graded file byte for byte; each changed one differs from it only in
    moderator_flagged, which holds what moderation writes (the rate and the agreement with the label that the
    training file shows), once in place and once shuffled across the rows: no constant, no random draw."""
    import numpy as np
    import pandas as pd

    from bakeoff.tasks.spam_classifier.probes import BASELINE, MODERATED, SHUFFLED, write_probe_inputs
    from generators.secret import Secret
    from generators.spam_classifier import generate_corpus
    from generators.spam_classifier.params import CorpusParams

    corpus, folder = tmp_path / "corpus", tmp_path / "inputs"
    folder.mkdir()
    generate_corpus(CorpusParams(seed=5, rows=3000, holdout_rows=2000), corpus, secret=Secret.fresh())
    ids = write_probe_inputs(corpus, folder, None, np.random.default_rng(3))
    graded = (corpus / "holdout.csv").read_bytes()
    assert (folder / f"{BASELINE}.csv").read_bytes() == graded
    holdout = pd.read_csv(corpus / "holdout.csv", dtype=str, keep_default_na=False)
    assert ids == list(holdout["id"])
    train = pd.read_csv(corpus / "train.csv", usecols=["moderator_flagged", "label"])
    truth = pd.read_csv(corpus / "holdout_answers.csv", dtype={"id": str}).set_index("id").loc[ids, "label"].to_numpy()
    flags = {}
    for name in (MODERATED, SHUFFLED):
        changed = pd.read_csv(folder / f"{name}.csv", dtype=str, keep_default_na=False)
        assert (folder / f"{name}.csv").stat().st_size == len(graded)
        assert changed.drop(columns="moderator_flagged").equals(holdout.drop(columns="moderator_flagged"))
        flags[name] = changed["moderator_flagged"].astype(int).to_numpy()
    assert sorted(flags[SHUFFLED]) == sorted(flags[MODERATED])  # a permutation of the same values
    assert flags[MODERATED].mean() == pytest.approx(train["moderator_flagged"].mean(), abs=0.03)
    agreement = (train["moderator_flagged"] == train["label"]).mean()
    assert (flags[MODERATED] == truth).mean() == pytest.approx(agreement, abs=0.02)
    assert (flags[SHUFFLED] == truth).mean() < 0.8  # in place of no row in particular
