"""A logistic regression on generic code features: what a checklist reader measures, learned.

The features are the ones a reviewer with a leakage checklist looks at, written
for any notebook snippet, never for one template: counts of fits, splits,
loops and test-set mentions, whether something is fitted before the first split,
whether a test name is read inside a loop or a function, whether the reported
line names a training split, shuffling, grouping, windows, merges, dates. The
model (standardised features, L2 logistic regression, C = 0.3: the strongest
setting against the first banks) is trained on
the examples it is given and answers PROBLEM above one half.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from bakeoff.review.audit.view import Example, Visible

REGULARISATION = 0.3
_SPLIT = re.compile(r"train_test_split\(|\.split\(|iloc\[:-|iloc\[-|\[:cut\]|\[cut:\]|<\s*cutoff|>=\s*cutoff")
_FIT = re.compile(r"\.fit(?:_transform)?\(")
_TEST = re.compile(r"\b\w*test\w*\b")
_TRAIN = re.compile(r"\b\w*train\w*\b")
_VALID = re.compile(r"\b\w*val(?:id)?\w*\b")


def _count(pattern: str) -> Callable[[str, list[str]], float]:
    compiled = re.compile(pattern)
    return lambda claim, lines: float(sum(len(compiled.findall(line)) for line in lines))


def _first(lines: list[str], pattern: re.Pattern[str]) -> int | None:
    return next((n for n, line in enumerate(lines) if pattern.search(line)), None)


def _fit_before_split(claim: str, lines: list[str]) -> float:
    fit, split = _first(lines, _FIT), _first(lines, _SPLIT)
    return float(fit is not None and (split is None or fit < split))


def _statistic_before_split(claim: str, lines: list[str]) -> float:
    stat = _first(lines, re.compile(r"\.(mean|median|std|groupby|value_counts|quantile)\("))
    split = _first(lines, _SPLIT)
    return float(stat is not None and split is not None and stat < split)


def _blocks(lines: list[str], opener: str) -> list[str]:
    """Lines inside indented blocks opened by `opener` (for, def)."""
    inside, depth = [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if depth is not None and line.strip() and indent > depth:
            inside.append(line)
            continue
        depth = indent if line.lstrip().startswith(opener) else None
    return inside


def _test_in(opener: str) -> Callable[[str, list[str]], float]:
    return lambda claim, lines: float(sum(bool(_TEST.search(line)) for line in _blocks(lines, opener)))


def _reported_mentions(pattern: re.Pattern[str]) -> Callable[[str, list[str]], float]:
    def feature(claim: str, lines: list[str]) -> float:
        return float(any(line.startswith("reported") and pattern.search(line) for line in lines))

    return feature


def _fit_argument(pattern: str) -> Callable[[str, list[str]], float]:
    compiled = re.compile(r"\.fit(?:_transform)?\((?P<arg>[^,)]*)")
    wanted = re.compile(pattern)
    return lambda claim, lines: float(sum(bool(wanted.search(m.group("arg"))) for line in lines
                                          for m in compiled.finditer(line)))


def _lines_after_last_split(claim: str, lines: list[str]) -> float:
    hits = [n for n, line in enumerate(lines) if _SPLIT.search(line)]
    return float(len(lines) - hits[-1]) if hits else 0.0


def _rebound(claim: str, lines: list[str]) -> float:
    targets = [m.group(1) for line in lines for m in [re.match(r"\s*([A-Za-z_]\w*)\s*(?:,[^=]*)?=[^=]", line)] if m]
    return float(len(targets) - len(set(targets)))


def _test_in_comprehension(claim: str, lines: list[str]) -> float:
    return float(sum(bool(re.search(r"[\[{(][^\]})]*\bfor\b", line) and _TEST.search(line)) for line in lines))


def _shuffled_dates(claim: str, lines: list[str]) -> float:
    dated = any(re.search(r"\b(date|day|week|created)\w*", line) for line in lines)
    shuffled = any("shuffle=True" in line or ("train_test_split(" in line and "shuffle=False" not in line)
                   for line in lines)
    return float(dated and shuffled)


def _fit_on_unsplit_name(claim: str, lines: list[str]) -> float:
    """A fit whose argument's first name is never bound by a line that splits."""
    split_names = {name for line in lines if _SPLIT.search(line) and "=" in line
                   for name in re.findall(r"[A-Za-z_]\w*", line.split("=", 1)[0])}
    args = [m.group(1) for line in lines for m in re.finditer(r"\.fit(?:_transform)?\(\s*([A-Za-z_]\w*)", line)]
    return float(sum(arg not in split_names for arg in args))


def _claim(pattern: str) -> Callable[[str, list[str]], float]:
    compiled = re.compile(pattern, re.IGNORECASE)
    return lambda claim, lines: float(bool(compiled.search(claim)))


