"""Harness seeding of every execution: PYTHONHASHSEED, and random and numpy seeded at interpreter start.

A `sitecustomize.py` is placed in the workspace's scratch folder and put first
on PYTHONPATH; Python imports it at start-up, before the submission's code, and
it seeds `random` and (when importable) `numpy` from BAKEOFF_SEED. Code that
draws unseeded random numbers therefore gives the same numbers on every re-run.
"""

from __future__ import annotations

from pathlib import Path

from bakeoff.runner.workspace import SCRATCH_DIR, real_folder
from sandbox.paths import DEPS

SEED_ENV = "BAKEOFF_SEED"

SITECUSTOMIZE = '''\
# Written by bakeoff: seeds random and numpy from BAKEOFF_SEED at interpreter start.
import os as _os

_seed = _os.environ.get("BAKEOFF_SEED")
if _seed is not None:
    import random as _random

    _random.seed(int(_seed))
    try:
        import numpy as _numpy
    except Exception:  # numpy absent or broken: only random is seeded
        pass
    else:
        _numpy.random.seed(int(_seed))
'''


def install_seed_hook(workspace: Path) -> Path:
    """Write the hook into the workspace's scratch folder and return its folder (to put on PYTHONPATH).

    Sandboxed code may have left links there: they are replaced, never written through.
    """
    folder = real_folder(workspace, f"{SCRATCH_DIR}/seed")
    hook = folder / "sitecustomize.py"
    hook.unlink(missing_ok=True)
    hook.write_text(SITECUSTOMIZE, encoding="utf-8")
    return folder


def seeded_env(seed: int, hook_dir_in_sandbox: str, pythonpath_tail: str = DEPS) -> dict[str, str]:
    """The environment every execution of a run gets."""
    return {
        "PYTHONHASHSEED": str(seed),
        SEED_ENV: str(seed),
        "PYTHONPATH": f"{hook_dir_in_sandbox}:{pythonpath_tail}" if pythonpath_tail else hook_dir_in_sandbox,
    }
