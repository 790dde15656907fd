"""Rules over a design document: the metric it chose, whether it names the class
imbalance, and its stance on the leaky column `moderator_flagged`.

Rules, not a person's reading and not a model's: the same text always gives the
same signals, and each rule is small enough to be tested on sentences with a
known answer. The text is cut into clauses (lines, then sentences); a markdown
heading such as "Dropped columns" lends its meaning to the list under it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LEAK_COLUMN = "moderator_flagged"

# Stances on the leaky column, from most to least informed.
EXCLUDED_WITH_REASON = "excluded_with_reason"
EXCLUDED_WITHOUT_REASON = "excluded_without_reason"
ASSERTED_AVAILABLE = "asserted_available"
KEPT = "kept"
MENTIONED_ONLY = "mentioned_only"  # named (e.g. in an exploration summary) but neither kept nor dropped
NOT_MENTIONED = "not_mentioned"
STANCES = (
    EXCLUDED_WITH_REASON,
    EXCLUDED_WITHOUT_REASON,
    ASSERTED_AVAILABLE,
    KEPT,
    MENTIONED_ONLY,
    NOT_MENTIONED,
)

# Metrics a design may choose. "Right" for this task: graded on the spam class's F1,
# with spam the minority, so accuracy and ROC-AUC hide exactly the failure that matters.
METRIC_PATTERNS = (
    ("pr_auc", r"\bpr[- ]?auc\b|\bauprc\b|average[ _]precision|area under (?:the )?precision"),
    ("roc_auc", r"\broc[- ]?auc\b|\bauc[- ]?roc\b|\bauroc\b|area under (?:the )?roc|\broc curve"),
    ("f1", r"\bf[-_ ]?1\b|\bf[-_ ]?beta\b|\bf[-_ ]?score\b|\bf[-_ ]?measure\b|\bf1_score\b"),
    ("precision_recall", r"\bprecision\b.{0,40}\brecall\b|\brecall\b.{0,40}\bprecision\b"),
    ("accuracy", r"\baccuracy\b"),
)
RIGHT_METRICS = frozenset({"f1", "pr_auc", "precision_recall"})
NO_METRIC = "none"

_METRIC_CUE = re.compile(
    r"\bmetric|\boptimi[sz]|\bprimary\b|\bmain\b|\bjudge|\bmeasure|\bevaluat|\breport\b|\bselect|\bchoose|\bchose",
    re.IGNORECASE,
)
# "accuracy is misleading", "rather than accuracy": a mention that rejects the metric.
_REJECTED = (
    r"(?:not|n't|rather than|instead of|over|avoid|never|than)\s+(?:\w+\s+){0,2}METRIC"
    r"|METRIC\s+(?:\w+\s+){0,3}(?:is|are|would be|can be)\s+(?:\w+\s+){0,2}"
    r"(?:misleading|meaningless|useless|inappropriate|not (?:a )?(?:good|suitable|appropriate|useful|informative))"
)

_IMBALANCE = re.compile(
    r"imbalanc|unbalanc|class[-_ ]?weight|minority|majority class|skew|rare class|"
    r"\b\d{1,2}(?:\.\d+)?\s*%\s*(?:of (?:the )?(?:messages|rows|data) (?:are|is) )?spam|"
    r"spam is (?:the |a )?(?:minority|rare)|few(?:er)? spam",
    re.IGNORECASE,
)

_COLUMN = re.compile(r"moderator[_ ]?flag(?:ged)?|flagged by (?:a )?moderators?|moderator flags?", re.IGNORECASE)

_EXCLUDE = re.compile(
    r"\bdrop|\bexclud|\bremov|\bdiscard|\bignor|\bomit|\bleave (?:it )?out|\bleft out|\bnot (?:be )?used?\b|"
    r"\bdo(?:es)? not use|\bdon't use|\bwon't use|\bwill not use|\bnever use|\bmust not\b|\bcannot be used|"
    r"\bcan't be used|\bshould not\b|\bnot included?|\bunused\b|\bnot as a feature|\bnot a feature",
    re.IGNORECASE,
)
_REASON = re.compile(
    r"leak|after (?:the )?(?:message )?(?:arriv|arrival|the fact|delivery|review)|post[- ]?hoc|"
    r"not (?:yet )?(?:be )?(?:available|known|present|set)|unavailable|isn't available|won't (?:be )?(?:available|exist)|"
    r"does not exist|doesn't exist|not exist|future|target|label proxy|proxy for the label|derived from the label|"
    r"on arrival|at arrival|before (?:any(?:one| person)?|a moderator|moderation)|human review|set by (?:a )?moderators?|moderators? sets?\b|"
    r"too good|always 0|always zero|cheat",
    re.IGNORECASE,
)
_NEGATED_AVAILABLE = re.compile(
    r"\bunavailable|(?:\bnot|n't|\bnever|\bno longer)\s+(?:\w+\s+){0,2}(?:available|known|present|exist)",
    re.IGNORECASE,
)
_ASSERT_AVAILABLE = re.compile(
    r"(?:available|known|present|exists?|set|provided|there)\s+(?:\w+\s+){0,3}"
    r"(?:at|on|during|when|before|for)\s+(?:\w+\s+){0,3}(?:prediction|inference|arrival|arrives?|scoring|serving|test|deploy)"
    r"|(?:available|present) (?:in|for) (?:the )?(?:holdout|test|new|future|incoming)",
    re.IGNORECASE,
)
_KEEP = re.compile(
    r"\bkeep|\bkept\b|\bretain|\binclud|\buse[sd]?\b|\busing\b|\bfeature|\bpredictor|\bsignal|\binput|\bstrong",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.+?)\s*#*\s*$|^\s*\*\*(?P<bold>[^*]+)\*\*:?\s*$")
_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\||```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z`*(\"'])")


@dataclass(frozen=True)
class DesignSignals:
    """What a design document says, by rule."""

    metric: str  # one of the METRIC_PATTERNS names, or "none"
    metric_right: bool
    imbalance_named: bool
    stance: str  # one of STANCES
    stance_evidence: str | None  # the clause that decided the stance
    present: bool  # False when there was no design text at all

    def to_dict(self) -> dict:
        return {
            "metric": self.metric,
            "metric_right": self.metric_right,
            "imbalance_named": self.imbalance_named,
            "stance": self.stance,
            "stance_evidence": self.stance_evidence,
            "present": self.present,
        }


@dataclass(frozen=True)
class Clause:
    """One sentence of the document and the heading it sits under."""

    text: str
    heading: str


def clauses(text: str) -> list[Clause]:
    """Split into sentences, each carrying its nearest markdown heading.

    Soft-wrapped lines are joined first (a sentence often runs over a line break); a list item,
    a table row, a blank line or a heading starts a new paragraph.
    """
    result: list[Clause] = []
    for paragraph, heading in _paragraphs(text):
        for sentence in _SENTENCE_END.split(paragraph):
            if sentence.strip():
                result.append(Clause(sentence.strip(), heading))
    return result


def _paragraphs(text: str) -> list[tuple[str, str]]:
    paragraphs: list[tuple[str, str]] = []
    heading, lines = "", list[str]()

    def flush() -> None:
        if lines:
            paragraphs.append((" ".join(lines), heading))
            lines.clear()

    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            flush()
            heading = (match.group("title") or match.group("bold") or "").strip()
        elif not line.strip():
            flush()
        else:
            if _BLOCK_START.match(line):
                flush()
            lines.append(line.strip())
    flush()
    return paragraphs


def chosen_metric(text: str) -> str:
    """The metric the design optimises: the first accepted mention in a clause that talks about metrics,
    else the first accepted mention anywhere."""
    all_clauses = clauses(text)
    cued = [c.text for c in all_clauses if _METRIC_CUE.search(c.text) or _METRIC_CUE.search(c.heading)]
    for candidates in (cued, [c.text for c in all_clauses]):
        for sentence in candidates:
            found = _first_metric(sentence)
            if found is not None:
                return found
    return NO_METRIC


def _first_metric(sentence: str) -> str | None:
    hits: list[tuple[int, str]] = []
    for name, pattern in METRIC_PATTERNS:
        for match in re.finditer(pattern, sentence, re.IGNORECASE):
            if not _is_rejected(sentence, name):
                hits.append((match.start(), name))
                break
    return min(hits)[1] if hits else None


def _is_rejected(sentence: str, name: str) -> bool:
    word = {"accuracy": r"accuracy", "roc_auc": r"roc[- ]?auc"}.get(name)
    if word is None:
        return False
    return re.search(_REJECTED.replace("METRIC", word), sentence, re.IGNORECASE) is not None


def names_imbalance(text: str) -> bool:
    return _IMBALANCE.search(text) is not None


def leak_stance(text: str) -> tuple[str, str | None]:
    """The design's stance on the leaky column and the clause that decided it.

    Exclusion anywhere wins (a design that first calls the column strong and then drops it has
    dropped it); then an assertion that the column exists at prediction time; then keeping it.
    """
    mentions = [c for c in clauses(text) if _COLUMN.search(c.text)]
    if not mentions:
        return NOT_MENTIONED, None
    excluded = [c for c in mentions if _excludes(c)]
    if excluded:
        with_reason = [c for c in excluded if _REASON.search(c.text) or _REASON.search(c.heading)]
        if with_reason:
            return EXCLUDED_WITH_REASON, with_reason[0].text
        reasons_nearby = [c for c in mentions if _REASON.search(c.text) and not _asserts_available(c.text)]
        if reasons_nearby:
            return EXCLUDED_WITH_REASON, excluded[0].text
        return EXCLUDED_WITHOUT_REASON, excluded[0].text
    for clause in mentions:
        if _asserts_available(clause.text):
            return ASSERTED_AVAILABLE, clause.text
    for clause in mentions:
        if _KEEP.search(clause.text) or _KEEP.search(clause.heading):
            return KEPT, clause.text
    return MENTIONED_ONLY, mentions[0].text


def _excludes(clause: Clause) -> bool:
    if _EXCLUDE.search(clause.text):
        return True
    if _EXCLUDE.search(clause.heading):
        return True
    # "not available at prediction time" is itself a reason to exclude, stated without the verb
    return _NEGATED_AVAILABLE.search(clause.text) is not None and _REASON.search(clause.text) is not None


def _asserts_available(sentence: str) -> bool:
    return _ASSERT_AVAILABLE.search(sentence) is not None and _NEGATED_AVAILABLE.search(sentence) is None


def analyse_design(text: str | None) -> DesignSignals:
    """All design signals of one document (None or blank: no design was written)."""
    if text is None or not text.strip():
        return DesignSignals(NO_METRIC, False, False, NOT_MENTIONED, None, present=False)
    metric = chosen_metric(text)
    stance, evidence = leak_stance(text)
    return DesignSignals(
        metric=metric,
        metric_right=metric in RIGHT_METRICS,
        imbalance_named=names_imbalance(text),
        stance=stance,
        stance_evidence=evidence,
        present=True,
    )
