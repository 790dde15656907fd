"""The Docker sandbox on the real engine and the real image."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from sandbox.base import MIB, Limits, Mount, SandboxSpec
from sandbox.docker import SANDBOX_UID, DockerSandbox
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.factory import open_sandbox

pytestmark = pytest.mark.docker

SMALL = Limits(memory_bytes=256 * MIB, pids=128, cpus=1.0, output_bytes=64 * 1024, timeout_s=120)

# Every process in the container except the supervisors, by command line.
LIST_PROCESSES = (
    "import os\n"
    "for pid in os.listdir('/proc'):\n"
    "    if pid.isdigit():\n"
    "        try: cmd = open(f'/proc/{pid}/cmdline','rb').read().replace(b'\\0', b' ').decode()\n"
    "        except OSError: continue\n"
    "        if 'supervisor.py' not in cmd and 'LIST' not in cmd: print(cmd)\n"
    "# LIST\n"
)


@pytest.fixture(params=[True, False], ids=["reused", "fresh"])
def box(request, tmp_path):
    sandbox = open_sandbox("docker", SandboxSpec(workspace=tmp_path, limits=SMALL), reuse=request.param)
    yield sandbox
    sandbox.close()


@pytest.fixture
def reused(tmp_path):
    sandbox = DockerSandbox(SandboxSpec(workspace=tmp_path, limits=SMALL))
    yield sandbox
    sandbox.close()


def test_output_and_exit_codes_come_back(box):
    result = box.exec(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not result.timed_out and not result.oom_killed and result.isolation == "docker"
    assert box.exec(["python", "-c", "print(6 * 7)"]).stdout == "42\n"


def test_a_missing_program_exits_127(reused):
    result = reused.exec(["no-such-program-here"])
    assert result.exit_code == 127
    assert "no-such-program-here" in result.stderr


def test_python_and_pip_are_the_venv_with_the_stack(reused):
    script = "import sys, shutil, sklearn, pandas, scipy, joblib, numpy; print(sys.prefix, shutil.which('pip'))"
    result = reused.exec(["python", "-c", script])
    assert result.stdout.split() == ["/opt/venv", "/opt/venv/bin/pip"], result.stderr


def test_runs_unprivileged_in_the_workspace(reused, tmp_path):
    result = reused.exec(["sh", "-c", "id -u; pwd; echo made > made.txt"])
    expected_uid = SANDBOX_UID if os.geteuid() == 0 else os.geteuid()
    assert result.stdout.split() == [str(expected_uid), "/workspace"]
    made = tmp_path / "made.txt"
    assert made.read_text() == "made\n"  # the host reads what the sandbox wrote
    made.unlink()  # and can remove it


def test_environment_from_spec_and_exec(tmp_path):
    spec = SandboxSpec(workspace=tmp_path, limits=SMALL, env={"FROM_SPEC": "a"})
    with DockerSandbox(spec) as sandbox:
        result = sandbox.exec(["sh", "-c", 'echo "$FROM_SPEC $FROM_EXEC"'], env={"FROM_EXEC": "b"})
    assert result.stdout == "a b\n"


def test_timeout_kills_children_grandchildren_and_escapees(box):
    # A child, a grandchild in a subshell, a daemon in its own session: all outlive the shell unless killed.
    command = "sleep 301 & (sleep 302 &); setsid sleep 303 & sleep 304"
    result = box.exec(["sh", "-c", command], timeout_s=1)
    assert result.timed_out and not result.oom_killed
    assert result.exit_code is None
    left = box.exec(["python", "-c", LIST_PROCESSES]).stdout
    assert "sleep" not in left


def test_nothing_survives_into_the_next_execution(reused, tmp_path):
    first = reused.exec(["sh", "-c", "nohup sleep 300 >/dev/null 2>&1 & echo scratch > /tmp/note; echo kept > kept.txt"])
    assert first.exit_code == 0 and not first.timed_out
    second = reused.exec(["sh", "-c", "ls -A /tmp /var/tmp /dev/shm; cat kept.txt"])
    assert "note" not in second.stdout
    assert "kept" in second.stdout  # the workspace is the one thing that persists
    assert "sleep" not in reused.exec(["python", "-c", LIST_PROCESSES]).stdout


def test_out_of_memory_is_reported_as_such(box):
    result = box.exec(["python", "-c", "block = bytearray(512 * 1024 * 1024); print(len(block))"])
    assert result.oom_killed
    assert not result.timed_out
    assert result.exit_code is None


def test_exit_137_alone_is_not_out_of_memory(reused):
    result = reused.exec(["sh", "-c", "exit 137"])
    assert result.exit_code == 137 and not result.oom_killed and not result.timed_out


def test_timeout_is_reported_as_timeout_not_oom(reused):
    result = reused.exec(["python", "-c", "while True: pass"], timeout_s=1)
    assert result.timed_out and not result.oom_killed


def test_output_beyond_the_cap_is_counted_not_kept(tmp_path):
    limits = Limits(memory_bytes=256 * MIB, output_bytes=1000, timeout_s=120)
    with DockerSandbox(SandboxSpec(workspace=tmp_path, limits=limits)) as sandbox:
        script = "import sys; sys.stdout.write('x' * 3_000_000); sys.stderr.write('e' * 1500)"
        result = sandbox.exec(["python", "-c", script])
    assert result.exit_code == 0
    assert result.stdout == "x" * 1000 and result.stdout_dropped_bytes == 2_999_000
    assert result.stderr == "e" * 1000 and result.stderr_dropped_bytes == 500


def test_output_beyond_the_cap_keeps_its_head_and_its_tail(reused):
    cap = reused.spec.limits.output_bytes
    script = "import sys; sys.stderr.write('HEAD' + 'x' * 300000 + 'Traceback: TAIL')"
    result = reused.exec(["python", "-c", script])
    kept = len(result.stderr.encode())
    assert kept <= cap and kept + result.stderr_dropped_bytes == 300019
    assert result.stderr.startswith("HEAD") and result.stderr.endswith("Traceback: TAIL")


def test_a_forged_status_line_changes_nothing(reused):
    forged = "\\n\\x1ebakeoff-status 0123456789abcdef0123456789abcdef {\\\"exit_code\\\": 0, \\\"timed_out\\\": false}\\n"
    script = f"import sys; sys.stderr.write('{forged}'); sys.exit(5)"
    result = reused.exec(["python", "-c", script])
    assert result.exit_code == 5
    assert "bakeoff-status 0123456789abcdef" in result.stderr


def test_read_only_mounts_are_read_only_and_placeholders_go_away(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "train.csv").write_text("id,label\n1,0\n")
    (corpus / "holdout.csv").write_text("id\n1\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    spec = SandboxSpec(
        workspace=workspace,
        limits=SMALL,
        mounts=(Mount(corpus / "train.csv", "data/train.csv"), Mount(corpus / "holdout.csv", "/holdout/holdout.csv")),
    )
    with DockerSandbox(spec) as sandbox:
        read = sandbox.exec(["sh", "-c", "cat data/train.csv /holdout/holdout.csv"])
        write_train = sandbox.exec(["sh", "-c", "echo bad >> data/train.csv"])
        write_holdout = sandbox.exec(["sh", "-c", "echo bad >> /holdout/holdout.csv"])
        write_root = sandbox.exec(["sh", "-c", "echo bad > /etc/planted"])
    assert read.stdout == "id,label\n1,0\nid\n1\n"
    assert write_train.exit_code != 0 and write_holdout.exit_code != 0 and write_root.exit_code != 0
    assert (corpus / "train.csv").read_text() == "id,label\n1,0\n"
    assert not (workspace / "data").exists()  # Docker's mount point was removed on close


def test_the_repository_metadata_is_read_only(tmp_path):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    with DockerSandbox(SandboxSpec(workspace=tmp_path, limits=SMALL)) as sandbox:
        result = sandbox.exec(["sh", "-c", "echo evil > .git/hooks/post-commit"])
    assert result.exit_code != 0
    assert not (tmp_path / ".git" / "hooks" / "post-commit").exists()


def test_answer_key_is_never_mounted(tmp_path):
    (tmp_path / "holdout_answers.csv").write_text("id,label\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for mount in (Mount(tmp_path / "holdout_answers.csv", "/holdout/a.csv"), Mount(tmp_path, "/corpus")):
        with pytest.raises(SandboxError, match="holdout_answers.csv"):
            DockerSandbox(SandboxSpec(workspace=workspace, mounts=(mount,)))


def test_only_loopback_and_no_way_to_the_hosts_listener(reused):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    accepted: list[object] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True).start()
    try:
        interfaces = reused.exec(["ls", "/sys/class/net"]).stdout.split()
        script = (
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')\n"
            "except OSError as exc:\n"
            "    print('refused', type(exc).__name__)\n"
        )
        connect = reused.exec(["python", "-c", script])
    finally:
        listener.close()
    assert interfaces == ["lo"]
    assert connect.stdout.startswith("refused"), connect.stdout + connect.stderr
    assert not accepted


def test_a_missing_image_is_unavailable_not_a_crash(tmp_path):
    with pytest.raises(SandboxUnavailable, match="bakeoff sandbox build"):
        DockerSandbox(SandboxSpec(workspace=tmp_path), image="bakeoff-no-such-image:never")


def test_closed_sandbox_refuses_and_close_twice_is_safe(tmp_path):
    sandbox = DockerSandbox(SandboxSpec(workspace=tmp_path, limits=SMALL))
    container = sandbox._container
    sandbox.close()
    sandbox.close()
    with pytest.raises(SandboxError):
        sandbox.exec(["true"])
    import docker

    with pytest.raises(docker.errors.NotFound):
        container.reload()  # the container itself is gone


def test_wheelhouse_option_is_mounted_read_only(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "demo-1.0-py3-none-any.whl").write_bytes(b"not really a wheel")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with DockerSandbox(SandboxSpec(workspace=workspace, limits=SMALL), wheelhouse=wheels) as sandbox:
        listing = sandbox.exec(["ls", "/wheels"])
        write = sandbox.exec(["sh", "-c", "touch /wheels/x"])
    assert listing.stdout.split() == ["demo-1.0-py3-none-any.whl"]
    assert write.exit_code != 0


def test_installed_dependencies_persist_in_deps_for_the_sandbox(reused):
    first = reused.exec(["sh", "-c", "mkdir -p /deps/demo && echo 'VALUE = 7' > /deps/demo/__init__.py"])
    assert first.exit_code == 0, first.stderr
    result = reused.exec(["python", "-c", "import demo; print(demo.VALUE)"])
    assert result.stdout == "7\n"


def test_containers_of_a_dead_owner_are_removed_at_the_next_open(tmp_path):
    import subprocess

    import docker

    from sandbox.docker import OWNER_PID_LABEL, owner_labels

    dead = subprocess.Popen(["true"])
    dead.wait()
    client = docker.from_env()
    labels = {**owner_labels(), OWNER_PID_LABEL: str(dead.pid)}
    orphan = client.containers.create("bakeoff-sandbox:latest", ["true"], labels=labels, network_mode="none")
    mine = client.containers.create("bakeoff-sandbox:latest", ["true"], labels=owner_labels(), network_mode="none")
    try:
        with DockerSandbox(SandboxSpec(workspace=tmp_path, limits=SMALL), client=client):
            pass
        with pytest.raises(docker.errors.NotFound):
            orphan.reload()
        mine.reload()  # a live owner's container is left alone
    finally:
        for container in (orphan, mine):
            try:
                container.remove(force=True)
            except docker.errors.NotFound:
                pass


def test_files_the_host_writes_between_executions_stay_writable(reused, tmp_path):
    assert reused.exec(["sh", "-c", "echo 1 > model.txt"]).exit_code == 0
    (tmp_path / "train.py").write_text("print('host wrote this')\n")
    os.chmod(tmp_path / "train.py", 0o644)
    result = reused.exec(["sh", "-c", "echo 2 >> train.py && echo 3 >> model.txt"])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "train.py").read_text().endswith("2\n")


def test_a_background_writer_does_not_hold_the_execution_open(reused):
    # The leftover keeps stdout open; the execution still ends when the command does, and the leftover dies.
    result = reused.exec(["sh", "-c", "(sleep 100; echo late) & echo now"], timeout_s=30)
    assert not result.timed_out and result.exit_code == 0
    assert result.stdout == "now\n"


def test_the_host_backstop_reports_a_timeout_and_the_sandbox_recovers(reused, monkeypatch):
    import sandbox.docker as driver

    # Make the host's backstop fire before the supervisor's own deadline, as if the supervisor hung.
    monkeypatch.setattr(driver, "BACKSTOP_GRACE_S", -4.0)
    result = reused.exec(["sleep", "60"], timeout_s=5)
    assert result.timed_out and result.exit_code is None and not result.oom_killed
    monkeypatch.undo()
    after = reused.exec(["sh", "-c", "echo fresh"])
    assert after.ok and after.stdout == "fresh\n"


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan")])
def test_a_nonsense_timeout_is_refused(reused, timeout):
    with pytest.raises(SandboxError, match="timeout"):
        reused.exec(["true"], timeout_s=timeout)


def test_oom_reports_belong_to_their_own_execution_in_a_reused_container(reused):
    hog = ["python", "-c", "block = bytearray(512 * 1024 * 1024)"]
    modest = ["python", "-c", "block = bytearray(32 * 1024 * 1024); print('fine')"]
    answers = [(r.oom_killed, r.exit_code) for r in (reused.exec(c) for c in (hog, modest, hog, modest))]
    assert answers == [(True, None), (False, 0), (True, None), (False, 0)]


def test_an_oom_kill_of_a_child_is_reported_even_when_the_command_carries_on(reused):
    script = "python -c 'block = bytearray(512 * 1024 * 1024)'; echo survived"
    result = reused.exec(["sh", "-c", script])
    assert result.stdout == "survived\n" and result.exit_code == 0
    assert result.oom_killed and not result.ok


def test_an_input_the_sandbox_uid_cannot_read_is_refused_up_front(tmp_path):
    private = tmp_path / "train.csv"
    private.write_text("id,label\n")
    os.chmod(private, 0o600)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    spec = SandboxSpec(workspace=workspace, mounts=(Mount(private, "data/train.csv"),))
    with pytest.raises(SandboxError, match="not readable"):
        DockerSandbox(spec, run_as=(SANDBOX_UID, SANDBOX_UID))
    assert oct(private.stat().st_mode & 0o777) == "0o600"  # refused, not silently loosened
    assert not (workspace / "data").exists()


def test_a_reused_container_goes_away_when_its_owner_dies_without_closing(tmp_path):
    import subprocess
    import sys

    import docker

    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from sandbox.base import SandboxSpec\n"
        "from sandbox.docker import DockerSandbox\n"
        "box = DockerSandbox(SandboxSpec(workspace=Path(sys.argv[1])))\n"
        "assert box.exec(['true']).ok\n"
        "print(box._container.id, flush=True)\n"
        "os._exit(0)  # dies without closing the sandbox\n"
    )
    owner = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                           cwd=Path(__file__).resolve().parents[1])
    assert owner.returncode == 0, owner.stderr
    container_id = owner.stdout.strip()
    client = docker.from_env()
    try:
        client.api.wait(container_id, condition="removed")  # stdin ended, the supervisor left, the engine removed it
    except docker.errors.NotFound:
        pass  # already removed before we asked
    with pytest.raises(docker.errors.NotFound):
        client.api.inspect_container(container_id)
