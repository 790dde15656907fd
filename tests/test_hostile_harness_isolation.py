"""Issue 32, rows 4, 17 and 18: the harness's own code in the sandbox, an offline grader, a second local user.

- The harness's helpers in the sandbox (the CPU cap, the package listing, pip) run as `python -I`: a `resource.py`
  beside simulate.py does not turn the CPU cap off, and a `json.py` beside the submission does not make
  `bakeoff score` a harness failure (exit 2).
- On a grader that cannot reach the package index, a requirement the wheelhouse does not hold is the submission's
  named failure (`dependency_unavailable`), scored with exit 0.
- With bakeoff as root, a real second local user with the sandbox's uid and gid (under bwrap 65534, `nobody`, which
  other services use too; under Docker the image's 10001) can neither read nor rewrite a workspace between
  executions, and no one but the harness's user (`nobody` tried) reads a corpus's answer keys, while the sandboxed
  command still reads and writes its workspace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from ab_runner_support import make_tiny_ab_data
from package_index import index_that_hangs_up
from runner_support import make_tiny_corpus
from sim_runner_support import make_tiny_sim_data

from bakeoff.tasks.simulation.cpu_cap import CPU_EXCEEDED_EXIT, capped_argv, over_budget
from generators.simulation.calibration import materialize_sim
from sandbox.base import Limits, SandboxSpec
from sandbox.bwrap import SANDBOX_UID as BWRAP_UID
from sandbox.docker import SANDBOX_UID as DOCKER_UID
from sandbox.factory import open_sandbox
from sandbox.hostenv import ensure_host_env
from sandbox.requirements import environment_distributions

BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))
KINDS = [pytest.param("docker", marks=pytest.mark.docker, id="docker"),
         pytest.param("bwrap", marks=pytest.mark.bwrap, id="bwrap")]
# The host uid each driver runs commands as when bakeoff is root: a local user with that uid is the second user.
SANDBOX_UIDS = {"bwrap": BWRAP_UID, "docker": DOCKER_UID}

# A submission's own `resource` module: were the cap to import it, setrlimit would do nothing.
SHADOW_RESOURCE = """
RLIMIT_CPU = 0
RUSAGE_CHILDREN = -1
def setrlimit(*args):
    pass
def getrusage(*args):
    class Usage:
        ru_utime = ru_stime = 0.0
    return Usage()
"""
# Spins past a 1-second budget, but ends by itself: a cap that does not bite fails the test instead of hanging it.
SPINNING_FOR_SIX_CPU_SECONDS = """
import time
while time.process_time() < 6:
    pass
"""
# A submission's own `json` module, enough for its simulate.py (json.dump) and nothing more.
SHADOW_JSON = """
def dump(value, handle):
    handle.write("{" + ", ".join(f'"{key}": {number!r}' for key, number in value.items()) + "}")
def dumps(*args, **kwargs):
    raise RuntimeError("this json.py only writes files")
