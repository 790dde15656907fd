"""The bank's surface variation: each pair its own names, import order and notes, both twins alike, nothing computed
differently."""

from __future__ import annotations

import difflib

import pytest

from generators.review_data.bank.build import all_pairs, render
from generators.review_data.bank.vary import check_renamed, rename, rename_words, vary, vary_mechanism

CODE = '''import numpy as np
from sklearn.linear_model import LogisticRegression

model = LogisticRegression(C=1.0).fit(df[["model"]], df["y"])
scores = model.predict_proba(df[["model"]])[:, 1]
print("model scores", scores.mean())
print(f"mean {scores.mean():.3f} of the model")
reported = float(np.mean(scores))
'''


def test_a_rename_touches_code_names_and_f_string_fields_only():
    renames = {"model": "clf", "scores": "marks", "C": "strength"}
    renamed = rename(CODE, renames)
    assert 'clf = LogisticRegression(C=1.0).fit(df[["model"]], df["y"])' in renamed  # keyword and column kept
    assert 'print("model scores", marks.mean())' in renamed  # printed words kept
    assert 'print(f"mean {marks.mean():.3f} of the model")' in renamed
    check_renamed(CODE, renamed, renames)


def test_a_rename_that_reaches_a_column_is_refused():
    careless = rename_words(CODE, {"model": "clf"})  # whole text: the column "model" too
    with pytest.raises(ValueError, match="changed more than names"):
        check_renamed(CODE, careless, {"model": "clf"})


def _specs():
    return {spec.pair_id: spec for spec in all_pairs()}


def _notes(code: str) -> list[str]:
    return sorted(line for line in code.splitlines() if line.startswith("#") or not line.strip())


def test_both_twins_get_the_same_surface_and_still_differ_only_by_the_flaw():
    for pair_id, spec in _specs().items():
        knob = spec.knobs[0]
        ok, bad = render(spec.ok_code, knob), render(spec.bad_code, knob)
        varied_ok, varied_bad, renames = vary(pair_id, ok, bad)
        assert _notes(varied_ok) == _notes(varied_bad), pair_id
        before = sum(1 for line in difflib.ndiff(ok.splitlines(), bad.splitlines()) if line[:1] in "+-")
        after = sum(1 for line in difflib.ndiff(varied_ok.splitlines(), varied_bad.splitlines()) if line[:1] in "+-")
        assert after == before, pair_id  # the notes and the import order add no difference of their own
        check_renamed(ok, rename(ok, renames), renames)


def test_the_pairs_of_one_template_do_not_share_a_surface():
    by_template: dict[str, list[str]] = {}
    for pair_id, spec in _specs().items():
        knob = spec.knobs[0]
        code = vary(pair_id, render(spec.ok_code, knob), render(spec.bad_code, knob))[0]
        by_template.setdefault(spec.template_name, []).append(code)
    shared = []
    for codes in by_template.values():
        for i, first in enumerate(codes):
            for second in codes[i + 1:]:
                common = set(first.splitlines()) & set(second.splitlines())
                shared.append(len([line for line in common if line.strip() and not line.startswith(("import", "from", "#"))])
                              / len(first.splitlines()))
    # Measured: 0.174 of a pair's lines shared with a sibling pair in the templates' own text, 0.058 once varied.
    assert shared and sum(shared) / len(shared) < 0.1


def test_the_mechanism_names_the_pairs_own_variables():
    renames = {"y_test": "test_y", "best_C": "chosen_C"}
    mechanism = vary_mechanism({"kind": "reaches", "probe": "best_C", "perturb": {"flip": "best_C"}}, renames)
    assert mechanism == {"kind": "reaches", "probe": "chosen_C", "perturb": {"flip": "best_C"}, "held": "test_y.index"}
    claimed = vary_mechanism({"kind": "claimed", "expr": "recall_score(y_test, pred)"}, renames)
    assert claimed["expr"] == "recall_score(test_y, pred)" and "held" not in claimed
