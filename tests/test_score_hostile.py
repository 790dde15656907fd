"""Hostile submission folders against `bakeoff score`, on real Docker and bwrap, run as root (issue 11).

The red team's attacks on the host side: git configuration that runs
commands, git redirection and links that bring the answer key in, a hard
link to the key, requirements that stall or crash the host, a train.py that
fills the disk, a look at the sandbox's mount table, and `bakeoff score`
killed by a signal halfway. Each must end as the submission's outcome (or a
named refusal) with nothing run, leaked or left behind on the host.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from deadline import Deadline

from bakeoff.tasks.spam_classifier.score import ScoreOptions, score_submission
from generators.secret import Secret
from generators.spam_classifier import generate_corpus
from generators.spam_classifier.params import CorpusParams

BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
MIB = 1024**2

KINDS = [
    pytest.param("docker", marks=pytest.mark.docker),
    pytest.param("bwrap", marks=pytest.mark.bwrap),
]

# Predicts from the answer key when it can read one through `answers.csv` (F1 1.0), else spam for nothing (F1 0).
KEY_READER = """
import argparse, csv
parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
try:
    answers = open("answers.csv").read()
    print("read the key")
    open(args.output, "w").write(answers)
except OSError as exc:
    print("no key:", type(exc).__name__)
    ids = [row["id"] for row in csv.DictReader(open(args.input, newline="", encoding="utf-8"))]
    open(args.output, "w").write("id,label\\n" + "".join(f"{i},0\\n" for i in ids))
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("score-hostile") / "corpus"
    generate_corpus(CorpusParams(seed=7, rows=400, holdout_rows=300), folder, secret=Secret.public())
    return folder


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def make_repo(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "submission")
    return folder


def bakeoff_score(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([BAKEOFF, "score", *args], capture_output=True, text=True, check=False, env=env)


def predict_stdout(outcome) -> str:
    return outcome.step("predict").stdout_tail


@pytest.mark.parametrize("kind", KINDS)
def test_core_fsmonitor_and_a_git_file_run_nothing_on_the_host(corpus, tmp_path, kind):
    marker = tmp_path / "ran-on-the-host"
    repo = make_repo(tmp_path / "repo", {"predict.py": KEY_READER})
    (repo / "model.py").symlink_to("predict.py")  # a link: the old copy asked git what the repository tracks
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "link")
    git(repo, "config", "core.fsmonitor", f"echo ran >> {marker}; false")
    redirected = tmp_path / "redirected"
    redirected.mkdir()
    (redirected / ".git").write_text(f"gitdir: {repo / '.git'}\n")  # the same hostile config, through a .git file
    (redirected / "predict.py").write_text(KEY_READER)
    (redirected / "model.py").symlink_to("predict.py")
    for folder in (repo, redirected):
        completed = bakeoff_score(str(folder), "--corpus", str(corpus), "--sandbox", kind, "--json")
        assert completed.returncode == 0, completed.stderr
        assert json.loads(completed.stdout)["status"] == "scored"
    assert not marker.exists()


@pytest.mark.parametrize("kind", KINDS)
def test_core_worktree_and_an_index_entry_for_the_key_do_not_bring_it_in(corpus, tmp_path, kind):
    key = (corpus / "holdout_answers.csv").resolve()
    repo = make_repo(tmp_path / "repo", {"predict.py": KEY_READER})
    subprocess.run(["git", f"--git-dir={repo / '.git'}", "--work-tree=/", "add", "-f", str(key)[1:]],
                   check=True, cwd="/", capture_output=True)
    git(repo, "config", "core.worktree", "/")
    (repo / "answers.csv").symlink_to(key)
    outcome = score_submission(repo, corpus, ScoreOptions(sandbox_kind=kind, timeout_s=120))
    assert "no key" in predict_stdout(outcome), predict_stdout(outcome)
    assert (outcome.status, outcome.f1) == ("scored", 0.0)  # 1.0 when the key came in
    assert any("answers.csv" in note and "never followed" in note for note in outcome.workspace_notes)


@pytest.mark.parametrize("kind", KINDS)
def test_a_hard_link_to_the_key_is_refused_by_name(corpus, tmp_path, kind):
    repo = make_repo(tmp_path / "repo", {"predict.py": KEY_READER})
    os.link(corpus / "holdout_answers.csv", repo / "answers.csv")
    completed = bakeoff_score(str(repo), "--corpus", str(corpus), "--sandbox", kind, "--json")
    assert completed.returncode == 2
    assert "error: ProtectedFileInSubmission: answers.csv" in completed.stderr
    assert "Traceback" not in completed.stderr and completed.stdout == ""


