"""Installing a submission's declared requirements: resolved on the host, installed offline inside.

Sandboxes reach no package index. Each requirement line is therefore
resolved on the host (`pip download` of the line and its dependencies into
the cached wheelhouse, see sandbox.wheelhouse), then the wheels the sandbox's
environment lacks are installed inside with `pip install --no-index --no-deps
--target /deps`. Every line's fate is recorded (sandbox.requirements_lines).

A line that cannot be had is an outcome for the caller to report (the
submission's `dependency_unavailable`), not an error, on an offline grader
too: a name that is neither in the wheelhouse nor reachable is the
submission's unmet requirement, so no requirements.txt can make a
submission ungraded.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from sandbox.base import ExecResult, Sandbox
from sandbox.errors import SandboxError
from sandbox.paths import DEPS as DEPS_IN_SANDBOX
from sandbox.paths import HARNESS_PYTHON
from sandbox.paths import WHEELS as WHEELS_IN_SANDBOX
from sandbox.requirements_lines import (
    IGNORED,
    INSTALLED,
    INVALID_LINE,
    MAX_FILE_BYTES,
    PENDING,
    PROVIDED_BY_IMAGE,
    UNAVAILABLE,
    RequirementLine,
    normalize_name,
    parse_requirements,
    pinned_version,
    refuse_file,
)
from sandbox.wheelhouse import STOPPED_TIMEOUT, STOPPED_TOO_LARGE, download_wheels

INSTALL_TIMEOUT_S = 600.0
MAX_DOWNLOAD_BYTES = 4 * 1024**3  # per requirement line, on the host
MIN_INSTALL_S = 1.0  # below this, what is left of the budget is not worth starting a command for
OUTPUT_TAIL_CHARS = 4000

NOT_IN_WHEELHOUSE_OFFLINE = "not in the wheelhouse, and the package index could not be reached"
# pip's words when the index itself could not be reached (as opposed to a name it does not know).
_NETWORK_FAILURE_MARKERS = (
    "Retrying (Retry(",  # pip's warning for every failed attempt: the index did not answer
    "connection broken by",
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "Max retries exceeded",
    "ConnectTimeoutError",
    "Could not fetch URL",
)

# Lists the distributions of the sandbox's own environment. Run isolated (HARNESS_PYTHON), its sys.path holds
# neither /deps (what an earlier install put there is not provided by the image) nor the workspace (a planted
# `json.py` or `numpy-9.dist-info` there is the submission's, not the image's).
_LIST_ENVIRONMENT = (
    "import importlib.metadata as m, json\n"
    "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions() if d.metadata['Name']}))\n"
)


@dataclass(frozen=True)
class RequirementsReport:
    """What became of a submission's requirements.txt, line by line."""

    lines: tuple[RequirementLine, ...]
    present: bool  # False when the submission declares no requirements.txt
    install_exit_code: int | None = None  # of the offline pip install; None when none ran
    install_output: str = ""  # the end of its output
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every line was met (installed, provided, or harmlessly ignored)."""
        return not self.unmet

    @property
    def unmet(self) -> tuple[RequirementLine, ...]:
        return tuple(line for line in self.lines if line.fate in (UNAVAILABLE, INVALID_LINE))

    def summary(self) -> str:
        """One line naming the unmet requirements and why, for an outcome's detail."""
        return "; ".join(f"{line.text}: {line.reason}" for line in self.unmet)

    def to_dict(self) -> dict:
        return {
            "present": self.present,
            "ok": self.ok,
            "lines": [line.to_dict() for line in self.lines],
            "install_exit_code": self.install_exit_code,
            "install_output": self.install_output,
            "duration_s": self.duration_s,
        }


