"""`bakeoff demo --task ab_test` on real Docker: the task's own small data, one run, graded on every hidden
experiment, probed, and reported (a scripted model, so the answers are known)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runner_support import fenced, run_demo

REPO_ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_the_demo_runs_ab_test_end_to_end(tmp_path):
    careful = (REPO_ROOT / "generators" / "ab_test" / "references" / "ab_careful" / "analyze.py").read_text(encoding="utf-8")
    lines = [
        {"key": "explore#1", "text": fenced("explore.py", 'import pandas as pd\nprint(pd.read_csv("data/sessions.csv").shape)')},
        {"key": "decide#1", "text": "# file: DESIGN.md\n```markdown\nBy user: users were randomized.\nUNIT: user\n```\n"},
        {"key": "implement#1", "text": fenced("analyze.py", careful) + fenced("requirements.txt", "pandas", language="text")},
        {"key": "docs#1", "text": "# file: README.md\n```markdown\nESTIMATE: 0.01 [0.0, 0.02]\n```\n"},
    ]
    done, out, run_dir, record = run_demo(tmp_path, "ab_test", lines)
    assert "2000 users, 8 hidden experiments" in done.stderr
    assert sorted(p.name for p in (out / "corpus" / "holdout").iterdir()) == [f"exp_{i:03d}.csv" for i in range(8)]
    assert record["task"] == "ab_test" and record["outcome"]["status"] == "scored"
    assert record["outcome"]["metrics"]["graded"] == 8 and record["outcome"]["headline"]["name"] == "winkler"
    assert record["outcome"]["claim"]["claimed"] == 0.01 and record["outcome"]["claim"]["source"] == "readme"
    explore = json.loads((run_dir / "stages" / "1-explore.json").read_text())
    assert "The first lines of data/sessions.csv:" in explore["prompt"]["messages"][0]["content"]
    evaluate = json.loads((run_dir / "stages" / "5-evaluate.json").read_text())
    assert evaluate["extras"]["unit_probe"]["unit"] == "user"
    assert (out / "report" / "report.md").is_file()