@pytest.mark.parametrize("kind", KINDS)
def test_five_thousand_requirement_lines_are_the_submissions_failure(corpus, tmp_path, kind):
    requirements = "".join(f"bakeoff-no-such-package-{number}\n" for number in range(5000))
    repo = make_repo(tmp_path / "repo", {"predict.py": KEY_READER, "requirements.txt": requirements})
    outcome = score_submission(repo, corpus, ScoreOptions(sandbox_kind=kind, timeout_s=60))
    assert (outcome.status, outcome.stage, outcome.rung) == ("dependency_unavailable", "install", 0)
    assert "at most 200" in outcome.detail
    assert len(outcome.requirements.lines) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_requirement_line_over_128_kib_is_the_submissions_failure(corpus, tmp_path, kind):
    repo = make_repo(tmp_path / "repo", {"predict.py": KEY_READER, "requirements.txt": "tabulate" * 20_000 + "\n"})
    completed = bakeoff_score(str(repo), "--corpus", str(corpus), "--sandbox", kind, "--json")
    assert completed.returncode == 0, completed.stderr  # no "Argument list too long" traceback
    outcome = json.loads(completed.stdout)
    assert (outcome["status"], outcome["stage"]) == ("dependency_unavailable", "install")
    (line,) = outcome["requirements"]["lines"]
    assert line["fate"] == "invalid_line" and "longer than" in line["reason"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_train_script_that_fills_the_disk_is_disk_full_with_its_peak(corpus, tmp_path, kind):
    cap = 64 * MIB
    options = ScoreOptions(sandbox_kind=kind, train=True, timeout_s=240, disk_bytes=cap, scratch_parent=tmp_path)
    host_free_before = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    outcome = score_submission(SUBMISSIONS / "fills_disk", corpus, options)
    host_free_after = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    assert (outcome.status, outcome.stage, outcome.crash_class) == ("crashed", "train", "disk_full"), outcome.to_dict()
    step = outcome.step("train")
    assert step.disk_cap_bytes == cap
    assert cap // 2 <= step.disk_peak_bytes <= cap + 8 * MIB  # the filesystem has a little room for its metadata
    assert "No space left on device" in outcome.detail and "peak" in outcome.detail
    assert abs(host_free_before - host_free_after) < 32 * MIB  # the loop image was removed with the scratch folder
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", KINDS)
def test_the_mount_table_shows_no_host_path_of_the_corpus_or_scratch(corpus, tmp_path, kind):
    options = ScoreOptions(sandbox_kind=kind, timeout_s=120, scratch_parent=tmp_path)
    outcome = score_submission(SUBMISSIONS / "reads_mountinfo", corpus, options)
    assert outcome.status == "scored", outcome.to_dict()
    table = predict_stdout(outcome)
    # the hidden inputs are a gate's folder at /holdout, as in a batch run (issue 34: probes are staged through it)
    assert " /holdout " in table and " /workspace " in table
    for host_path in (str(corpus.resolve()), str(tmp_path), "bakeoff-score-", "bakeoff-scratch-"):
        assert host_path not in table


def _wait_for_start(proc: subprocess.Popen, tmpdir: Path) -> Path:
    """The scratch workspace once predict.py has written its marker there (the sandbox is up and running)."""
    deadline = Deadline()
    while deadline.pending("predict.py's start marker"):
        found = list(tmpdir.glob("bakeoff-score-*/bakeoff-scratch-*/fs/workspace/started"))
        if found:
            return found[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)


def _containers_of(pid: int) -> list[str]:
    listed = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=org.bakeoff.owner-pid={pid}"],
        capture_output=True, text=True, check=True,
    )
    return listed.stdout.split()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_score_leaves_nothing_in_the_temp_folder(corpus, tmp_path, kind, signum):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    argv = [BAKEOFF, "score", str(SUBMISSIONS / "waits_for_signal"), "--corpus", str(corpus), "--sandbox", kind]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        marker = _wait_for_start(proc, tmpdir)
        proc.send_signal(signum)
        stdout, stderr = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, stderr
    assert f"interrupted by {signal.Signals(signum).name}" in stderr
    assert not marker.exists()
    assert list(tmpdir.iterdir()) == []  # scratch copy, loop image, /deps: all gone
    with open("/proc/self/mountinfo") as table:
        assert str(tmpdir) not in table.read()
    if kind == "docker":
        assert _containers_of(proc.pid) == []


@pytest.mark.parametrize("kind", KINDS)
def test_without_a_scratch_filesystem_the_watch_keeps_the_same_cap(corpus, tmp_path, kind):
    # What bakeoff does when it may not mount (not root): a plain folder, the command stopped past the cap.
    cap = 64 * MIB
    options = ScoreOptions(sandbox_kind=kind, train=True, timeout_s=240, disk_bytes=cap,
                           scratch_parent=tmp_path, scratch_kinds=("folder",))
    outcome = score_submission(SUBMISSIONS / "fills_disk", corpus, options)
    assert (outcome.status, outcome.stage, outcome.crash_class) == ("crashed", "train", "disk_full"), outcome.to_dict()
    step = outcome.step("train")
    assert step.disk_cap_bytes == cap and step.disk_peak_bytes > cap
    assert outcome.detail.startswith("stopped at the disk cap")
    assert list(tmp_path.iterdir()) == []