def install_requirements(
    sandbox: Sandbox,
    requirements_file: Path,
    wheelhouse: Path,
    *,
    wheels_in_sandbox: str = WHEELS_IN_SANDBOX,
    deps_in_sandbox: str = DEPS_IN_SANDBOX,
    timeout_s: float = INSTALL_TIMEOUT_S,
    max_download_bytes: int = MAX_DOWNLOAD_BYTES,
) -> RequirementsReport:
    """Resolve `requirements_file` (a host path) into `wheelhouse` and install what is missing in `sandbox`.

    `wheelhouse` must be the host folder the sandbox shows at `wheels_in_sandbox`.
    `timeout_s` is the whole install budget: the host-side downloads and the
    offline install inside share it, and what is not done when it runs out is
    `unavailable` (the submission's failure, as a slow `pip install` would be).
    """
    started = time.monotonic()
    budget = _Budget(started + timeout_s, timeout_s)
    if requirements_file.is_symlink():
        # Sandboxed code may have left it: following it would read a host file into the record.
        refused = RequirementLine(0, requirements_file.name, "", INVALID_LINE, "a symbolic link; it is not followed")
        return RequirementsReport(lines=(refused,), present=True, duration_s=time.monotonic() - started)
    if not requirements_file.is_file():
        return RequirementsReport(lines=(), present=False)
    lines = list(_read_lines(requirements_file))
    if any(line.fate == PENDING for line in lines):
        provided = environment_distributions(sandbox)
        lines = [_judge_against_image(line, provided) for line in lines]
        lines = [_resolve_on_host(line, wheelhouse, budget, max_download_bytes) for line in lines]
        lines, install = _install_offline(sandbox, lines, provided, wheels_in_sandbox, deps_in_sandbox, budget)
    else:
        install = None
    return RequirementsReport(
        lines=tuple(lines),
        present=True,
        install_exit_code=install.exit_code if install else None,
        install_output=_tail(install.stdout + install.stderr) if install else "",
        duration_s=time.monotonic() - started,
    )


@dataclass(frozen=True)
class _Budget:
    """The install's deadline, shared by the host-side downloads and the offline install."""

    deadline: float
    total_s: float

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def spent_reason(self) -> str:
        return f"not installed: the install budget of {self.total_s:g} s ran out"