FEATURES: tuple[tuple[str, Callable[[str, list[str]], float]], ...] = (
    ("lines", lambda claim, lines: float(len(lines))),
    ("fits", _count(r"\.fit\(")),
    ("fit_transforms", _count(r"\.fit_transform\(")),
    ("transforms", _count(r"\.transform\(")),
    ("splits", lambda claim, lines: float(sum(bool(_SPLIT.search(line)) for line in lines))),
    ("loops", _count(r"^\s*for\b|\bfor\b.*\bin\b.*[\]}]")),
    ("functions", _count(r"^\s*def\b")),
    ("lambdas", _count(r"\blambda\b")),
    ("test_mentions", lambda claim, lines: float(sum(len(_TEST.findall(line)) for line in lines))),
    ("train_mentions", lambda claim, lines: float(sum(len(_TRAIN.findall(line)) for line in lines))),
    ("valid_mentions", lambda claim, lines: float(sum(len(_VALID.findall(line)) for line in lines))),
    ("df_mentions", _count(r"\bdf\b")),
    ("shuffle_true", _count(r"shuffle=True")),
    ("shuffle_false", _count(r"shuffle=False")),
    ("random_states", _count(r"random_state=")),
    ("concat_merge_join", _count(r"\b(concat|merge|join)\(")),
    ("groupby", _count(r"groupby\(")),
    ("windows", _count(r"\.(rolling|expanding|ewm|shift)\(")),
    ("centred_or_forward", _count(r"center=True|shift\(-")),
    ("drop_duplicates", _count(r"drop_duplicates\(")),
    ("group_splitters", _count(r"Group\w*(Split|Fold)|groups=")),
    ("time_splitters", _count(r"TimeSeriesSplit|shuffle=False|iloc\[-|iloc\[:-")),
    ("kfold", _count(r"KFold\(|cross_val_score\(|cross_validate\(")),
    ("searches", _count(r"GridSearchCV|RandomizedSearchCV|best_score_|best_params_|cv_results_")),
    ("pipelines", _count(r"make_pipeline|Pipeline\(|ColumnTransformer")),
    ("max_argmax", _count(r"\bmax\(|argmax|idxmax|\bbest")),
    ("means", _count(r"\.mean\(\)")),
    ("prints", _count(r"\bprint\(")),
    ("fit_before_split", _fit_before_split),
    ("statistic_before_split", _statistic_before_split),
    ("test_in_loop", _test_in("for ")),
    ("test_in_function", _test_in("def ")),
    ("reported_names_train", _reported_mentions(re.compile(r"train|fit"))),
    ("reported_names_test", _reported_mentions(re.compile(r"test|valid|held"))),
    ("fit_on_df_or_all", _fit_argument(r"\bdf\b|all|full|both|every")),
    ("fit_on_train", _fit_argument(r"train|fit")),
    ("fit_on_test", _fit_argument(r"test|valid|held")),
    ("lines_after_last_split", _lines_after_last_split),
    ("rebound_names", _rebound),
    ("dates", _count(r"\b(date|day|week|month|created|time)\w*")),
    ("iloc", _count(r"\.iloc\[")),
    ("sorts", _count(r"sort_values\(|sort_index\(")),
    ("index", _count(r"\.index\b")),
    ("hard_predictions", _count(r"\.predict\(")),
    ("probabilities", _count(r"predict_proba\(")),
    ("replace_true", _count(r"replace=True")),
    ("fillna", _count(r"fillna\(|SimpleImputer|interpolate\(|bfill|ffill")),
    ("test_in_comprehension", _test_in_comprehension),
    ("shuffled_dates", _shuffled_dates),
    ("fit_on_unsplit_name", _fit_on_unsplit_name),
    ("claim_time", _claim(r"forecast|recent|later|latest|final|earlier|next")),
    ("claim_unseen", _claim(r"unseen|never|new|held|not been|not seen|kept out")),
    ("claim_tuned", _claim(r"tun|chos|select|best")),
)


@functools.lru_cache(maxsize=4096)
def features(claim: str, code: str) -> tuple[float, ...]:
    lines = code.splitlines()
    return tuple(feature(claim, lines) for _, feature in FEATURES)


class FeatureReader:
    name = "logistic regression on code features"
    contrastive = False

    def __init__(self) -> None:
        self._model: object | None = None
        self._constant = False

    def fit(self, examples: Sequence[Example]) -> None:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        labels = [int(e.problem) for e in examples]
        if len(set(labels)) < 2:
            self._model, self._constant = None, bool(labels and labels[0])
            return
        model = make_pipeline(StandardScaler(), LogisticRegression(C=REGULARISATION, max_iter=5000))
        self._model = model.fit([features(e.visible.claim, e.visible.code) for e in examples], labels)

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        if self._model is None:
            return [self._constant] * len(items)
        rows = [features(item.claim, item.code) for item in items]
        return [bool(p >= 0.5) for p in self._model.predict_proba(rows)[:, 1]]  # type: ignore[attr-defined]
