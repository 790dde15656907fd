"""Building each stage's conversation within the context budget, and recording what was cut.

Every conversation starts with the same system message (system text, statement,
data excerpt), so a backend that reuses a processed prefix reads it only once per run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from string import Template

from bakeoff.models.base import Message
from bakeoff.records.parts import Prompt, PromptCut, PromptMessage
from bakeoff.taskapi.context import CUT_MARK, shorten

__all__ = ["CUT_MARK", "Conversation", "continued_conversation", "shorten", "stage_conversation"]

MIN_PART_CHARS = 400  # a variable part is never cut below this (a traceback's tail must survive)


@dataclass(frozen=True)
class Cut:
    part: str
    original_chars: int
    kept_chars: int


@dataclass(frozen=True)
class Conversation:
    key: str
    messages: tuple[Message, ...]
    shared_prefix_chars: int
    cuts: tuple[Cut, ...] = ()

    @property
    def chars(self) -> int:
        return sum(len(m.content) for m in self.messages)

    def to_prompt(self) -> Prompt:
        """The conversation as a stage record keeps it."""
        return Prompt(self.key, tuple(PromptMessage(m.role, m.content) for m in self.messages), self.chars,
                      self.shared_prefix_chars, tuple(PromptCut(c.part, c.original_chars, c.kept_chars) for c in self.cuts))


def fit_parts(parts: Mapping[str, str], room: int) -> tuple[dict[str, str], list[Cut]]:
    """Share `room` characters between the parts: short parts keep all, long ones split what is left."""
    room = max(room, MIN_PART_CHARS * len(parts))
    fitted: dict[str, str] = {}
    cuts: list[Cut] = []
    pending = sorted(parts.items(), key=lambda item: len(item[1]))
    remaining = room
    for position, (name, text) in enumerate(pending):
        share = remaining // (len(pending) - position)
        kept = text if len(text) <= share else shorten(text, share)
        if kept is not text:
            cuts.append(Cut(name, len(text), len(kept)))
        fitted[name] = kept
        remaining -= len(kept)
    return fitted, cuts


def shared_system_message(system: str, statement: str, excerpt: str, excerpt_of: str = "the data") -> Message:
    """The statement and the excerpt; `excerpt_of` names the file the excerpt's lines come from (the task's)."""
    content = f"{system.strip()}\n\n{statement.strip()}\n\nThe first lines of {excerpt_of}:\n\n{excerpt.strip()}\n"
    return Message("system", content)


def stage_conversation(
    key: str,
    shared: Message,
    template: str,
    parts: Mapping[str, str],
    budget_chars: int,
) -> Conversation:
    """One stage's conversation: the shared system message and the stage prompt with `parts` filled in.

    The parts are cut to the budget left after the fixed text.
    """
    fixed = len(shared.content) + len(render(template, **{name: "" for name in parts}))
    fitted, cuts = fit_parts(parts, budget_chars - fixed) if parts else ({}, [])
    user = Message("user", render(template, **fitted))
    return Conversation(key, (shared, user), len(shared.content), tuple(cuts))


def continued_conversation(
    key: str,
    earlier: Sequence[Message],
    answer: str,
    follow_up_template: str,
    parts: Mapping[str, str],
    budget_chars: int,
) -> Conversation:
    """The earlier conversation, the model's answer, and a follow-up (repair continues implement).

    When it does not fit, the follow-up's parts (a traceback) get up to half the room first, and the
    model's previous answer is shortened in the middle: the earlier turns stay as they were, so a
    backend's processed prefix is still reused.
    """
    cuts: list[Cut] = []
    fixed = sum(len(m.content) for m in earlier) + len(render(follow_up_template, **{n: "" for n in parts}))
    room = budget_chars - fixed
    wanted = sum(len(text) for text in parts.values())
    answer_room = max(MIN_PART_CHARS, room - min(wanted, max(room // 2, MIN_PART_CHARS * len(parts))))
    if len(answer) > answer_room:
        cuts.append(Cut("previous_answer", len(answer), answer_room))
        answer = shorten(answer, answer_room)
    history = (*earlier, Message("assistant", answer))
    fitted, part_cuts = fit_parts(parts, room - len(answer))
    follow_up = Message("user", render(follow_up_template, **fitted))
    return Conversation(key, (*history, follow_up), len(earlier[0].content), tuple(cuts + part_cuts))


def render(template: str, **parts: str) -> str:
    """Fill a prompt template's $placeholders (prompts are data: task_specs/<task>/prompts/)."""
    return Template(template).substitute(parts)
