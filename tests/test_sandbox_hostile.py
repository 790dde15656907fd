"""Hostile submissions against the real isolating drivers (Docker and bubblewrap), run as root.

Each case must be contained (the host and later executions are unharmed) and
classified in its ExecResult (timed out, out of memory, output dropped...).
Every sandboxed process carries a unique token in its command line, so the
test can look for survivors in the host's own /proc.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import uuid
from pathlib import Path

import pytest

from sandbox.base import ExecResult, Limits, Mount, SandboxSpec
from sandbox.factory import open_sandbox

# (kind, driver options): Docker both with its reused container (the default) and a fresh one per exec.
DRIVERS = [
    pytest.param(("docker", {}), marks=pytest.mark.docker, id="docker"),
    pytest.param(("docker", {"reuse": False}), marks=pytest.mark.docker, id="docker-fresh"),
    pytest.param(("bwrap", {}), marks=pytest.mark.bwrap, id="bwrap"),
]
FORK_BOMB_CEILING = 5000  # the bomb stops by itself here, so a broken cap fails instead of hanging
PIDS_CAP = 64
MEMORY_CAP = 512 * 1024**2
OUTPUT_CAP = 1024**2
GIB = 1024**3
REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def token() -> str:
    return "bakeoff-hostile-" + uuid.uuid4().hex


@pytest.fixture()
def corpus(tmp_path: Path, token: str) -> Path:
    """A corpus folder as the harness has it: features mounted, the answer key beside them, never mounted."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "train.csv").write_text("id,label\n1,0\n")
    (folder / "holdout.csv").write_text("id\n7\n")
    (folder / f"answers-{token}.csv").write_text(f"id,label\n7,1\n# {token}\n")
    return folder


@pytest.fixture()
def open_box(tmp_path: Path, corpus: Path):
    opened = []

    def opener(driver: tuple[str, dict], **limit_overrides):
        kind, options = driver
        workspace = tmp_path / f"workspace-{len(opened)}"
        workspace.mkdir()
        limits = dict(memory_bytes=MEMORY_CAP, pids=PIDS_CAP, cpus=1.0, output_bytes=OUTPUT_CAP, timeout_s=300)
        limits.update(limit_overrides)
        spec = SandboxSpec(
            workspace=workspace,
            mounts=(
                Mount(corpus / "train.csv", "data/train.csv"),
                Mount(corpus / "holdout.csv", "/holdout/holdout.csv"),
            ),
            limits=Limits(**limits),
        )
        box = open_sandbox(kind, spec, **options)
        opened.append(box)
        return box

    yield opener
    for box in opened:
        box.close()


def run_python(box, code: str, token: str, **kwargs) -> ExecResult:
    """Run `code` with the token as an argument, so the process (and its forks) can be found on the host."""
    return box.exec(["python", "-c", code, token], **kwargs)


