"""`bakeoff leaderboard` (issue 27): batches pooled per task, one row per model identity (its file's sha256, not its
label) and reasoning mode; pooled only when task version, corpus, secret, harness and sandbox agree, otherwise a
named error listing the differences, and --allow-mixed pools them with each row marked; paired comparisons only
on seeds of one batch; HTML (opened in headless Chromium), Markdown and CSV."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest
from analysis_factory import FakeRun, write_batch
from report_png import read_png, region_stats
from runner_support import TRAIN_CRASHING, answers, bakeoff_cli, implementation, write_script

from bakeoff.analysis.leaderboard import BatchesNotPoolable, pooled_board
from bakeoff.batchfolder.read import read_batch
from bakeoff.tasks.ab_test.words import HEADLINE as WINKLER
from bakeoff.tasks.spam_classifier.words import HEADLINE as F1

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def fake_batch(folder: Path, runs: list[FakeRun], identities: dict[str, str], corpus: str = "c1",
               task_version: str | None = "v1", version: str = "0.9", sandbox: str = "docker",
               secret_id: str | None = None) -> Path:
    """A batch of `runs`; `secret_id` is written into its corpus's manifest (the batch's corpus/ folder)."""
    write_batch(folder, runs)
    record = json.loads((folder / "batch.json").read_text())
    record.update(identities=identities, corpus_sha256={"manifest.json": corpus}, code_version={"version": version})
    record["plan"]["sandbox"] = sandbox
    if task_version is not None:
        record["task_version"] = task_version
    (folder / "batch.json").write_text(json.dumps(record))
    if secret_id is not None:
        (folder / "corpus").mkdir()
        (folder / "corpus" / "manifest.json").write_text(json.dumps({"secret_id": secret_id}))
    return folder


def test_rows_are_models_by_identity_and_pairs_stay_within_a_batch(tmp_path):
    one = fake_batch(tmp_path / "one", [FakeRun("a", i, f1=0.70 + 0.01 * i) for i in (1, 2)],
                     {"a": "sha256:aaa"})
    two = fake_batch(tmp_path / "two", [FakeRun("renamed", i, f1=0.72 + 0.01 * i) for i in (1, 2, 3)]
                     + [FakeRun("b", i, f1=0.40 + 0.01 * i) for i in (1, 2, 3)],
                     {"renamed": "sha256:aaa", "b": "sha256:bbb"})
    board = pooled_board([read_batch(one), read_batch(two)], F1, "spam_classifier")
    rows = {row.model: row for row in board.rows}
    assert set(rows) == {"a / renamed", "b"}  # one file under two labels is one row
    pooled = rows["a / renamed"]
    assert pooled.runs == 5 and pooled.batches == ("one", "two") and pooled.identity == "sha256:aaa"
    assert [row.model for row in board.rows] == ["a / renamed", "b"]  # ranked by F1, higher first
    (pair,) = board.pairs()
    assert len(pair.seeds) == 3  # only batch two's three seeds: batch one's runs of seed 1001 pair with nothing


def test_one_endpoint_model_served_at_two_quantizations_or_by_two_engines_is_two_rows(tmp_path):
    """Issue 37: the row key holds what the server said it ran (bakeoff.models.effective), per model and batch, so
    a run that recorded nothing joins its model's row instead of splitting it."""
    endpoint = {"m": "openai:http://127.0.0.1:9/v1#llama3"}
    q4 = {"engine": "ollama", "quantization": "Q4_K_M"}
    one = fake_batch(tmp_path / "one", [FakeRun("m", i, f1=0.6, model_info=q4) for i in (1, 2)], endpoint)
    two = fake_batch(tmp_path / "two", [FakeRun("m", 1, f1=0.7, model_info={**q4, "quantization": "Q6_K"}),
                                        FakeRun("m", 2, f1=0.7)], endpoint)
    three = fake_batch(tmp_path / "three", [FakeRun("m", 1, f1=0.5, model_info={"engine": "vllm"})], endpoint)
    four = fake_batch(tmp_path / "four", [FakeRun("m", 1, f1=0.6, model_info=q4)], endpoint)
    board = pooled_board([read_batch(b) for b in (one, two, three, four)], F1, "spam_classifier")
    assert sorted((row.runs, row.batches) for row in board.rows) == \
        [(1, ("three",)), (2, ("two",)), (3, ("one", "four"))]


