"""The bubblewrap driver, run for real: what the sandbox sees, what it may write, how results read."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from sandbox.base import ExecResult, Limits, Mount, SandboxSpec
from sandbox.bwrap import BwrapSandbox
from sandbox.cgroups import CgroupTree, find_tree
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.factory import open_sandbox
from sandbox.hostenv import ensure_host_env

pytestmark = pytest.mark.bwrap

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def host_env():
    return ensure_host_env()


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "train.csv").write_text("id,label\n1,0\n")
    (folder / "holdout.csv").write_text("id\n7\n")
    (folder / "holdout_answers.csv").write_text("id,label\n7,1\n")
    return folder


@pytest.fixture()
def sandbox(tmp_path: Path, corpus: Path, host_env):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    spec = SandboxSpec(
        workspace=workspace,
        mounts=(
            Mount(corpus / "train.csv", "data/train.csv"),
            Mount(corpus / "holdout.csv", "/holdout/holdout.csv"),
        ),
        limits=Limits(memory_bytes=1024**3, pids=128, output_bytes=64 * 1024, timeout_s=120),
    )
    box = open_sandbox("bwrap", spec, host_env=host_env)
    yield box
    box.close()


def run_python(box, code: str, **kwargs) -> ExecResult:
    return box.exec(["python", "-c", code], **kwargs)


def test_the_factory_opens_a_bwrap_sandbox_and_results_say_bwrap(sandbox):
    assert isinstance(sandbox, BwrapSandbox)
    result = run_python(sandbox, "print('hello')")
    assert result.ok and result.stdout == "hello\n" and result.isolation == "bwrap"


def test_only_the_needed_paths_exist_inside(sandbox):
    probe = (
        "import os, json\n"
        "print(json.dumps({'root': sorted(os.listdir('/')), 'cwd': os.getcwd(),"
        " 'exists': {p: os.path.exists(p) for p in ['/root', '/work', '/home', '/var', '/sys', %r]}}))"
        % str(REPO_ROOT)
    )
    seen = json.loads(run_python(sandbox, probe).stdout)
    assert set(seen["root"]) <= {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "opt",
                                 "workspace", "deps", "tmp", "proc", "dev", "holdout"}
    assert seen["cwd"] == "/workspace"
    assert not any(seen["exists"].values()), seen["exists"]


def test_etc_holds_only_loader_files_and_a_sandbox_passwd(sandbox):
    listing = run_python(sandbox, "import os; print(sorted(os.listdir('/etc')))").stdout
    assert "shadow" not in listing and "hostname" not in listing
    assert "nobody:x:65534" in run_python(sandbox, "print(open('/etc/passwd').read())").stdout


def test_corpus_files_are_readable_and_read_only_and_their_siblings_absent(sandbox, corpus):
    code = (
        "import os\n"
        "print(open('data/train.csv').read().splitlines()[1])\n"
        "print(open('/holdout/holdout.csv').read().splitlines()[1])\n"
        "print(sorted(os.listdir('/holdout')))\n"
        "for p in ['data/train.csv', '/holdout/holdout.csv']:\n"
        "    try:\n"
        "        open(p, 'a').write('x')\n"
        "        print('WROTE', p)\n"
        "    except OSError as e:\n"
        "        print('refused')\n"
    )
    result = run_python(sandbox, code)
    assert result.ok, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["1,0", "7", "['holdout.csv']"]
    assert lines[3:] == ["refused", "refused"]
    assert (corpus / "train.csv").read_text() == "id,label\n1,0\n"


def test_the_workspace_is_writable_and_shared_with_the_host(sandbox):
    code = "import os; open('model.txt', 'w').write('trained'); print(os.stat('model.txt').st_uid)"
    result = run_python(sandbox, code)
    assert result.ok, result.stderr
    assert result.stdout == "65534\n"  # written by a real unprivileged uid on the host, not root in disguise
    written = sandbox.spec.workspace / "model.txt"
    assert written.read_text() == "trained"
    info = written.stat()  # and once the command is gone, the harness's alone (issue 32, row 18)
    assert (info.st_uid, info.st_mode & 0o077) == (os.geteuid(), 0)


def test_files_the_host_adds_between_executions_are_writable_inside(sandbox):
    (sandbox.spec.workspace / "notes").mkdir()
    (sandbox.spec.workspace / "notes" / "plan.md").write_text("v1")
    result = run_python(sandbox, "open('notes/plan.md', 'a').write(' v2'); open('notes/new.md', 'w').write('n')")
    assert result.ok, result.stderr
    assert (sandbox.spec.workspace / "notes" / "plan.md").read_text() == "v1 v2"


def test_the_answer_key_is_refused_as_a_mount(tmp_path, corpus, host_env):
    spec = SandboxSpec(workspace=tmp_path, mounts=(Mount(corpus / "holdout_answers.csv", "/holdout/answers.csv"),))
    with pytest.raises(SandboxError, match="holdout_answers.csv"):
        BwrapSandbox(spec, host_env=host_env)


def test_python_is_the_venv_with_the_data_science_stack(sandbox):
    code = "import sys, numpy, pandas, sklearn, scipy, joblib; print(sys.executable); print(sys.prefix)"
    result = run_python(sandbox, code)
    assert result.ok, result.stderr
    assert result.stdout.splitlines() == ["/opt/venv/bin/python", "/opt/venv"]


def test_deps_is_writable_on_the_path_and_lasts_for_the_sandbox(sandbox):
    wrote = run_python(sandbox, "open('/deps/leftpad_bakeoff.py', 'w').write('VALUE = 42')")
    assert wrote.ok, wrote.stderr
    used = run_python(sandbox, "import leftpad_bakeoff; print(leftpad_bakeoff.VALUE)")
    assert used.stdout == "42\n"


def test_the_command_runs_unprivileged_without_capabilities(sandbox):
    code = "import os; print(os.getuid()); print([l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0])"
    assert run_python(sandbox, code).stdout.splitlines() == ["65534", "0000000000000000"]


def test_the_host_environment_does_not_leak_in(sandbox, monkeypatch):
    monkeypatch.setenv("BAKEOFF_HOST_SECRET", "s3cret")
    result = run_python(sandbox, "import os; print(sorted(os.environ))", env={"EXTRA": "1"})
    assert "BAKEOFF_HOST_SECRET" not in result.stdout and "'EXTRA'" in result.stdout


def test_exit_status_and_stderr_come_back(sandbox):
    result = run_python(sandbox, "import sys; print('bad', file=sys.stderr); sys.exit(3)")
    assert (result.exit_code, result.stderr, result.timed_out, result.oom_killed) == (3, "bad\n", False, False)
    assert not result.ok


def test_output_keeps_head_and_tail_within_the_cap_and_counts_the_rest(sandbox):
    cap = sandbox.spec.limits.output_bytes
    code = "import sys; sys.stdout.write('HEAD' + 'x' * 300000 + 'TAIL')"
    result = run_python(sandbox, code)
    kept = len(result.stdout.encode())
    assert kept <= cap
    assert kept + result.stdout_dropped_bytes == 300008
    assert result.stdout.startswith("HEAD") and result.stdout.endswith("TAIL")


def test_timeout_kills_and_says_so(sandbox):
    result = run_python(sandbox, "import time; time.sleep(600)", timeout_s=1)
    assert result.timed_out and result.exit_code is None and not result.oom_killed


def test_memory_cap_is_reported_as_out_of_memory(tmp_path, host_env):
    spec = SandboxSpec(workspace=tmp_path, limits=Limits(memory_bytes=256 * 1024**2))
    with BwrapSandbox(spec, host_env=host_env) as box:
        result = run_python(box, "chunks = [b'x' * (64 * 2**20) for _ in range(64)]")
    assert result.oom_killed and not result.timed_out and result.exit_code is None


def test_each_execution_group_is_removed_afterwards(sandbox):
    tree = find_tree()
    parent = tree.parents["pids"] if tree.version == 1 else tree.parent
    mine = f"bakeoff-{os.getpid()}-"
    run_python(sandbox, "pass")
    assert not [p for p in parent.iterdir() if p.name.startswith(mine)]


def test_a_closed_sandbox_refuses_and_cleans_its_private_folder(sandbox):
    private = sandbox.private_dir
    sandbox.close()
    sandbox.close()
    assert not private.exists()
    with pytest.raises(SandboxError):
        run_python(sandbox, "pass")


def test_missing_bwrap_is_unavailable_not_a_crash(tmp_path, host_env):
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        BwrapSandbox(SandboxSpec(workspace=tmp_path), host_env=host_env, bwrap_path="/nonexistent/bwrap")


def test_a_missing_mount_source_is_a_sandbox_error(tmp_path, host_env):
    spec = SandboxSpec(workspace=tmp_path, mounts=(Mount(tmp_path / "absent.csv", "data/train.csv"),))
    with pytest.raises(SandboxError, match="absent.csv"):
        BwrapSandbox(spec, host_env=host_env)


def test_mount_points_bwrap_creates_in_the_workspace_are_removed_after(sandbox):
    result = run_python(sandbox, "import os; print(os.path.getsize('data/train.csv'))")
    assert result.stdout == "13\n"
    assert not (sandbox.spec.workspace / "data").exists()


def test_a_file_where_a_mount_point_goes_is_replaced_by_a_folder_and_the_command_runs(sandbox):
    # What sandboxed code left in the workspace must not wedge the sandbox (issue 11, point 3).
    (sandbox.spec.workspace / "data").write_text("in the way of data/train.csv")
    result = run_python(sandbox, "print(open('data/train.csv').read())")
    assert result.ok, result.stderr
    assert result.stdout.startswith("id,")


def test_a_folder_the_command_filled_around_a_mount_point_is_kept(sandbox):
    result = run_python(sandbox, "open('data/features.csv', 'w').write('f')")
    assert result.ok, result.stderr
    kept = sandbox.spec.workspace / "data"
    assert sorted(p.name for p in kept.iterdir()) == ["features.csv"]


def test_pip_runs_inside_both_as_a_module_and_as_a_script(sandbox):
    for argv in (["python", "-m", "pip", "--version"], ["pip", "--version"]):
        result = sandbox.exec(argv)
        assert result.ok, result.stderr
        assert "/opt/venv/lib/python" in result.stdout


class UnjoinableTree(CgroupTree):
    """A cgroup tree whose groups cannot be joined: the driver must say so, not run uncapped."""

    version = 1

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def parent_dirs(self):
        return ()

    def create(self, limits, name=None):
        from sandbox.cgroups import V1Group

        missing = self.folder / "not-a-cgroup"
        return V1Group((missing / "memory", missing / "pids", missing / "cpu"))


def test_failing_to_join_the_cgroup_is_a_sandbox_error_not_an_uncapped_run(tmp_path, host_env):
    box = BwrapSandbox(SandboxSpec(workspace=tmp_path), host_env=host_env, cgroups=UnjoinableTree(tmp_path))
    with pytest.raises(SandboxError, match="cgroup"):
        run_python(box, "open('ran', 'w').write('uncapped')")
    assert not (tmp_path / "ran").exists()
    box.close()


def test_an_input_the_sandbox_uid_cannot_read_is_refused_up_front(tmp_path, host_env, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where a private folder would appear
    private = tmp_path / "train.csv"
    private.write_text("id,label\n")
    private.chmod(0o600)
    spec = SandboxSpec(workspace=tmp_path, mounts=(Mount(private, "data/train.csv"),))
    with pytest.raises(SandboxError, match="not readable"):
        BwrapSandbox(spec, host_env=host_env)
    assert private.stat().st_mode & 0o777 == 0o600  # never widened behind the caller's back
    assert list(scratch.iterdir()) == []  # a refused sandbox leaves nothing behind


def test_bwrap_failing_before_the_command_runs_is_a_sandbox_error(tmp_path, corpus, host_env):
    source = tmp_path / "features.csv"
    source.write_text("id\n1\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    spec = SandboxSpec(workspace=workspace, mounts=(Mount(source, "/holdout/holdout.csv"),))
    box = BwrapSandbox(spec, host_env=host_env)
    source.unlink()  # the harness lost its own input: not the command's crash
    with pytest.raises(SandboxError, match="bwrap could not set up"):
        run_python(box, "print('ran')")
    box.close()


def test_a_command_that_does_not_exist_is_the_commands_failure_not_the_sandboxs(sandbox):
    result = sandbox.exec(["no-such-program-bakeoff"])
    assert result.exit_code not in (0, None) and not result.timed_out and not result.oom_killed


def test_a_git_workspace_keeps_its_metadata_read_only_and_the_host_can_commit_after(tmp_path, host_env):
    import subprocess

    workspace = tmp_path / "repo"
    workspace.mkdir()
    git = ["git", "-C", str(workspace), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    code = (
        "open('train.py', 'w').write('print(1)')\n"
        "try:\n"
        "    open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\necho pwned')\n"
        "    print('PLANTED')\n"
        "except OSError:\n"
        "    print('refused')\n"
    )
    with BwrapSandbox(SandboxSpec(workspace=workspace), host_env=host_env) as box:
        result = run_python(box, code)
    assert result.stdout == "refused\n", result
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    subprocess.run([*git, "add", "train.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "from the sandbox"], check=True)
    log = subprocess.run([*git, "log", "--oneline"], capture_output=True, text=True, check=True).stdout
    assert "from the sandbox" in log


def test_the_cpu_cap_holds_a_busy_loop_to_its_share(tmp_path, host_env):
    # A small share, so that even on a busy machine an uncapped loop would get clearly more.
    spec = SandboxSpec(workspace=tmp_path, limits=Limits(cpus=0.05))
    code = (
        "import time\n"
        "wall0, cpu0 = time.monotonic(), time.process_time()\n"
        "while time.monotonic() - wall0 < 2.0:\n"
        "    pass\n"
        "print(time.process_time() - cpu0, time.monotonic() - wall0)\n"
    )
    with BwrapSandbox(spec, host_env=host_env) as box:
        result = run_python(box, code)
    assert result.ok, result.stderr
    cpu, wall = map(float, result.stdout.split())
    # Other load can only lower the share; an uncapped loop on a free core would use about all of `wall`.
    assert cpu <= 0.05 * wall * 2
