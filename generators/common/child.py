"""The environment a reference's process runs in, on the host (calibration, probes of our own references)."""

from __future__ import annotations

import os


def child_env() -> dict[str, str]:
    """This process's environment without PYTHONPATH (the child must not import this repository), hash-seeded."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONHASHSEED"] = "0"
    return env
