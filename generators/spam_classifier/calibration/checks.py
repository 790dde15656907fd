"""The calibration targets: what a default, full-size corpus must show.

They are reported as pass/fail beside the numbers; on a small corpus only the
ordering checks are expected to hold (the bands are set for the full size). Among
the ordering checks: careful beats every rule that learns nothing (all_spam, base_rate,
subject_keywords) by a paired interval above zero; at full size it must beat every
cheater, the envelope reader (sender_metadata) too, without which the task is not valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from generators.common.paired import RowKind
from generators.spam_classifier.calibration.runner import ReferenceResult
from generators.spam_classifier.references import RULES

TEXT_ONLY_TARGET = 0.767
CAREFUL_TARGET = 0.801
BAND = 0.02
CAREFUL_MIN_MARGIN = 0.02
CARELESS_MIN_LOCAL = 0.95


@dataclass(frozen=True)
class CalibrationChecks:
    careless_best_local: bool  # careless reports the best local F1 of the three
    careless_local_at_least_095: bool
    careless_worst_holdout: bool  # ... and delivers the worst holdout F1
    text_only_in_band: bool  # holdout F1 within TEXT_ONLY_TARGET +/- BAND
    careful_in_band: bool
    careful_beats_text_only: bool  # by at least CAREFUL_MIN_MARGIN on the holdout
    careful_beats_every_cheater: bool = False  # by a paired 95% interval above zero: the task is valid
    # ... every cheater that learns nothing (all but the envelope reader, which careful beats only once its text
    # model has enough rows to learn from: a full-size corpus)
    careful_beats_every_rule: bool = False

    @property
    def ordering_holds(self) -> bool:
        """The checks that must hold at any corpus size."""
        return (self.careless_best_local and self.careless_worst_holdout and self.careful_beats_text_only
                and self.careful_beats_every_rule)

    @property
    def all_hold(self) -> bool:
        return all(asdict(self).values())

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "ordering_holds": self.ordering_holds, "all_hold": self.all_hold}


def evaluate(results: Sequence[ReferenceResult]) -> CalibrationChecks:
    """Compare the three references' figures with the targets, and careful with every cheater among `results`."""
    cheaters = [result for result in results if result.kind is RowKind.CHEATER]
    results = [result for result in results if result.kind is RowKind.REFERENCE]
    by_name = {result.variant: result for result in results}
    careless, text_only, careful = by_name["careless"], by_name["text_only"], by_name["careful"]
    others = (text_only, careful)
    return CalibrationChecks(
        careless_best_local=all(careless.local_f1 > other.local_f1 for other in others),
        careless_local_at_least_095=careless.local_f1 >= CARELESS_MIN_LOCAL,
        careless_worst_holdout=all(careless.holdout_f1 < other.holdout_f1 for other in others),
        text_only_in_band=abs(text_only.holdout_f1 - TEXT_ONLY_TARGET) <= BAND,
        careful_in_band=abs(careful.holdout_f1 - CAREFUL_TARGET) <= BAND,
        careful_beats_text_only=careful.holdout_f1 - text_only.holdout_f1 >= CAREFUL_MIN_MARGIN,
        careful_beats_every_cheater=_beaten(cheaters),
        careful_beats_every_rule=_beaten([r for r in cheaters if r.variant in RULES]),
    )


def _beaten(cheaters: Sequence[ReferenceResult]) -> bool:
    return bool(cheaters) and all(r.margin is not None and r.margin.careful_better for r in cheaters)
