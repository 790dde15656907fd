"""What the readers of step records share with the scaffold that writes them (Scaffold.step_stage): the id of each
tool call of a step, the same in the conversation the loop rebuilds and in an export of its run."""

from __future__ import annotations


def call_id(step: int, index: int) -> str:
    """Ours, for every call: 9 letters and digits (what Mistral's templates insist on), unique in the run."""
    return f"s{step:03d}c{index:04d}"
