"""The scripted backend: lookup by conversation key and turn, ordered unkeyed lines, transcript replay."""

from __future__ import annotations

import json

import pytest

from bakeoff.models.base import Completion, GenerationSettings, Message, split_key, turn_key
from bakeoff.models.errors import ModelFileInvalid, ModelFileNotFound
from bakeoff.models.registry import open_backend
from bakeoff.models.transcript import append_transcript

SETTINGS = GenerationSettings(max_tokens=64)
HELLO = [Message("user", "hello there")]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def ask(backend, key):
    return backend.chat(HELLO, key=key, settings=SETTINGS)


def test_turn_keys_round_trip():
    assert turn_key("run-3/implement", 2) == "run-3/implement#2"
    assert split_key("run-3/implement#2") == ("run-3/implement", 2)
    assert split_key("explore") == ("explore", None)
    with pytest.raises(ValueError):
        turn_key("a#b", 1)
    with pytest.raises(ValueError):
        turn_key("a", 0)


def test_answers_found_by_key_whatever_the_call_order(tmp_path):
    script = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"key": "implement#1", "text": "implement one"},
            {"key": "explore#1", "text": "explore one"},
            {"key": "implement#2", "text": "implement two"},
        ],
    )
    backend = open_backend(f"scripted:{script}")
    assert ask(backend, "implement#2").text == "implement two"
    assert ask(backend, "explore#1").text == "explore one"
    assert ask(backend, "implement#1").text == "implement one"


def test_conversation_only_keys_serve_turns_in_order_and_unkeyed_lines_fill_in(tmp_path):
    script = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"text": "first unkeyed"},
            {"key": "repair", "text": "repair a"},
            {"key": "repair", "text": "repair b"},
            {"text": "second unkeyed"},
        ],
    )
    backend = open_backend(f"scripted:{script}")
    assert ask(backend, "repair#1").text == "repair a"
    assert ask(backend, "docs#1").text == "first unkeyed"
    assert ask(backend, "repair#2").text == "repair b"
    assert ask(backend, "repair#3").text == "second unkeyed"


def test_running_out_is_an_error_completion_not_an_exception(tmp_path):
    backend = open_backend(f"scripted:{write_jsonl(tmp_path / 's.jsonl', [{'key': 'a#1', 'text': 'x'}])}")
    assert ask(backend, "a#1").text == "x"
    empty = ask(backend, "a#1")
    assert empty.error is not None and empty.error_kind == "backend_error" and empty.finish_reason == "error"


def test_finish_reason_error_and_error_kind_are_replayed(tmp_path):
    script = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"key": "a#1", "text": "cut", "finish_reason": "length"},
            {"key": "a#2", "error": "read timed out", "error_kind": "timeout"},
            {"key": "a#3", "error": "HTTP 500"},
        ],
    )
    backend = open_backend(f"scripted:{script}")
    cut = ask(backend, "a#1")
    assert (cut.text, cut.finish_reason, cut.error) == ("cut", "length", None)
    timeout = ask(backend, "a#2")
    assert (timeout.text, timeout.error, timeout.error_kind) == ("", "read timed out", "timeout")
    assert ask(backend, "a#3").error_kind == "backend_error"


def test_a_written_transcript_replays_to_the_same_answers(tmp_path):
    transcript = tmp_path / "transcript.jsonl"
    recorded = {
        "explore#1": Completion("print(1)", "stop", 10, 3, 0.1, 0.2, "gguf:/m.gguf"),
        "implement#1": Completion("partial", "length", 20, 64, 0.1, 0.9, "gguf:/m.gguf", cached_prompt_tokens=5),
        "implement#2": Completion("", "error", 0, 0, 0.0, 30.0, "gguf:/m.gguf", error="timed out", error_kind="timeout"),
    }
    for key, completion in recorded.items():
        append_transcript(transcript, key, completion, HELLO)
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert lines[0]["messages"] == [{"role": "user", "content": "hello there"}]
    replay = open_backend(f"scripted:{transcript}")
    for key in ("implement#2", "explore#1", "implement#1"):  # re-ordered, as a resumed run would ask
        got = ask(replay, key)
        want = recorded[key]
        assert (got.text, got.finish_reason, got.error, got.error_kind) == (
            want.text, want.finish_reason, want.error, want.error_kind
        )


def test_bad_files_are_named_errors(tmp_path):
    with pytest.raises(ModelFileNotFound):
        open_backend(f"scripted:{tmp_path / 'missing.jsonl'}")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "a", "text": "x"}\nnot json\n')
    with pytest.raises(ModelFileInvalid, match="bad.jsonl:2"):
        open_backend(f"scripted:{bad}")
    write_jsonl(bad, [{"key": "a"}])
    with pytest.raises(ModelFileInvalid, match="needs 'text' or 'error'"):
        open_backend(f"scripted:{bad}")
    write_jsonl(bad, [{"error": "x", "error_kind": "gremlins"}])
    with pytest.raises(ModelFileInvalid, match="error_kind"):
        open_backend(f"scripted:{bad}")
    bad.write_bytes(b'\xff\xfe{"text": "x"}\n')
    with pytest.raises(ModelFileInvalid, match="not UTF-8"):
        open_backend(f"scripted:{bad}")


def test_a_replayed_plain_answer_whose_code_closes_a_think_tag_is_all_answer(tmp_path):
    """Hostile input round 2, row 13, for replayed answers (read as raw output when they carry no reasoning)."""
    from bakeoff.answers import audit, extract_files

    text = "# file: train.py\n```python\nSTOP = '</think>'\nprint(STOP)\n```\n"
    path = write_jsonl(tmp_path / "a.jsonl", [{"key": "implement#1", "text": text}])
    completion = ask(open_backend(f"scripted:{path}"), "implement#1")
    assert completion.text == text and completion.reasoning == ""
    assert extract_files(completion.text) == {"train.py": "STOP = '</think>'\nprint(STOP)\n"}
    assert audit(completion, expect="code").status == "captured"
