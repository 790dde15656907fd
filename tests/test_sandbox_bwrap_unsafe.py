"""The explicit no-isolation driver ("none"): refuses without the flag, says isolation=none when used."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.base import Limits, Mount, SandboxSpec
from sandbox.errors import SandboxError
from sandbox.factory import open_sandbox
from sandbox.unsafe import UnsafeRefused, UnsafeSandbox


@pytest.fixture()
def spec(tmp_path: Path) -> SandboxSpec:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "train.csv").write_text("id,label\n1,0\n")
    (corpus / "holdout.csv").write_text("id\n7\n")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return SandboxSpec(
        workspace=workspace,
        mounts=(Mount(corpus / "train.csv", "data/train.csv"), Mount(corpus / "holdout.csv", "/holdout/holdout.csv")),
        limits=Limits(output_bytes=1000, timeout_s=60),
    )


@pytest.fixture()
def box(spec):
    sandbox = open_sandbox("none", spec, i_understand_this_is_unsafe=True)
    yield sandbox
    sandbox.close()


@pytest.mark.parametrize("flag", [None, False, "yes", 1])
def test_it_refuses_without_the_explicit_flag(spec, flag):
    options = {} if flag is None else {"i_understand_this_is_unsafe": flag}
    with pytest.raises(UnsafeRefused, match="no isolation"):
        open_sandbox("none", spec, **options)
    assert issubclass(UnsafeRefused, SandboxError)


def test_results_say_there_was_no_isolation(box):
    assert isinstance(box, UnsafeSandbox)
    result = box.exec(["python", "-c", "print('hi')"])
    assert result.ok and result.stdout == "hi\n" and result.isolation == "none"


def test_it_runs_in_the_workspace_with_the_corpus_files_where_the_contract_puts_them(box, spec):
    code = "import os, sys; print(os.getcwd()); print(open('data/train.csv').read().splitlines()[1]); print(open(sys.argv[1]).read().splitlines()[1])"
    result = box.exec(["python", "-c", code, "/holdout/holdout.csv"])
    assert result.ok, result.stderr
    assert result.stdout.splitlines() == [str(spec.workspace), "1,0", "7"]


def test_deps_is_on_the_path_and_the_argument_naming_it_is_rewritten(box):
    wrote = box.exec(["python", "-c", "import sys; open(sys.argv[1] + '/unsafe_probe.py', 'w').write('X = 5')", "/deps"])
    assert wrote.ok, wrote.stderr
    assert box.exec(["python", "-c", "import unsafe_probe; print(unsafe_probe.X)"]).stdout == "5\n"


def test_timeout_kills_the_whole_process_group(box, tmp_path):
    marker = tmp_path / "child.pid"
    code = (
        "import os, sys, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    time.sleep(600)\n"
        "open(sys.argv[1], 'w').write(str(pid))\n"
        "time.sleep(600)\n"
    )
    result = box.exec(["python", "-c", code, str(marker)], timeout_s=2)
    assert result.timed_out and result.exit_code is None
    assert not is_running(int(marker.read_text()))


def is_running(pid: int) -> bool:
    """Alive and not a zombie (a killed orphan may wait a moment for its new parent to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def test_output_is_capped_and_counted(box):
    result = box.exec(["python", "-c", "print('y' * 5000, end='')"])
    assert len(result.stdout) <= 1000 and len(result.stdout) + result.stdout_dropped_bytes == 5000


def test_a_program_that_does_not_exist_is_the_commands_failure_not_the_sandboxs(box):
    missing = box.exec(["no-such-program-here", "x"])
    assert (missing.exit_code, missing.timed_out, missing.ok) == (127, False, False)
    assert "no-such-program-here" in missing.stderr
    (box.spec.workspace / "not_executable.sh").write_text("echo hi\n")
    refused = box.exec(["./not_executable.sh"])
    assert refused.exit_code == 126 and not refused.ok


def test_close_removes_the_private_folder_and_later_use_is_an_error(box):
    private = box.private_dir
    box.close()
    assert not private.exists()
    with pytest.raises(SandboxError):
        box.exec(["true"])


def test_a_missing_mount_source_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    import tempfile

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    spec = SandboxSpec(workspace=tmp_path, mounts=(Mount(tmp_path / "absent.csv", "data/train.csv"),))
    with pytest.raises(SandboxError, match="absent.csv"):
        open_sandbox("none", spec, i_understand_this_is_unsafe=True)
    assert list(scratch.iterdir()) == []


def test_the_answer_key_is_refused_as_a_mount_here_too(tmp_path):
    key = tmp_path / "holdout_answers.csv"
    key.write_text("id,label\n")
    spec = SandboxSpec(workspace=tmp_path, mounts=(Mount(key, "/holdout/answers.csv"),))
    with pytest.raises(SandboxError, match="holdout_answers.csv"):
        open_sandbox("none", spec, i_understand_this_is_unsafe=True)
