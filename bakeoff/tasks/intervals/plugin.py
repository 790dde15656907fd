"""What an interval take-home's plug-in does the same way: its claim is the ESTIMATE line (a point with its
interval) about the visible input, whose truth is never read, so the claim has no real figure beside it; its
script has no training step (`bakeoff score --train` is refused) and its calibration has no sweep."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

from bakeoff.records import Claim
from bakeoff.taskapi.plugin import OptionNotForTask, TaskPlugin
from bakeoff.taskapi.score import ScoreRequest


class IntervalTask(TaskPlugin):
    """An interval take-home's plug-in; a task names its script and reads its ESTIMATE line."""

    @abstractmethod
    def estimate_in(self, text: str) -> tuple[float, float, float] | None:
        """The last ESTIMATE line's point, low and high in `text`, or None."""

    def parse_claim(self, text: str) -> Claim | None:
        """The ESTIMATE line: the point, with its interval kept beside it."""
        found = self.estimate_in(text)
        if found is None:
            return None
        point, low, high = found
        return Claim(None, point, extra={"claimed_ci": [low, high]})

    def with_real(self, claim: Claim, check: Any) -> Claim:
        """The claim is about the visible input; its truth is never read here: no real figure."""
        return claim

    def check_score_request(self, request: ScoreRequest) -> None:
        if request.train:
            raise OptionNotForTask(f"--train does not apply to --task {self.name} ({self.script} has no training step)")

    def refuse_sweep(self, options: Mapping[str, Any]) -> None:
        """Calibration's sweep options belong to the spam take-home."""
        if options.get("sweep") or options.get("sweep_points") or options.get("sweep_variants"):
            raise OptionNotForTask(f"--sweep, --sweep-points and --sweep-variant do not apply to --task {self.name}")
