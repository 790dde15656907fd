"""Crash classification on real tracebacks, produced by running small failing scripts."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bakeoff.submission.crashes import classify
from sandbox.base import ExecResult


def run_script(folder: Path, name: str, source: str, *args: str) -> ExecResult:
    script = folder / name
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, name, *args], cwd=folder, capture_output=True, text=True, check=False
    )
    return ExecResult(
        argv=("python", name, *args),
        exit_code=completed.returncode,
        stdout=completed.stdout,
        stderr=completed.stderr,
        timed_out=False,
        oom_killed=False,
        duration_s=0.0,
        isolation="none",
    )


CASES = {
    "module_not_found": (
        "import numpy\nimport xgboost_not_installed_here\n",
        "xgboost_not_installed_here",
    ),
    "file_not_found": (
        "import joblib\nmodel = joblib.load('model.joblib')\n",
        "model.joblib",
    ),
    "column_missing": (
        """
        import pandas as pd
        frame = pd.DataFrame({"subject": ["a"], "body": ["b"]})
        print(frame["moderator_flagged"])
        """,
        "moderator_flagged",
    ),
    "syntax_error": ("def train(:\n    pass\n", "invalid syntax"),
    "type_error": ("len(5)\n", "object of type 'int' has no len()"),
    "value_error": ("int('spam')\n", "invalid literal for int() with base 10: 'spam'"),
    "other": ("import json\njson.loads('{')\n", "JSONDecodeError"),
}


@pytest.mark.parametrize("expected", sorted(CASES))
def test_real_tracebacks_are_classified(tmp_path, expected):
    source, detail_fragment = CASES[expected]
    result = run_script(tmp_path, "script.py", source)
    assert result.exit_code != 0
    crash = classify(result)
    assert crash.crash_class == expected, result.stderr
    assert detail_fragment in crash.detail
    assert crash.traceback_tail.strip()


def test_pickled_class_from_train_script_is_missing_in_predict_script(tmp_path):
    train = """
    import pickle

    class Cleaner:
        def transform(self, texts):
            return [t.lower() for t in texts]

    with open("model.pkl", "wb") as handle:
        pickle.dump(Cleaner(), handle)
    """
    predict = """
    import pickle
    with open("model.pkl", "rb") as handle:
        model = pickle.load(handle)
    """
    assert run_script(tmp_path, "train.py", train).exit_code == 0
    crash = classify(run_script(tmp_path, "predict.py", predict))
    assert crash.crash_class == "pickle_class_missing"
    assert crash.detail == "Cleaner"


def test_columns_missing_at_predict_time_in_a_sklearn_pipeline(tmp_path):
    source = """
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    train = pd.DataFrame({"links": [0, 1, 2, 3], "flag": [0, 1, 0, 1]})
    model = make_pipeline(ColumnTransformer([("n", StandardScaler(), ["links", "flag"])]), LogisticRegression())
    model.fit(train, [0, 1, 0, 1])
    model.predict(pd.DataFrame({"links": [1]}))
    """
    crash = classify(run_script(tmp_path, "script.py", source))
    assert crash.crash_class == "column_missing"


def test_attribute_access_to_a_missing_column_is_a_missing_column(tmp_path):
    source = """
    import pandas as pd
    frame = pd.DataFrame({"subject": ["a"]})
    print(frame.moderator_flagged)
    """
    crash = classify(run_script(tmp_path, "script.py", source))
    assert (crash.crash_class, crash.detail) == ("column_missing", "moderator_flagged")


def test_a_chained_exception_is_classified_by_its_last_exception(tmp_path):
    source = """
    try:
        {}["x"]
    except KeyError:
        raise TypeError("wrong kind of thing")
    """
    crash = classify(run_script(tmp_path, "script.py", source))
    assert crash.crash_class == "type_error"
    assert crash.detail == "wrong kind of thing"


def test_a_plain_dict_key_error_is_not_a_missing_column(tmp_path):
    crash = classify(run_script(tmp_path, "script.py", "settings = {}\nsettings['depth']\n"))
    assert crash.crash_class == "other"
    assert "KeyError" in crash.detail


def test_exit_without_traceback_is_other_with_the_exit_code(tmp_path):
    crash = classify(run_script(tmp_path, "script.py", "import sys\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n"))
    assert crash.crash_class == "other"
    assert crash.detail == "exit code 3: bad input"


def test_a_signal_death_without_traceback_names_the_signal(tmp_path):
    crash = classify(run_script(tmp_path, "script.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"))
    assert crash.crash_class == "other"
    assert crash.detail.startswith("killed by signal 9")


def test_limits_reported_by_the_sandbox_win_over_the_text():
    base = dict(argv=("python", "x.py"), stdout="", stderr="Traceback (most recent call last):\nValueError: x\n")
    timed_out = ExecResult(exit_code=None, timed_out=True, oom_killed=False, duration_s=1.0, **base)
    oom = ExecResult(exit_code=137, timed_out=False, oom_killed=True, duration_s=1.0, **base)
    assert classify(timed_out).crash_class == "timeout"
    assert classify(oom).crash_class == "out_of_memory"