"""


@pytest.fixture(scope="module")
def sim_corpus(tmp_path_factory) -> Path:
    return make_tiny_sim_data(tmp_path_factory.mktemp("harness-isolation") / "data")


@pytest.fixture(scope="module")
def bwrap_env():
    """Built before any test points pip at a dead index (the bwrap sandbox's environment comes from the index)."""
    return ensure_host_env()


@pytest.fixture()
def open_folder() -> Iterator[Path]:
    """A folder every local user can enter, as a batch folder under a shared path is (pytest's tmp_path is not)."""
    folder = Path(tempfile.mkdtemp(prefix="bakeoff-second-user-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def offline_index(monkeypatch) -> Iterator[None]:
    """A package index on this test's own 127.0.0.1 listener that hangs up on every connection: pip is offline."""
    with index_that_hangs_up(monkeypatch):
        yield


def score_cli(repo: Path, corpus: Path, kind: str, *extra: str) -> subprocess.CompletedProcess:
    argv = [BAKEOFF, "score", str(repo), "--task", "simulation", "--corpus", str(corpus), "--sandbox", kind, "--json"]
    return subprocess.run([*argv, *extra], capture_output=True, text=True, env=dict(os.environ))


def as_user(uid: int, *argv: str) -> subprocess.CompletedProcess:
    """`argv` run by a real second local user: uid and gid `uid`, no supplementary groups."""
    identity = ["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups"]
    return subprocess.run([*identity, *argv], capture_output=True, text=True)


def as_nobody(*argv: str) -> subprocess.CompletedProcess:
    return as_user(BWRAP_UID, *argv)


def test_the_cpu_cap_as_started_by_the_harness_ignores_a_resource_module_in_its_folder(tmp_path):
    (tmp_path / "simulate.py").write_text(SPINNING_FOR_SIX_CPU_SECONDS, encoding="utf-8")
    (tmp_path / "resource.py").write_text(SHADOW_RESOURCE, encoding="utf-8")
    argv = capped_argv("config.json", "out.json", 1)
    done = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == CPU_EXCEEDED_EXIT, done.stderr


def test_the_package_listing_ignores_a_json_module_and_a_planted_distribution_in_the_workspace(tmp_path):
    (tmp_path / "json.py").write_text(SHADOW_JSON, encoding="utf-8")
    planted = tmp_path / "numpy-99.0.dist-info"
    planted.mkdir()
    (planted / "METADATA").write_text("Metadata-Version: 2.1\nName: numpy\nVersion: 99.0\n", encoding="utf-8")
    spec = SandboxSpec(workspace=tmp_path)
    with open_sandbox("none", spec, i_understand_this_is_unsafe=True) as box:
        listed = environment_distributions(box)
    assert "numpy" not in listed or listed["numpy"] != "99.0"  # the bakeoff environment's own, if it has one


@pytest.mark.parametrize("kind", KINDS)
def test_a_resource_module_beside_simulate_py_does_not_lift_the_cpu_cap(kind, tmp_path, request):
    if kind == "bwrap":
        request.getfixturevalue("bwrap_env")
    (tmp_path / "simulate.py").write_text(SPINNING_FOR_SIX_CPU_SECONDS, encoding="utf-8")
    (tmp_path / "resource.py").write_text(SHADOW_RESOURCE, encoding="utf-8")
    with open_sandbox(kind, SandboxSpec(workspace=tmp_path, limits=Limits(timeout_s=120))) as box:
        result = box.exec(capped_argv("config.json", "out.json", 1), timeout_s=120)
    assert result.exit_code == CPU_EXCEEDED_EXIT and over_budget(result), (result.exit_code, result.stderr)


@pytest.mark.parametrize("kind", KINDS)
def test_a_json_module_beside_the_submission_is_its_own_business_not_a_harness_failure(
    kind, sim_corpus, tmp_path, request
):
    if kind == "bwrap":
        request.getfixturevalue("bwrap_env")
    repo = materialize_sim("sim_constant", tmp_path / "repo")
    (repo / "json.py").write_text(SHADOW_JSON, encoding="utf-8")
    (repo / "requirements.txt").write_text("numpy\n", encoding="utf-8")  # the harness lists the image's packages
    done = score_cli(repo, sim_corpus, kind)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["status"] == "scored" and report["isolation"] == kind
    (line,) = report["requirements"]["lines"]
    assert (line["text"], line["fate"]) == ("numpy", "provided_by_image")


@pytest.mark.parametrize("kind", KINDS)
def test_an_unknown_requirement_on_an_offline_grader_is_the_submissions_named_failure(
    kind, sim_corpus, tmp_path, request
):
    if kind == "bwrap":
        request.getfixturevalue("bwrap_env")
    request.getfixturevalue("offline_index")
    repo = materialize_sim("sim_constant", tmp_path / "repo")
    (repo / "requirements.txt").write_text("bakeoff-never-cached-package-31c9\n", encoding="utf-8")
    (tmp_path / "wheelhouse").mkdir()
    done = score_cli(repo, sim_corpus, kind, "--wheelhouse", str(tmp_path / "wheelhouse"))
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert (report["status"], report["stage"], report["rung"]) == ("dependency_unavailable", "install", 0)
    (line,) = report["requirements"]["lines"]
    assert line["fate"] == "unavailable" and "package index could not be reached" in line["reason"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_second_local_user_with_the_sandboxs_uid_cannot_touch_a_workspace_between_executions(kind, open_folder, request):
    if kind == "bwrap":
        request.getfixturevalue("bwrap_env")
    workspace = open_folder / "repo"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "predict.py").write_text("print('mine')\n", encoding="utf-8")
    with open_sandbox(kind, SandboxSpec(workspace=workspace)) as box:
        wrote = box.exec(["sh", "-c", "echo '# inside' >> predict.py && printf 'echo ran\\n' > run.sh && "
                                      "chmod 755 run.sh && mkdir -p out && echo 1 > out/model.txt"])
        assert wrote.ok, wrote.stderr
        second = SANDBOX_UIDS[kind]
        for path in ("predict.py", "run.sh", "out/model.txt"):
            rewrite = as_user(second, "sh", "-c", f"echo hacked >> {workspace / path}")
            assert rewrite.returncode != 0, path
            assert as_user(second, "cat", str(workspace / path)).returncode != 0, path
        assert as_user(second, "ls", str(workspace)).returncode != 0
        again = box.exec(["sh", "-c", "echo '# again' >> predict.py && echo 2 >> out/model.txt && ./run.sh"])
        assert again.ok and again.stdout == "ran\n", again.stderr  # the command still owns its workspace
    assert (workspace / "predict.py").read_text() == "print('mine')\n# inside\n# again\n"
    assert "hacked" not in (workspace / "out" / "model.txt").read_text()
    for path in [workspace, *workspace.rglob("*")]:
        if ".git" not in path.relative_to(workspace).parts and not path.is_symlink():
            info = path.lstat()
            assert (info.st_uid, info.st_gid, info.st_mode & 0o077) == (os.geteuid(), os.getegid(), 0), path
    assert subprocess.run(["git", "-C", str(workspace), "status", "--short"], capture_output=True).returncode == 0


def test_a_second_local_user_cannot_read_any_answer_key(open_folder):
    folders = {
        "spam": (make_tiny_corpus(open_folder / "spam"), ("holdout_answers.csv", "truth.csv"), "train.csv"),
        "ab": (make_tiny_ab_data(open_folder / "ab"), ("truth.json", "holdout_truth.csv"), "manifest.json"),
        "sim": (make_tiny_sim_data(open_folder / "sim"), ("truth.json", "holdout_truth.csv"), "manifest.json"),
    }
    for task, (folder, keys, visible) in folders.items():
        assert as_nobody("cat", str(folder / visible)).returncode == 0, task  # the user does reach the folder
        for key in keys:
            assert (folder / key).stat().st_mode & 0o777 == 0o600, (task, key)
            assert as_nobody("cat", str(folder / key)).returncode != 0, (task, key)