def host_processes_with(token: str) -> list[int]:
    """Pids on the host whose command line holds `token` (sandboxed processes are host processes too)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if token.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def assert_still_healthy(box, token: str) -> None:
    """The same sandbox runs the next command normally and sees no survivor of the last one."""
    code = (
        "import os, sys\n"
        "token = sys.argv[1].encode()\n"
        "mine, pid = set(), os.getpid()\n"
        "while pid > 0:  # this process and its ancestors (a driver's own init) carry the token too\n"
        "    mine.add(str(pid))\n"
        "    status = open(f'/proc/{pid}/status').read()\n"
        "    pid = int(status.split('PPid:')[1].split()[0])\n"
        "left = []\n"
        "for p in os.listdir('/proc'):\n"
        "    if p.isdigit() and p not in mine:\n"
        "        try:\n"
        "            if token in open(f'/proc/{p}/cmdline', 'rb').read(): left.append(p)\n"
        "        except OSError: pass\n"
        "print('left', len(left), 6 * 7)\n"
    )
    result = box.exec(["python", "-c", code, token], timeout_s=60)
    assert result.ok, result
    assert result.stdout == "left 0 42\n"
    assert host_processes_with(token) == []


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_answer_key_and_host_folders_cannot_be_read(driver, open_box, corpus, token):
    box = open_box(driver)
    key = corpus / f"answers-{token}.csv"
    code = (
        "import os, sys, json\n"
        "token = sys.argv[1]\n"
        "targets = json.loads(sys.argv[2])\n"
        "report = {}\n"
        "for t in targets:\n"
        "    try:\n"
        "        report[t] = open(t).read() if not t.endswith('/') else sorted(os.listdir(t))\n"
        "    except OSError as e:\n"
        "        report[t] = None\n"
        "names = []\n"
        "for top, dirs, files in os.walk('/'):\n"
        "    if top in ('/proc', '/sys', '/dev'):\n"
        "        dirs[:] = []\n"
        "        continue\n"
        "    names += [os.path.join(top, f) for f in files if token in f]\n"
        "print(json.dumps({'read': report, 'found_by_name': names}))\n"
    )
    targets = [str(key), str(corpus) + "/", "/root/", "/holdout/", str(REPO_ROOT) + "/", str(REPO_ROOT / "pyproject.toml")]
    result = box.exec(["python", "-c", code, token, json.dumps(targets)], timeout_s=180)
    assert result.ok, result
    seen = json.loads(result.stdout)
    assert seen["found_by_name"] == []
    assert seen["read"]["/holdout/"] == ["holdout.csv"]  # the features only, not the key beside them
    for target in targets:
        if target != "/holdout/":
            assert seen["read"][target] in (None, []), (target, seen["read"][target])
    assert "7,1" not in result.stdout  # the key's content never came out
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_no_network_reaches_a_listener_on_the_hosts_loopback(driver, open_box, token):
    box = open_box(driver)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    code = (
        "import socket, sys\n"
        "devices = sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:])\n"
        "print('devices', ','.join(devices))\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', int(sys.argv[2])), timeout=5).close()\n"
        "    print('CONNECTED')\n"
        "except OSError as e:\n"
        "    print('failed', type(e).__name__)\n"
    )
    try:
        result = box.exec(["python", "-c", code, token, str(port)], timeout_s=60)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody ever knocked
    finally:
        listener.close()
    assert result.ok, result
    lines = result.stdout.splitlines()
    assert lines[0] == "devices lo"
    assert lines[1].startswith("failed")
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_writing_outside_the_workspace_fails_and_nothing_reaches_the_host(driver, open_box, tmp_path, token):
    box = open_box(driver)
    host_target = tmp_path / f"escaped-{token}"
    repo_target = REPO_ROOT / f"escaped-{token}"
    targets = [
        str(host_target), str(repo_target), f"/escaped-{token}", f"/usr/escaped-{token}",
        f"/opt/venv/escaped-{token}", f"/etc/escaped-{token}", "/holdout/holdout.csv", f"/holdout/escaped-{token}",
    ]
    code = (
        "import sys\n"
        "for t in sys.argv[2:]:\n"
        "    try:\n"
        "        with open(t, 'a') as f: f.write('pwned')\n"
        "        print('WROTE', t)\n"
        "    except OSError as e:\n"
        "        print('refused', t)\n"
    )
    result = box.exec(["python", "-c", code, token, *targets], timeout_s=60)
    assert result.ok, result
    assert "WROTE" not in result.stdout, result.stdout
    assert not host_target.exists() and not repo_target.exists()
    assert "pwned" not in (tmp_path / "corpus" / "holdout.csv").read_text()
    assert_still_healthy(box, token)


DOCKER_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock")


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_docker_socket_cannot_be_reached(driver, open_box, token):
    """The host's Docker socket (root on the host for whoever reaches it) is not there to connect to inside."""
    assert any(Path(path).is_socket() for path in DOCKER_SOCKETS)  # there is one to hide on this host
    box = open_box(driver)
    code = (
        "import json, socket, sys\n"
        "seen = {}\n"
        "for path in sys.argv[1:]:\n"
        "    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "    try:\n"
        "        client.connect(path)\n"
        "        seen[path] = 'connected'\n"
        "    except OSError as e:\n"
        "        seen[path] = type(e).__name__\n"
        "print(json.dumps(seen))\n"
    )
    result = box.exec(["python", "-c", code, *DOCKER_SOCKETS], timeout_s=60)
    assert result.ok, result
    assert json.loads(result.stdout) == dict.fromkeys(DOCKER_SOCKETS, "FileNotFoundError"), result.stdout
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_kernel_settings_cannot_be_changed_from_inside(driver, open_box, token):
    box = open_box(driver)
    # Each setting is written back with the value it already has: harmless even if the write went through.
    code = (
        "import sys\n"
        "for path in ['/proc/sys/kernel/panic', '/proc/sys/vm/overcommit_memory', '/proc/sys/kernel/pid_max']:\n"
        "    try:\n"
        "        value = open(path).read()\n"
        "        with open(path, 'w') as f: f.write(value)\n"
        "        print('CHANGED', path)\n"
        "    except OSError:\n"
        "        print('refused', path)\n"
    )
    result = run_python(box, code, token, timeout_s=60)
    assert result.ok, result
    assert "CHANGED" not in result.stdout and result.stdout.count("refused") == 3
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_fork_bomb_is_stopped_by_the_process_cap(driver, open_box, token):
    box = open_box(driver)
    code = (
        "import os, sys, time\n"
        f"ceiling = {FORK_BOMB_CEILING}\n"
        "forked = 0\n"
        "while forked < ceiling:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError as e:\n"
        "        print('fork refused after', forked, flush=True)\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(120)\n"
        "        os._exit(0)\n"
        "    forked += 1\n"
        "print('forked', forked, flush=True)\n"
    )
    result = run_python(box, code, token, timeout_s=240)
    assert "fork refused after" in result.stdout, result
    forked = int(result.stdout.split("forked", 1)[1].split()[-1])
    assert forked < PIDS_CAP < FORK_BOMB_CEILING
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_allocating_10_gb_is_classified_out_of_memory(driver, open_box, token):
    box = open_box(driver)
    code = "chunks = []\nfor _ in range(100):\n    chunks.append(b'x' * (100 * 2**20))\nprint('ALLOCATED 10 GB')\n"
    result = run_python(box, code, token, timeout_s=240)
    assert result.oom_killed, result
    assert not result.timed_out
    assert "ALLOCATED" not in result.stdout
    assert not result.ok
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_infinite_loop_times_out_and_nothing_survives(driver, open_box, token):
    box = open_box(driver)
    code = (
        "import os, sys\n"
        "if os.fork() == 0:\n"
        "    while True: pass\n"  # a child spinning too: the timeout must take it as well
        "while True: pass\n"
    )
    result = run_python(box, code, token, timeout_s=3)
    assert result.timed_out and result.exit_code is None and not result.oom_killed
    assert host_processes_with(token) == []
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_printing_1_gb_keeps_at_most_the_cap_and_counts_the_rest(driver, open_box, token):
    box = open_box(driver)
    code = (
        "import sys\n"
        "block = b'x' * 2**20\n"
        "for _ in range(1024):\n"
        "    sys.stdout.buffer.write(block)\n"
        "sys.stdout.buffer.write(b'END')\n"
    )
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = run_python(box, code, token, timeout_s=300)
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert result.ok, (result.exit_code, result.stderr, result.timed_out)
    kept = len(result.stdout.encode())
    assert kept <= OUTPUT_CAP
    assert kept + result.stdout_dropped_bytes == GIB + 3
    assert result.stdout.endswith("END")  # the tail is kept: a traceback comes last
    assert peak_after - peak_before < 256 * 1024**2  # the harness streamed it, it did not hold 1 GB
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_background_process_left_behind_is_gone_after_the_execution(driver, open_box, token):
    box = open_box(driver)
    code = (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', sys.argv[1]],\n"
        "                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print('left one behind')\n"
    )
    result = run_python(box, code, token, timeout_s=60)
    assert result.ok and result.stdout == "left one behind\n", result
    assert_still_healthy(box, token)


