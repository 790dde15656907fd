"""`baseline:cues`: a reviewer that reads without understanding.

It answers from surface features only: a list of keyword rules of our own
(the cues a reviewer who never runs code might look for) and, where no rule
fires, a bag-of-words classifier over the claim and code. The classifier is
trained leave-pair-out: on every item of the bank except the one being
answered and its twin, so it never sees the answer it is asked for. The bank
is built so that this reader stays near chance; the review report shows its
row beside every model's, as the floor a model must clear to show it reads
the code and not its vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.review.items import OK, PROBLEM, ReviewItem, load_items

SPEC = "baseline:cues"
_CLAIM = re.compile(r"^Claim:\s*(?P<claim>.*)$", re.MULTILINE)
_CODE = re.compile(r"```python\n(?P<code>.*?)\n```", re.DOTALL)
_NUMBERED = re.compile(r"^\s*\d+ \|(?: (?P<rest>.*))?$")
_TOKEN = r"[A-Za-z_][A-Za-z0-9_]*"


@dataclass(frozen=True)
class Rule:
    name: str
    fires: Callable[[str, Sequence[str]], int | None]  # (claim, code lines) -> the 1-based line it blames, or None


def _first(lines: Sequence[str], pattern: str) -> int | None:
    compiled = re.compile(pattern)
    return next((n for n, line in enumerate(lines, start=1) if compiled.search(line)), None)


def _fit_before_split(claim: str, lines: Sequence[str]) -> int | None:
    split = _first(lines, r"train_test_split\(|\.split\(")
    fit = _first(lines, r"\.fit(_transform)?\((X|df)\b")
    return fit if fit is not None and (split is None or fit < split) else None


def _keyword(pattern: str, where: str = "code") -> Callable[[str, Sequence[str]], int | None]:
    def fires(claim: str, lines: Sequence[str]) -> int | None:
        if where == "claim":
            return (_first(lines, r"reported\s*=") or 1) if re.search(pattern, claim, re.IGNORECASE) else None
        return _first(lines, pattern)

    return fires


def _test_in_loop(claim: str, lines: Sequence[str]) -> int | None:
    for n, line in enumerate(lines, start=1):
        in_loop = " for " in line or (n > 1 and lines[n - 2].lstrip().startswith("for "))
        if in_loop and re.search(r"\b(y_test|X_test|test\[)", line):
            return n
    return None


def _shuffle_near_dates(claim: str, lines: Sequence[str]) -> int | None:
    dated = any(re.search(r"date|day|week|created|time", line) for line in lines)
    return _first(lines, r"shuffle=True|train_test_split\(") if dated else None


RULES: tuple[Rule, ...] = (
    Rule("fit on the whole frame before the split", _fit_before_split),
    Rule("scored on the training rows", _keyword(r"reported\s*=.*train")),
    Rule("a test score inside a loop", _test_in_loop),
    Rule("shuffled split of dated rows", _shuffle_near_dates),
    Rule("centred or forward window", _keyword(r"center=True|shift\(-")),
    Rule("column named after an outcome", _keyword(r"refund|cancel|retention|collection|redeemed|user_reported|"
                                                   r"resolution|contract_sent|overtime|peak")),
    Rule("resampling with replacement", _keyword(r"replace=True")),
    Rule("best cross-validation score reported", _keyword(r"best_score_")),
    Rule("accuracy on a rare class", _keyword(r"fraud|rare|imbalanced", where="claim")),
    Rule("area under the curve of hard labels", _keyword(r"roc_auc_score\([^)]*pred\)")),
)


def surface_text(claim: str, code: str) -> str:
    return claim + "\n" + code


def read_prompt(messages: Sequence[Message]) -> tuple[str, str]:
    """(claim, code) from the review prompt's user message, line numbers removed."""
    user = next((m.content for m in reversed(messages) if m.role == "user"), "")
    claim = _CLAIM.search(user)
    code = _CODE.search(user)
    lines = []
    for line in (code.group("code") if code else "").splitlines():
        numbered = _NUMBERED.match(line)
        lines.append((numbered.group("rest") or "") if numbered else line)
    return (claim.group("claim").strip() if claim else ""), "\n".join(lines)