def test_batches_that_differ_are_refused_by_name_and_pooled_marked_when_allowed(tmp_path):
    same = fake_batch(tmp_path / "same", [FakeRun("a", 1, f1=0.7)], {"a": "sha256:aaa"})
    other = fake_batch(tmp_path / "other", [FakeRun("a", 1, f1=0.6)], {"a": "sha256:aaa"}, corpus="c2",
                       version="1.0")
    batches = [read_batch(same), read_batch(other)]
    with pytest.raises(BatchesNotPoolable, match=r"corpus: same \w+, other \w+; harness: same 0.9, other 1.0") as refused:
        pooled_board(batches, F1, "spam_classifier")
    assert "--allow-mixed" in str(refused.value) and "task_version" not in str(refused.value)
    board = pooled_board(batches, F1, "spam_classifier", allow_mixed=True)
    (row,) = board.rows
    assert row.runs == 2 and any(mark.startswith("corpus ") and ", " in mark for mark in row.marks)
    old = fake_batch(tmp_path / "old", [FakeRun("a", 1, f1=0.7)], {"a": "sha256:aaa"}, task_version=None)
    with pytest.raises(BatchesNotPoolable, match="task_version: same v1, old unknown"):
        pooled_board([read_batch(same), read_batch(old)], F1, "spam_classifier")  # a batch from before versions


def test_batches_drawn_with_different_secrets_are_refused_by_name_and_pooled_marked_when_allowed(tmp_path):
    """Hidden data drawn with another secret is another exam: its scores do not pool with this one's."""
    one = fake_batch(tmp_path / "one", [FakeRun("a", 1, f1=0.7)], {"a": "sha256:aaa"}, secret_id="secret-one")
    two = fake_batch(tmp_path / "two", [FakeRun("a", 1, f1=0.6)], {"a": "sha256:aaa"}, secret_id="secret-two")
    batches = [read_batch(one), read_batch(two)]
    with pytest.raises(BatchesNotPoolable, match=r"cannot be pooled: secret_id: one secret-one, two secret-two\. "):
        pooled_board(batches, F1, "spam_classifier")  # the secret alone differs, and it is named
    (row,) = pooled_board(batches, F1, "spam_classifier", allow_mixed=True).rows
    assert row.runs == 2 and any(mark.startswith("secret_id ") for mark in row.marks), row.marks
    unknown = fake_batch(tmp_path / "unknown", [FakeRun("a", 1, f1=0.6)], {"a": "sha256:aaa"})
    with pytest.raises(BatchesNotPoolable, match="secret_id: one secret-one, unknown unknown"):
        pooled_board([read_batch(one), read_batch(unknown)], F1, "spam_classifier")  # a secret for one batch only
    same = fake_batch(tmp_path / "same", [FakeRun("a", 1, f1=0.6)], {"a": "sha256:aaa"}, secret_id="secret-one")
    (row,) = pooled_board([read_batch(one), read_batch(same)], F1, "spam_classifier").rows
    assert row.runs == 2 and not row.marks


def test_batches_run_in_different_sandboxes_are_refused_by_name_and_pooled_marked_when_allowed(tmp_path):
    docker = fake_batch(tmp_path / "docker", [FakeRun("a", 1, f1=0.7)], {"a": "sha256:aaa"})
    bwrap = fake_batch(tmp_path / "bwrap", [FakeRun("a", 1, f1=0.6)], {"a": "sha256:aaa"}, sandbox="bwrap")
    batches = [read_batch(docker), read_batch(bwrap)]
    with pytest.raises(BatchesNotPoolable, match=r"cannot be pooled: sandbox: docker docker, bwrap bwrap\. "):
        pooled_board(batches, F1, "spam_classifier")
    (row,) = pooled_board(batches, F1, "spam_classifier", allow_mixed=True).rows
    assert row.runs == 2 and any(mark.startswith("sandbox ") for mark in row.marks), row.marks


def with_plan_changes(folder: Path, **plan: object) -> Path:
    record = json.loads((folder / "batch.json").read_text())
    record["plan"].update(plan)
    (folder / "batch.json").write_text(json.dumps(record))
    return folder


