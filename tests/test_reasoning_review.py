"""`bakeoff review` with reasoning: the verdict comes from the answer alone, thinking has its own room."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.models.registry import open_backend
from bakeoff.review.items import load_items
from bakeoff.review.prompt import load_template
from bakeoff.review.runner import REASONING_TOKENS, run_review
from bakeoff.review.settings import ReviewSettings

ITEMS = load_items()[:4]


def script(path: Path, answer_for) -> Path:
    path.write_text("".join(json.dumps({"key": f"review/{item.id}#1", **answer_for(item)}) + "\n" for item in ITEMS))
    return path


class Recording:
    """A scripted backend that keeps the generation settings it was asked with."""

    def __init__(self, backend):
        self.backend, self.settings = backend, []
        self.identity = backend.identity

    def chat(self, messages, *, key, settings):
        self.settings.append(settings)
        return self.backend.chat(messages, key=key, settings=settings)

    def close(self):
        self.backend.close()


def contrary(item):
    """Reasoning that argues the wrong verdict, then the right answer."""
    wrong = "OK" if item.is_problem else "PROBLEM"
    right = "PROBLEM" if item.is_problem else "OK"
    return {"text": f"<think>\nVERDICT: {wrong}\nLINE: 1\nCONFIDENCE: 99\n</think>\n"
                    f"VERDICT: {right}\nLINE: {item.flaw_lines[0] if item.is_problem else 'none'}\nCONFIDENCE: 80\n"
                    "REASON: read the code."}


def test_the_verdict_is_read_from_the_answer_never_the_reasoning(tmp_path):
    backend = Recording(open_backend(f"scripted:{script(tmp_path / 's.jsonl', contrary)}"))
    result = run_review(backend, ITEMS, ReviewSettings(max_tokens=200), load_template())
    assert all(answer.correct for answer in result.answers)
    assert all("<think>" not in answer.text and "99" not in answer.text for answer in result.answers)
    # The per-answer record keeps the reasoning apart from the graded answer.
    assert all("VERDICT" in answer.reasoning and answer.reasoning_tokens > 0 for answer in result.answers)
    assert result.model_info["reasoning"]["with_reasoning"] == len(ITEMS)
    assert result.model_info["reasoning"]["reasoning_tokens"] > 0
    # The answer keeps its own limit; the reasoning gets room on top of it.
    assert {(s.max_tokens, s.reasoning_tokens) for s in backend.settings} == {(200, REASONING_TOKENS)}


def test_a_review_answer_lost_in_reasoning_is_runaway_and_counts_as_wrong(tmp_path):
    path = script(tmp_path / "r.jsonl", lambda item: {"text": "<think>\nStill weighing VERDICT: PROBLEM", "finish_reason": "length"})
    backend = open_backend(f"scripted:{path}")
    result = run_review(backend, ITEMS, ReviewSettings(), load_template())
    assert {(a.capture, a.capture_reason) for a in result.answers} == {("unusable", "runaway_reasoning")}
    assert all(a.correct is False for a in result.answers)  # graded as no verdict, never as the reasoning's PROBLEM
    assert result.model_info["reasoning"]["runaway_reasoning"] == len(ITEMS)


def test_review_cli_takes_a_reasoning_mode_and_keeps_it_apart(tmp_path):
    path = script(tmp_path / "s.jsonl", contrary)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item.to_dict()) + "\n" for item in ITEMS))  # a self-contained file
    out = tmp_path / "off"
    done = CliRunner().invoke(main, ["review", "--model", f"scripted:{path}", "--reasoning", "off", "--items", str(items),
                                     "--out", str(out), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output.strip().splitlines()[-1])["accuracy"] == 1.0
    saved = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert len(saved) == 4 and all("VERDICT" in a["reasoning"] and "<think>" not in a["text"] for a in saved)
    refused = CliRunner().invoke(main, ["review", "--model", "openai:http://127.0.0.1:9/v1#m", "--reasoning", "off",
                                        "--items", str(items), "--out", str(tmp_path / "http")])
    assert refused.exit_code != 0 and "ReasoningModeUnsupported" in refused.output and "which server" in refused.output