class CuesBackend:
    """A real backend (answers go through the same audit and parser as any model's)."""

    def __init__(self, bank: Sequence[ReviewItem] | None = None) -> None:
        self._bank = tuple(bank) if bank is not None else load_items()
        self._models: dict[frozenset[str], object] = {}

    @property
    def identity(self) -> str:
        return SPEC

    def _left_out(self, code: str) -> frozenset[str]:
        """Ids of the bank items to leave out for this code: the item itself and its twin."""
        same = [item for item in self._bank if item.code.strip() == code.strip()]
        pairs = {item.pair_id for item in same if item.pair_id}
        return frozenset(item.id for item in self._bank if item in same or (item.pair_id and item.pair_id in pairs))

    def _classifier(self, left_out: frozenset[str]):
        if left_out not in self._models:
            from sklearn.feature_extraction.text import CountVectorizer
            from sklearn.linear_model import LogisticRegression
            from sklearn.pipeline import make_pipeline

            train = [item for item in self._bank if item.id not in left_out]
            model = make_pipeline(CountVectorizer(token_pattern=_TOKEN, binary=True),
                                  LogisticRegression(C=1.0, max_iter=2000))
            labels = [int(item.is_problem) for item in train]
            model.fit([surface_text(item.claim, item.code) for item in train], labels) if len(set(labels)) == 2 else None
            self._models[left_out] = model if len(set(labels)) == 2 else None
        return self._models[left_out]

    def judge(self, claim: str, code: str) -> tuple[str, int | None, float, str]:
        """(verdict, blamed line, confidence 0-100, reason) from surface features alone."""
        lines = code.splitlines()
        for rule in RULES:
            line = rule.fires(claim, lines)
            if line is not None:
                return PROBLEM, line, 80.0, f"surface cue: {rule.name}"
        model = self._classifier(self._left_out(code))
        if model is None:
            return OK, None, 50.0, "no cue fired and no classifier could be trained"
        p_problem = float(model.predict_proba([surface_text(claim, code)])[0][1])
        verdict = PROBLEM if p_problem >= 0.5 else OK
        confidence = 100.0 * max(p_problem, 1.0 - p_problem)
        return verdict, None, round(confidence, 1), f"bag of words: p(problem) = {p_problem:.2f}"

    def chat(self, messages: Sequence[Message], *, key: str, settings: GenerationSettings) -> Completion:
        claim, code = read_prompt(messages)
        verdict, line, confidence, reason = self.judge(claim, code)
        text = f"VERDICT: {verdict}\nLINE: {line if line is not None else 'none'}\nCONFIDENCE: {confidence:g}\nREASON: {reason}"
        words = sum(len(m.content.split()) for m in messages)
        return Completion(text=text, finish_reason="stop", prompt_tokens=words, completion_tokens=len(text.split()),
                          prompt_seconds=0.0, generation_seconds=0.0, backend=self.identity,
                          model_info={"baseline": "cues", "bank_items": len(self._bank)})

    def close(self) -> None:
        pass


def open_cues(bank_file: Path | None) -> CuesBackend:
    """`baseline:cues` trains on the shipped bank; `baseline:cues:FILE` on the items in FILE."""
    return CuesBackend(load_items(bank_file) if bank_file is not None else None)


def baseline_summary(items: Sequence[ReviewItem]) -> dict:
    """The cues reader's metrics on `items` (trained leave-pair-out on the shipped bank), for a review's summary.

    One sample per item: the reader is deterministic. It is asked directly, not through the review
    runner, so it never touches a review's journal.
    """
    from bakeoff.review.grading import grade
    from bakeoff.review.metrics import compute_metrics
    from bakeoff.review.prompt import load_template
    from bakeoff.review.runner import conversation_name

    backend, template = CuesBackend(), load_template()
    answers = []
    for item in items:
        key = f"{conversation_name(item)}#1"
        answers.append(grade(item, 0, key, backend.chat(template.messages(item), key=key, settings=GenerationSettings())))
    return {"model": SPEC, "label": "reading without understanding", "metrics": compute_metrics(items, answers).to_dict()}
