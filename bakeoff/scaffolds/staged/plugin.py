"""The staged scaffold's plug-in. Its stages are the runner's own (bakeoff.runner.stages), the default of every run,
so they stay where every batch written before scaffolds finds them."""

from __future__ import annotations

from bakeoff.runner.stages import Staged

__all__ = ["Staged"]