@pytest.fixture()
def capped_box(tmp_path: Path, corpus: Path):
    """A sandbox whose workspace lies on a real, size-limited scratch filesystem (as `bakeoff score` makes one),
    its corpus files copied there; the filesystem is removed again at the end."""
    from sandbox.scratch import ScratchFs

    made = []

    def opener(driver: tuple[str, dict], size: int = DISK_CAP):
        kind, options = driver
        fs = ScratchFs.create(tmp_path, size, kinds=("loop", "tmpfs"))
        made.append([fs])
        inputs = fs.path / "inputs"
        inputs.mkdir()
        for name in ("train.csv", "holdout.csv"):
            (inputs / name).write_bytes((corpus / name).read_bytes())
            (inputs / name).chmod(0o444)
        workspace = fs.path / "workspace"
        workspace.mkdir()
        spec = SandboxSpec(
            workspace=workspace,
            mounts=(Mount(inputs / "train.csv", "data/train.csv"), Mount(inputs / "holdout.csv", "/holdout/holdout.csv")),
            limits=Limits(memory_bytes=MEMORY_CAP, pids=PIDS_CAP, cpus=1.0, output_bytes=OUTPUT_CAP, timeout_s=300),
            disk_cap=fs.disk_cap(),
        )
        box = open_sandbox(kind, spec, **options)
        made[-1].append(box)
        return box, fs

    yield opener
    for entry in reversed(made):
        for resource_ in reversed(entry):
            resource_.close()
        assert not entry[0].root.exists()


