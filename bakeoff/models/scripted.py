"""The scripted backend: a real backend whose answers come from a JSONL file.

Lookup for a call with key "<conversation>#<turn>" (see base.turn_key):
1. the first unused line whose key equals the whole key;
2. else the first unused line whose key equals the conversation alone
   (so a hand-written script can answer every turn of "explore" in order);
3. else the next unused line that has no key at all.
When nothing is left, the answer is an error completion (backend_error):
the run records it as uncaptured instead of crashing.
Token counts are word counts: scripted text has no tokenizer. The words sent are the prompt's floor
(Completion.prompt_floor); a line's `reported_prompt_tokens` stands for what a server says it read, so a
script can replay a server that cut the prompt. A line's
`reasoning` is replayed as the model's reasoning; a line without one is read
as raw output, its leading reasoning markup split off (bakeoff.models.reasoning).
When tools are offered, a line's `tool_calls` are the calls (a transcript replays them); a line without
them is read in the text protocol (bakeoff.models.tools), so a hand-written script of tool calls may write either.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from bakeoff.models.base import Completion, GenerationSettings, Message, split_key
from bakeoff.models.errors import ModelFileNotFound
from bakeoff.models.reasoning import SplitOutput, count_words, split_detected
from bakeoff.models.tools import ToolSyntax, parse_text_protocol
from bakeoff.models.transcript import ScriptedAnswer, read_answers


class ScriptedBackend:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelFileNotFound(f"no such scripted answers file: {self.path}")
        self._answers = read_answers(self.path)
        self._used: set[int] = set()
        self._lock = threading.Lock()  # runs in flight may ask at once (max_concurrent > 1)

    @property
    def identity(self) -> str:
        return f"scripted:{self.path}"

    @property
    def tool_syntax(self) -> str:
        return ToolSyntax.SCRIPTED.value

    def _take(self, key: str) -> ScriptedAnswer | None:
        with self._lock:
            return self._take_unlocked(key)

    def _take_unlocked(self, key: str) -> ScriptedAnswer | None:
        conversation, _turn = split_key(key)
        for wanted in (key, conversation):
            for index, answer in enumerate(self._answers):
                if index not in self._used and answer.key == wanted:
                    self._used.add(index)
                    return answer
        for index, answer in enumerate(self._answers):
            if index not in self._used and answer.key is None:
                self._used.add(index)
                return answer
        return None

    def chat(self, messages: Sequence[Message], *, key: str, settings: GenerationSettings) -> Completion:
        prompt_words = sum(len(m.content.split()) for m in messages)
        answer = self._take(key)
        if answer is None:
            error = f"no scripted answer left for key {key!r}"
            return Completion.failure(self.identity, error, "backend_error", prompt_tokens=prompt_words)
        if answer.reasoning is None:
            split = split_detected(answer.text)
        else:
            split = SplitOutput(answer.reasoning, answer.text, answer.reasoning_unfinished)
        reasoning_words = count_words(split.reasoning)
        text, calls = split.answer, answer.tool_calls or ()
        if settings.tools and answer.tool_calls is None:
            parsed = parse_text_protocol(text)
            text, calls = (parsed.text, parsed.calls) if parsed.calls else (text, ())
        return Completion(
            text=text,
            tool_calls=tuple(calls) if settings.tools else (),
            reasoning=split.reasoning,
            reasoning_tokens=reasoning_words,
            reasoning_unfinished=split.unfinished,
            finish_reason=answer.finish_reason,
            prompt_tokens=prompt_words if answer.reported_prompt_tokens is None else answer.reported_prompt_tokens,
            prompt_floor=prompt_words,
            completion_tokens=count_words(split.answer) + reasoning_words
            + sum(count_words(call.arguments) for call in (answer.tool_calls or ())),
            prompt_seconds=0.0,
            generation_seconds=0.0,
            backend=self.identity,
            error=answer.error,
            error_kind=answer.error_kind,
            token_budget=answer.token_budget,
            model_info={"scripted_line": answer.line_number,
                        **({"tool_syntax": ToolSyntax.SCRIPTED.value} if settings.tools else {})},
        )

    def close(self) -> None:
        pass
