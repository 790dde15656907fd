"""Shared pieces of the ab_test batch tests: a tiny data folder and scripted answers for the five stages.

The analyses are the calibration references' own analyze.py (by user: ab_careful; by visit: ab_careless),
so what the unit probe should find is known; the crashing one imports a package that does not exist.
"""

from __future__ import annotations

from pathlib import Path

from interval_runner_support import implementation_answer, reference_script, stage_answers
from runner_support import fenced

# The hidden experiments share the visible one's conditions (condition_spread 0, as in 2.0): these tests are about the
# harness (graded, probed, repaired, reported), and on six small experiments drawn with 3.2's spread of cluster
# sizes the by-visit run's luck decides whether it out-scores the by-user one (it did, 0.018 against 0.032, on the
# spread data at seed 3: every by-visit interval happened to cover). Shared conditions: 0.159 against 0.052.
TINY_AB = {"seed": 3, "users": 1500, "experiments": 6, "holdout_users": 1500, "condition_spread": 0.0}


def make_tiny_ab_data(folder: Path) -> Path:
    from generators.ab_test import AbParams, generate_ab_data
    from generators.secret import Secret

    generate_ab_data(AbParams(**TINY_AB), folder, secret=Secret.public())
    return folder


EXPLORE = fenced("explore.py", """
import pandas as pd
df = pd.read_csv("data/sessions.csv")
print(df.shape)
print(df.groupby("arm")["user_id"].nunique())
print(df.groupby("arm")["converted"].mean())
print("exact repeated rows:", int(df.duplicated().sum()))
""")


def design(unit: str) -> str:
    return f"""My design.

# file: DESIGN.md
```markdown
# Design
UNIT: {unit}
Users were assigned an arm once, so a user's visits are correlated; the interval is built over users.
Exact repeated rows are a logging fault and are dropped.
ESTIMATE: 0.010 [0.002, 0.018]
```
"""


def analysis(reference: str) -> str:
    return reference_script(reference, "analyze.py")


BY_USER = analysis("ab_careful")
BY_VISIT = analysis("ab_careless")
CRASHING = "import checkout_stats_toolkit  # no such package\n" + BY_USER


def implementation(analyze: str) -> str:
    return implementation_answer("analysis", "analyze.py", analyze, "pandas\nnumpy")


README = fenced("README.md", """
# Did the new checkout page sell more?
Analysed by user; repeated rows dropped.
ESTIMATE: 0.010 [0.002, 0.018]
""", language="markdown")


def ab_answers(implement: str, repair: str | None = None, unit: str = "user", docs: str = README) -> list[dict]:
    return stage_answers(EXPLORE, design(unit), implement, repair, docs)
