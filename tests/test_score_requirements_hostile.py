"""Requirements that try to stall or crash the host side (issue 11, point 5).

The host resolves each line with `pip download`, so a requirements.txt is
host input: its size, its line count, each line's length and each download's
time and bytes are bounded, and every refusal is the submission's failure.
"""

from __future__ import annotations

import os
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from sandbox.base import SandboxSpec
from sandbox.factory import open_sandbox
from sandbox.requirements import install_requirements
from sandbox.requirements_lines import (
    INVALID_LINE,
    MAX_LINE_CHARS,
    MAX_REQUIREMENT_LINES,
    UNAVAILABLE,
    parse_requirements,
)
from sandbox.wheelhouse import STOPPED_TIMEOUT, STOPPED_TOO_LARGE, download_wheels


def wheel_names(wheelhouse: Path) -> list[str]:
    """The wheel files in the wheelhouse, sorted (none when it was never made)."""
    if not wheelhouse.is_dir():
        return []
    return sorted(p.name for p in wheelhouse.iterdir() if p.suffix == ".whl" and p.is_file())


def test_five_thousand_lines_are_refused_whole_before_anything_is_downloaded():
    text = "".join(f"package-{number}\n" for number in range(5000))
    lines = parse_requirements(text)
    assert len(lines) == 1
    assert (lines[0].line_number, lines[0].fate) == (0, INVALID_LINE)
    assert f"at most {MAX_REQUIREMENT_LINES}" in lines[0].reason


def test_the_cap_counts_requirements_not_comments():
    text = "# note\n\n" * 1000 + "".join(f"package-{number}\n" for number in range(MAX_REQUIREMENT_LINES))
    assert len(parse_requirements(text)) == MAX_REQUIREMENT_LINES


def test_a_line_over_128_kib_is_an_invalid_line_kept_short_in_the_record():
    line = "a" * (200 * 1024) + "!"  # the old pattern also backtracked for minutes on a line like this
    (parsed,) = parse_requirements(f"numpy\n{line}\n")[1:]
    assert parsed.fate == INVALID_LINE
    assert f"longer than {MAX_LINE_CHARS}" in parsed.reason
    assert len(parsed.text) < 300


def _fake_python(folder: Path, body: str) -> Path:
    """An executable that pip's caller starts as `PYTHON -m pip download ... --dest DIR ...`."""
    script = folder / "fake-python"
    script.write_text(f"#!{sys.executable}\nimport os, sys, time\n" + textwrap.dedent(body))
    script.chmod(0o755)
    return script


def _processes_with(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if token.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def test_a_download_that_never_ends_is_stopped_with_everything_it_started(tmp_path):
    token = f"bakeoff-stall-{uuid.uuid4().hex}"
    python = _fake_python(tmp_path, f"""
        import subprocess
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", "{token}"])
        time.sleep(3600)
        """)
    result = download_wheels([f"stall=={1}"], tmp_path / "wheelhouse", python=str(python), timeout_s=1.0)
    assert (result.ok, result.stopped) == (False, STOPPED_TIMEOUT)
    assert _processes_with(token) == []  # pip's own children were killed too
    assert wheel_names(tmp_path / "wheelhouse") == []


def test_a_download_that_grows_without_end_is_stopped_at_the_size_cap(tmp_path):
    python = _fake_python(tmp_path, """
        dest = sys.argv[sys.argv.index("--dest") + 1]
        with open(os.path.join(dest, "huge-1.0-py3-none-any.whl"), "wb") as out:
            while True:
                out.write(b"x" * 2**20)
                out.flush()
        """)
    result = download_wheels(["huge"], tmp_path / "wheelhouse", python=str(python), max_bytes=8 * 2**20)
    assert (result.ok, result.stopped) == (False, STOPPED_TOO_LARGE)
    assert wheel_names(tmp_path / "wheelhouse") == []  # the partial wheel never reached the wheelhouse


def test_a_real_pip_download_over_the_size_cap_is_refused(tmp_path):
    result = download_wheels(["six==1.16.0"], tmp_path / "wheelhouse", max_bytes=1000)
    assert (result.ok, result.stopped) == (False, STOPPED_TOO_LARGE)
    assert wheel_names(tmp_path / "wheelhouse") == []


@pytest.mark.docker
def test_the_host_side_download_counts_against_the_install_budget(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    requirements = workspace / "requirements.txt"
    requirements.write_text("tabulate==0.9.0\n")
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    with open_sandbox("docker", SandboxSpec(workspace=workspace), wheelhouse=wheelhouse) as sandbox:
        report = install_requirements(sandbox, requirements, wheelhouse, timeout_s=0.001)
    (line,) = report.lines
    assert (line.fate, report.ok) == (UNAVAILABLE, False)
    assert "install budget of 0.001 s ran out" in line.reason
    assert wheel_names(wheelhouse) == [] and report.install_exit_code is None


@pytest.mark.docker
def test_a_requirements_file_over_the_size_cap_is_refused_whole(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    requirements = workspace / "requirements.txt"
    requirements.write_text("# padding\n" * 100_000)
    with open_sandbox("docker", SandboxSpec(workspace=workspace)) as sandbox:
        report = install_requirements(sandbox, requirements, tmp_path / "wheelhouse")
    (line,) = report.lines
    assert (line.line_number, line.fate) == (0, INVALID_LINE)
    assert "larger than" in line.reason