def test_batches_run_with_other_settings_are_refused_naming_the_setting_and_marked_when_allowed(tmp_path):
    long = with_plan_changes(fake_batch(tmp_path / "long", [FakeRun("a", 1, f1=0.7)], {"a": "sha256:aaa"}),
                             model_options={"n_ctx": 16384}, task_settings={"max_tokens": 4096})
    short = with_plan_changes(fake_batch(tmp_path / "short", [FakeRun("a", 1, f1=0.6)], {"a": "sha256:aaa"}),
                              model_options={"n_ctx": 4096}, task_settings={"max_tokens": 4096})
    batches = [read_batch(long), read_batch(short)]
    with pytest.raises(BatchesNotPoolable, match=r"settings: long model_options.n_ctx=16384, short model_options.n_ctx=4096"):
        pooled_board(batches, F1, "spam_classifier")
    (row,) = pooled_board(batches, F1, "spam_classifier", allow_mixed=True).rows
    assert row.runs == 2 and "settings model_options.n_ctx=16384, model_options.n_ctx=4096" in row.marks, row.marks
    # a scheduling option is not a setting: batches that differ only in it pool unmarked
    calm = with_plan_changes(fake_batch(tmp_path / "calm", [FakeRun("a", 1, f1=0.7)], {"a": "sha256:aaa"}),
                             model_options={"n_ctx": 4096, "max_concurrent": 4}, task_settings={"max_tokens": 4096})
    (row,) = pooled_board([read_batch(short), read_batch(calm)], F1, "spam_classifier").rows
    assert row.marks == ()


def test_runs_added_later_keep_their_mark_in_a_pooled_board(tmp_path):
    one = fake_batch(tmp_path / "one", [FakeRun("a", 1, f1=0.7), FakeRun("b", 1, f1=0.6)],
                     {"a": "sha256:aaa", "b": "sha256:bbb"})
    record = json.loads((one / "batch.json").read_text())
    record["extensions"] = [{"at": "2026-12-01T00:00:00+00:00", "previous_plan_sha256": "0" * 64, "added": ["b-r01"]}]
    (one / "batch.json").write_text(json.dumps(record))
    two = fake_batch(tmp_path / "two", [FakeRun("a", 1, f1=0.72), FakeRun("b", 1, f1=0.61)],
                     {"a": "sha256:aaa", "b": "sha256:bbb"})
    rows = {row.model: row for row in pooled_board([read_batch(one), read_batch(two)], F1, "spam_classifier").rows}
    assert rows["b"].marks == ("one: added later (extension 1)",) and rows["a"].marks == ()