DISK_CAP = 48 * 1024**2

FILL_THE_DISK = (
    "import errno, os, sys\n"
    "written = 0\n"
    "try:\n"
    "    with open(sys.argv[2], 'wb') as out:\n"
    "        while written < 2 * 1024**3:\n"
    "            out.write(b'x' * 2**20)\n"
    "            out.flush()\n"
    "            written += 2**20\n"
    "except OSError as e:\n"
    "    print('refused', errno.errorcode[e.errno], written // 2**20, flush=True)\n"
    "    raise\n"
)


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("target", ["filler.bin", "/deps/filler.bin"])
def test_filling_the_disk_stops_at_the_cap_and_reports_the_peak(driver, capped_box, token, target):
    box, fs = capped_box(driver)
    host_free_before = os.statvfs("/").f_bavail * os.statvfs("/").f_frsize
    result = box.exec(["python", "-c", FILL_THE_DISK, token, target], timeout_s=240)
    host_free_after = os.statvfs("/").f_bavail * os.statvfs("/").f_frsize
    assert not result.ok and not result.timed_out and not result.oom_killed
    assert "refused ENOSPC" in result.stdout, result
    assert "No space left on device" in result.stderr
    assert result.disk_cap_bytes is not None and result.disk_cap_bytes <= DISK_CAP
    assert DISK_CAP // 2 <= result.disk_peak_bytes <= DISK_CAP  # it got near the cap and not past it
    assert host_free_before - host_free_after < DISK_CAP + 64 * 1024**2  # the host's own disk barely moved
    from bakeoff.submission.crashes import classify

    assert classify(result).crash_class == "disk_full"
    assert_still_healthy(box, token)


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_mount_table_inside_names_no_host_path_of_the_corpus_or_the_scratch_folder(driver, capped_box, tmp_path):
    box, fs = capped_box(driver)
    result = box.exec(["python", "-c", "print(open('/proc/self/mountinfo').read())"], timeout_s=60)
    assert result.ok, result
    table = result.stdout
    assert " /workspace " in table and " /holdout/holdout.csv " in table  # the mounts are there...
    for host_path in (str(tmp_path), str(fs.root), str(fs.path)):
        assert host_path not in table  # ...but only at neutral paths of their own filesystem
    workspace_line = next(line for line in table.splitlines() if line.split()[4] == "/workspace")
    assert workspace_line.split()[3] == "/workspace"  # its root inside the scratch filesystem


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("target", ["filler.bin", "/deps/filler.bin"])
def test_a_plain_workspace_folder_is_watched_and_the_writer_stopped_past_the_cap(driver, open_box, token, target):
    # A run's repository must outlive its sandbox, so it cannot sit on a scratch filesystem: here the
    # harness walks what the command can write and kills it once that is over Limits.disk_bytes.
    box = open_box(driver, disk_bytes=DISK_CAP)
    result = box.exec(["python", "-c", FILL_THE_DISK, token, target], timeout_s=240)
    assert result.disk_exceeded and result.exit_code is None, result
    assert "refused" not in result.stdout  # killed while writing, before its own 2 GiB ceiling
    assert result.disk_cap_bytes == DISK_CAP and result.disk_peak_bytes > DISK_CAP
    from bakeoff.submission.crashes import classify

    assert classify(result).crash_class == "disk_full"
    assert_still_healthy(box, token)  # the command was stopped, not the sandbox (its files are still there)
    grows = box.exec(["python", "-c", "open('more.bin', 'wb').write(b'x' * 16 * 2**20)"], timeout_s=60)
    assert grows.disk_exceeded  # over the cap already: growing it further is stopped at once
    cleans = box.exec(["python", "-c", f"import os; os.remove({target!r})"], timeout_s=60)
    assert cleans.ok and not cleans.disk_exceeded  # removing files is always allowed
    small = box.exec(["python", "-c", "open('small.txt', 'w').write('ok')"], timeout_s=60)
    assert small.ok and not small.disk_exceeded and small.disk_peak_bytes < DISK_CAP
