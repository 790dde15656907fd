"""Where things are inside a sandbox: the one place these paths are spelled.

Every isolating driver (docker, bwrap) shows the same layout, and what runs
inside (a submission, the grader's commands, pip) relies on it; the
unisolated driver shows the same names through symlinks and argument
rewriting. `sandbox/supervisor.py` spells WORKSPACE once more on its own: it
runs inside the container as a standalone file and imports nothing of ours.
"""

from __future__ import annotations

WORKSPACE = "/workspace"  # the submission's folder, writable; every command's current folder
DEPS = "/deps"  # where the submission's declared requirements are installed (on PYTHONPATH)
WHEELS = "/wheels"  # the host's wheelhouse, read-only: pip installs from it alone
HOLDOUT_DIR = "/holdout"  # the hidden holdout's inputs, read-only (never its answers)
HOLDOUT = f"{HOLDOUT_DIR}/holdout.csv"  # the spam take-home's holdout features
VENV = "/opt/venv"  # the sandbox's Python environment with the data-science stack
VENV_PYTHON = f"{VENV}/bin/python"
PYTHON_BASE = "/opt/python-base"  # the bwrap sandbox: the base interpreter the environment was made from
SUPERVISOR = "/opt/bakeoff/supervisor.py"  # the Docker driver's in-container supervisor
# How the harness starts its own Python in a sandbox (the CPU cap, the package listing, pip): isolated mode, so
# neither the working folder (the submission's) nor PYTHONPATH (/deps, which sandboxed code can write) nor any
# PYTHON* variable or user site reaches its sys.path; the submission's own commands still get /deps.
HARNESS_PYTHON = ("python", "-I")


def in_workspace(relative: str) -> str:
    """A workspace-relative path as the isolating drivers show it (`data/x` -> `/workspace/data/x`)."""
    return f"{WORKSPACE}/{relative.lstrip('/')}"