def test_a_batch_still_running_is_refused_by_name_and_pooled_marked_with_partial(tmp_path):
    done = fake_batch(tmp_path / "done", [FakeRun("a", 1, f1=0.7)], {"a": "sha256:aaa"})
    running = fake_batch(tmp_path / "running", [FakeRun("a", 1, f1=0.6), FakeRun("a", 2)], {"a": "sha256:aaa"})
    (running / "runs" / "a-r02" / "run.json").unlink()  # in flight: its stages so far, no run record yet
    (running / "events.jsonl").write_text(json.dumps({"at": "2026-12-01T00:00:00+00:00", "event": "batch_started"}) + "\n")
    refused = bakeoff_cli("leaderboard", str(done), str(running), "--out", str(tmp_path / "board"))
    assert refused.returncode == 0, refused.stderr
    assert f"refused batch {running}: it is still running" in refused.stderr and "a-r02" in refused.stderr
    assert "--partial" in refused.stderr
    with open(tmp_path / "board" / "tables" / "leaderboard-spam_classifier.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["runs"] == "1" and row["batches"] == "done"
    marked = bakeoff_cli("leaderboard", str(done), str(running), "--partial", "--out", str(tmp_path / "partial"))
    assert marked.returncode == 0, marked.stderr
    with open(tmp_path / "partial" / "tables" / "leaderboard-spam_classifier.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["batches"] == "done running" and "running: partial (it is still running" in row["marks"]


def test_a_lower_is_better_headline_ranks_the_lowest_first(tmp_path):
    from ab_factory import AbFakeRun, write_ab_batch

    folder = write_ab_batch(tmp_path / "ab", [AbFakeRun("wide", 1, half_width=0.05), AbFakeRun("tight", 1, half_width=0.004)])
    board = pooled_board([read_batch(folder)], WINKLER, "spam_classifier")
    assert [row.model for row in board.rows] == ["tight", "wide"]


# -- three real scripted batches, one on another corpus ---------------------------------------------

@pytest.fixture(scope="module")
def three(tmp_path_factory):
    from generators.secret import Secret
    from generators.spam_classifier import CorpusParams, generate_corpus

    root = tmp_path_factory.mktemp("leaderboard")
    corpora = {}
    for name, seed in (("c1", 7), ("c2", 8)):
        corpora[name] = root / name
        generate_corpus(CorpusParams(seed=seed, rows=1500, holdout_rows=500), corpora[name], secret=Secret.public())
    write_script(root / "alpha.jsonl", answers(implementation()))
    write_script(root / "alpha-copy.jsonl", answers(implementation()))  # the same file under another name
    write_script(root / "beta.jsonl", answers(implementation(TRAIN_CRASHING)))
    plans = {
        "night1": ("c1", [("alpha.jsonl", "alpha")]),
        "night2": ("c1", [("alpha-copy.jsonl", "alpha-again"), ("beta.jsonl", "beta")]),
        "night3": ("c2", [("alpha.jsonl", "alpha")]),
    }
    batches = root / "batches"
    for name, (corpus, models) in plans.items():
        entries = ", ".join(f'{{ spec = "scripted:../{f}", label = "{label}" }}' for f, label in models)
        plan = root / "plans" / f"{name}.toml"
        plan.parent.mkdir(exist_ok=True)
        plan.write_text(f'runs = 1\ncorpus = "../{corpus}"\nsandbox = "docker"\nseed = 2\nmodels = [{entries}]\n'
                        "[limits]\nmemory_mb = 2048\npids = 256\ncpus = 1.0\n[task_settings]\nsmoke_rows = 50\n")
        done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(batches / name))
        assert done.returncode == 0, done.stderr
    return root, batches


@pytest.mark.docker
@pytest.mark.slow
def test_two_compatible_batches_make_one_leaderboard_opened_in_chromium(three, tmp_path):
    root, batches = three
    out = tmp_path / "board"
    done = bakeoff_cli("leaderboard", str(batches / "night1"), str(batches / "night2"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    with open(out / "tables" / "leaderboard-spam_classifier.csv", newline="") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"alpha / alpha-again", "beta"}  # alpha's two files are one model: one sha256
    alpha = rows["alpha / alpha-again"]
    assert alpha["runs"] == "2" and alpha["batches"] == "night1 night2" and alpha["rank"] == "1"
    assert float(alpha["median_wall_s"]) > 0 and float(alpha["tokens_in_per_run"]) > 0
    assert float(alpha["sandbox_cpu_s_per_run"]) > 0  # training ran in the Docker sandbox: its CPU seconds
    assert rows["beta"]["crash_rate"] == "1.0"
    assert "spam_classifier: 2 batches" in done.stdout and "beta" in done.stdout  # and printed
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'p1'}", "--dump-dom",
                          (out / "leaderboard.html").as_uri()], capture_output=True, text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for part in ('id="task-spam_classifier"', 'id="table-leaderboard-spam_classifier"', 'id="plot-pareto-spam_classifier"',
                 'id="table-paired-spam_classifier"', 'id="glossary"'):
        assert part in dom.stdout
    shot = tmp_path / "pareto.png"
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'p2'}", f"--screenshot={shot}",
                           "--window-size=600,380", (out / "plots" / "pareto-spam_classifier.svg").as_uri()],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    colours, inked = region_stats(read_png(shot), 0, 30, 600, 340)
    assert colours >= 4 and inked > 0.01
    # a folder of batch folders is read whole
    whole = bakeoff_cli("leaderboard", str(batches), "--out", str(tmp_path / "all"))
    assert whole.returncode == 2 and "error: BatchesNotPoolable:" in whole.stderr  # night3 is in there


@pytest.mark.docker
@pytest.mark.slow
def test_the_batch_on_another_corpus_is_refused_by_name_and_pooled_marked_when_allowed(three, tmp_path):
    _, batches = three
    args = [str(batches / name) for name in ("night1", "night2", "night3")]
    refused = bakeoff_cli("leaderboard", *args, "--out", str(tmp_path / "refused"))
    assert refused.returncode == 2 and "error: BatchesNotPoolable:" in refused.stderr
    assert "corpus: night1 " in refused.stderr and "night3 " in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "refused").exists()
    mixed = bakeoff_cli("leaderboard", *args, "--allow-mixed", "--out", str(tmp_path / "mixed"))
    assert mixed.returncode == 0, mixed.stderr
    with open(tmp_path / "mixed" / "tables" / "leaderboard-spam_classifier.csv", newline="") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert rows["alpha / alpha-again"]["runs"] == "3"
    assert all(row["marks"].startswith("corpus ") for row in rows.values())
    assert ", " in rows["alpha / alpha-again"]["marks"]  # its batches were on both corpora
    html = (tmp_path / "mixed" / "leaderboard.html").read_text()
    assert "Pooled with --allow-mixed although they differ: corpus" in html
