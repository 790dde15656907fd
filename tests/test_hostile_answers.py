"""Answers that are text attacks are data: parsing is linear in the answer's length, lone surrogates are stored.

The work bound is checked with the parser's own deterministic counter (bakeoff.answers.WorkMeter), never a clock:
the parser hands patterns only what the meter counts, each piece at most a few hundred characters.
"""

from __future__ import annotations

import json

import pytest
from runner_support import DESIGN, PREDICT_ZERO, README, fenced, make_tiny_corpus, stage_records, write_script

N = 250_000  # characters; 4 N = a million, far above any answer a stage's token budget allows


def _fence_then_spaces(n: int) -> str:
    return "```" + " " * n


def _fence_spaces_backtick(n: int) -> str:
    return "```" + " " * n + "x`\n" + "```" + "\t " * (n // 2) + "~\n"


def _blank_lines_then_claim(n: int) -> str:
    return "\n" * n + "EXPECTED_F1: 0.5\n"


def _many_unclosed_fences(n: int) -> str:
    return "~~~\n```\n" * (n // 8)


def _long_info_and_labels(n: int) -> str:
    line = "```python " + "title=" * (n // 60) + "\n"
    label = "### `" + "a" * (n // 4) + ".py`:\n"
    return label + line + "# file: " + "x/" * (n // 8) + "y.py\nprint(1)\n```\n"


def _claims_everywhere(n: int) -> str:
    return ("EXPECTED_F1" + " " * 50 + "\n") * (n // 62) + "EXPECTED_F1:" + " " * n + "x\n"


SHAPES = [_fence_then_spaces, _fence_spaces_backtick, _blank_lines_then_claim, _many_unclosed_fences, _long_info_and_labels, _claims_everywhere]


def _work(text: str) -> int:
    from bakeoff.answers import WorkMeter, extract_files, parse_expected_f1

    meter = WorkMeter()
    extract_files(text, meter)
    parse_expected_f1(text, meter)
    return meter.chars


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
def test_parsing_work_grows_linearly_with_the_answer(shape):
    small, large = shape(N), shape(4 * N)
    work_small, work_large = _work(small), _work(large)
    assert work_small <= 4 * len(small)
    assert work_large <= 4 * len(large)
    assert work_large <= 4.5 * work_small


def test_a_fence_followed_by_200000_spaces_is_an_unclosed_block():
    from bakeoff.answers import Block, extract_blocks, extract_files

    assert extract_blocks(_fence_then_spaces(200_000)) == [Block("", None, "", closed=False, start_line=1)]
    assert extract_blocks("```" + " " * 200_000 + "`") == []  # a backtick in the info string: no fence
    text = "```python " + " " * 200_000 + "\n# file: train.py\nprint(1)\n```" + " " * 200_000 + "\n"
    assert extract_files(text) == {"train.py": "print(1)\n"}


def test_claims_are_still_read_line_by_line():
    from bakeoff.answers import parse_expected_f1

    assert parse_expected_f1(_blank_lines_then_claim(100_000)) == 0.5
    assert parse_expected_f1(" " * 100_000 + "EXPECTED_F1: 0.25") == 0.25
    assert parse_expected_f1("EXPECTED_F1: 0.8 5") == 0.8


# --- lone surrogates: stored losslessly, the run goes on -------------------------------------------------------

SURROGATE = "\ud800"
EXPLORE = "Looking at the data " + SURROGATE + "\n" + fenced("explore.py", f'print("excerpt")  # odd char {SURROGATE}')
IMPLEMENT = "Code:\n\n" + fenced("train.py", f'open("model.txt", "w").write("0")  # {SURROGATE}\nprint("EXPECTED_F1: 0.5")') + (
    "\n" + fenced("predict.py", PREDICT_ZERO))


@pytest.mark.bwrap
@pytest.mark.slow
def test_an_answer_with_a_lone_surrogate_is_stored_and_the_run_finishes(tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    corpus = make_tiny_corpus(tmp_path / "corpus")
    script = write_script(tmp_path / "surrogate.jsonl", [
        {"key": "explore#1", "text": EXPLORE}, {"key": "decide#1", "text": DESIGN + SURROGATE},
        {"key": "implement#1", "text": IMPLEMENT}, {"key": "docs#1", "text": README},
    ])
    assert "\\ud800" in script.read_text()  # the scripted file carries it as JSON carries it: escaped
    plan = plan_from_mapping({"models": [{"spec": f"scripted:{script}", "label": "odd"}], "corpus": str(corpus),
                              "runs": 1, "sandbox": "bwrap", "task_settings": {"smoke_rows": 20}}, tmp_path)
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    record = run_plan(plan, BatchOptions(out_dir=tmp_path / "batch", wheelhouse=wheelhouse)).records[0].to_json()
    assert record["status"] == "finished", record.get("error")
    assert record["outcome"]["status"] == "scored"
    run_dir = tmp_path / "batch" / "runs" / "odd-r01"
    stages = stage_records(run_dir)
    assert stages[0]["completion"]["text"] == EXPLORE  # lossless through the record
    assert stages[1]["completion"]["text"].endswith(SURROGATE)
    (run_dir / "stages" / "1-explore.json").read_bytes().decode("utf-8")  # and the record is valid UTF-8
    assert [json.loads(line)["text"] for line in (run_dir / "transcript.jsonl").read_text().splitlines()][0] == EXPLORE
    assert "odd char \\ud800" in (run_dir / "repo" / "explore.py").read_text(encoding="utf-8")
    assert stages[0]["attribution"] == "ok"