def _read_lines(requirements_file: Path) -> tuple[RequirementLine, ...]:
    """The file's lines, read within MAX_FILE_BYTES (a larger file is refused whole)."""
    with open(requirements_file, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        return (refuse_file(f"larger than {MAX_FILE_BYTES // 1024} KiB"),)
    return parse_requirements(data.decode("utf-8-sig", errors="replace"))


def environment_distributions(sandbox: Sandbox) -> dict[str, str]:
    """{normalized name: version} of what the sandbox's Python environment already has."""
    result = sandbox.exec([*HARNESS_PYTHON, "-c", _LIST_ENVIRONMENT], timeout_s=120)
    if not result.ok:
        raise SandboxError(f"could not list the sandbox's Python packages: {_tail(result.stderr)}")
    try:
        listed = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise SandboxError(f"unreadable package list from the sandbox: {result.stdout[:200]!r}") from exc
    return {normalize_name(name): version for name, version in listed.items()}


def _judge_against_image(line: RequirementLine, provided: dict[str, str]) -> RequirementLine:
    if line.fate != PENDING or line.name not in provided:
        return line
    # The image's version is used even when the line pins another: installing a second
    # numpy or pandas next to the image's would be slow and break its compiled stack.
    version = provided[line.name]
    pinned = pinned_version(line)
    reason = f"the image has {line.name} {version}"
    if pinned and pinned != version:
        reason += f" (the line pins {pinned}; the image's version is used)"
    return line.with_fate(PROVIDED_BY_IMAGE, reason)


def _resolve_on_host(line: RequirementLine, wheelhouse: Path, budget: _Budget, max_bytes: int) -> RequirementLine:
    if line.fate != PENDING:
        return line
    if budget.left() < MIN_INSTALL_S:
        return line.with_fate(UNAVAILABLE, budget.spent_reason())
    download = download_wheels([line.text], wheelhouse, timeout_s=budget.left(), max_bytes=max_bytes)
    if download.stopped == STOPPED_TIMEOUT:
        return line.with_fate(UNAVAILABLE, f"the host-side download ran past the install budget of {budget.total_s:g} s")
    if download.stopped == STOPPED_TOO_LARGE:
        return line.with_fate(UNAVAILABLE, f"the download grew past {max_bytes // 1024**2} MiB and was stopped")
    if download.ok and not download.files:
        return line.with_fate(IGNORED, "its environment marker excludes it for the sandbox's Python")
    if download.ok:
        # The wheels are kept on the line until the install decides their fate.
        return line.with_fate(PENDING, line.reason, download.files)
    if any(marker in download.log_tail for marker in _NETWORK_FAILURE_MARKERS):
        # An offline grader: the line is not in the wheelhouse and nothing else can be asked. The submission chose
        # the name, so this is its unmet requirement, never a reason to leave it ungraded; the reason tells the
        # grader's operator how to offer the package.
        return line.with_fate(UNAVAILABLE, f"{NOT_IN_WHEELHOUSE_OFFLINE} (fill the wheelhouse {wheelhouse} "
                                           "beforehand to offer it)")
    return line.with_fate(UNAVAILABLE, _pip_reason(download.log_tail))


def _install_offline(
    sandbox: Sandbox,
    lines: list[RequirementLine],
    provided: dict[str, str],
    wheels_in_sandbox: str,
    deps_in_sandbox: str,
    budget: _Budget,
) -> tuple[list[RequirementLine], ExecResult | None]:
    pending = [line for line in lines if line.fate == PENDING]
    for_line = {line.line_number: _missing_wheels(line.wheels, provided) for line in pending}
    wheels = sorted({name for names in for_line.values() for name in names})
    if not wheels:
        # Resolved, but nothing to add: e.g. a marker excluded the line for Python 3.11.
        return [_settle(line, INSTALLED, "nothing to add to the image", ()) for line in lines], None
    if budget.left() < MIN_INSTALL_S:
        return [_settle(line, UNAVAILABLE, budget.spent_reason(), ()) for line in lines], None
    argv = [*HARNESS_PYTHON, "-m", "pip", "install", "--no-index", "--no-deps", "--upgrade"]
    argv += ["--target", deps_in_sandbox]
    argv += ["--disable-pip-version-check", "--no-warn-script-location"]
    argv += [f"{wheels_in_sandbox}/{name}" for name in wheels]
    result = sandbox.exec(argv, timeout_s=budget.left())
    if result.ok:
        settled = [_settle(line, INSTALLED, line.reason, for_line.get(line.line_number, ())) for line in lines]
    else:
        why = budget.spent_reason() if result.timed_out else (
            "the offline install failed: " + _last_error_line(result.stdout + result.stderr))
        settled = [_settle(line, UNAVAILABLE, why, for_line.get(line.line_number, ())) for line in lines]
    return settled, result


def _settle(line: RequirementLine, fate: str, reason: str, wheels: tuple[str, ...]) -> RequirementLine:
    return line.with_fate(fate, reason, wheels) if line.fate == PENDING else line


def _missing_wheels(files: tuple[str, ...], provided: dict[str, str]) -> tuple[str, ...]:
    # A wheel file name starts with its project name (underscored): numpy-2.1.3-cp311-...
    return tuple(name for name in files if normalize_name(name.split("-", 1)[0]) not in provided)


def _pip_reason(log: str) -> str:
    line = _last_error_line(log)
    return f"pip could not get it: {line}" if line else "pip could not get it"


def _last_error_line(log: str) -> str:
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    chosen = errors[-1] if errors else (lines[-1] if lines else "")
    return chosen[:300]


def _tail(text: str, limit: int = OUTPUT_TAIL_CHARS) -> str:
    return text[-limit:]
