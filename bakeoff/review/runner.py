"""Asking a model every item, K times, and grading what comes back.

Each sample is its own one-turn conversation. Its key is
`review/<item id>#<sample number>` (samples numbered from 1), so a scripted
backend can answer an item by its full key, or by `review/<item id>` alone
(the k-th such line answers the k-th sample).

A reasoning model gets REASONING_TOKENS of room to think on top of the
answer's own token limit, and the verdict is read from the answer alone. The
reasoning spent is summed up in model_info["reasoning"] (over the answers asked
by this start of the review).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bakeoff.batchfolder.files import utc_now
from bakeoff.models.base import Completion, ModelBackend, turn_key
from bakeoff.review.grading import ItemAnswer, grade
from bakeoff.review.items import ReviewItem
from bakeoff.review.metrics import ReviewMetrics, compute_metrics
from bakeoff.review.prompt import PromptTemplate
from bakeoff.review.settings import ReviewSettings

REASONING_TOKENS = 2048  # room to reason, on top of the answer's max_tokens (used only by models that reason)
REVIEW_TIMESPEC = "seconds"  # a review records its times to the second (utc_now), as it always has
OnAnswer = Callable[[ItemAnswer], None]
OnAsked = Callable[[ItemAnswer, dict], None]  # a freshly asked answer, with the model_info known so far


@dataclass(frozen=True)
class PriorAnswers:
    """What an interrupted start of the same review already has (bakeoff.review.folder)."""

    answers: Mapping[tuple[str, int], ItemAnswer]  # by (item id, 0-based sample)
    model_info: dict
    started_at: str | None


@dataclass(frozen=True)
class ReviewResult:
    backend: str
    settings: ReviewSettings
    items: tuple[ReviewItem, ...]
    answers: tuple[ItemAnswer, ...]
    metrics: ReviewMetrics
    started_at: str  # ISO 8601, UTC
    finished_at: str
    model_info: dict  # what the backend reported about the model (sha256, quantization...), from its first answer


def conversation_name(item: ReviewItem) -> str:
    return f"review/{item.id}"


def ask(
    backend: ModelBackend, item: ReviewItem, sample: int, settings: ReviewSettings, template: PromptTemplate,
    reasoning_tokens: int = REASONING_TOKENS,
) -> tuple[ItemAnswer, Completion]:
    """One sample (0-based) of one item, graded, with the raw completion. Never raises for the model's silence."""
    key = turn_key(conversation_name(item), sample + 1)
    generation = dataclasses.replace(settings.generation(sample), reasoning_tokens=reasoning_tokens)
    completion = backend.chat(template.messages(item), key=key, settings=generation)
    return grade(item, sample, key, completion), completion


def run_review(
    backend: ModelBackend,
    items: Sequence[ReviewItem],
    settings: ReviewSettings,
    template: PromptTemplate,
    on_answer: OnAnswer | None = None,
    prior: PriorAnswers | None = None,
    on_asked: OnAsked | None = None,
    reasoning_tokens: int = REASONING_TOKENS,
) -> ReviewResult:
    """Every item, `settings.samples` times: sample 1 of every item first, then sample 2, ...

    Answers in `prior` are reused, not asked again; `on_asked` sees each one that is asked.
    """
    started = (prior and prior.started_at) or utc_now(REVIEW_TIMESPEC)
    answers = []
    model_info: dict = dict(prior.model_info) if prior else {}
    recorded = prior.answers if prior else {}
    thinking = {"answers_asked": 0, "with_reasoning": 0, "reasoning_tokens": 0, "runaway_reasoning": 0}
    # Samples outermost: every item gets its first answer before any item gets its second.
    # A resumed review keeps this order (reused answers in place), so its answers.jsonl is the same.
    for sample in range(settings.samples):
        for item in items:
            answer = recorded.get((item.id, sample))
            if answer is None:
                answer, completion = ask(backend, item, sample, settings, template, reasoning_tokens)
                if not model_info and completion.model_info:
                    model_info = dict(completion.model_info)
                _count_reasoning(thinking, answer, completion)
                if on_asked is not None:
                    on_asked(answer, model_info)
            answers.append(answer)
            if on_answer is not None:
                on_answer(answer)
    return ReviewResult(
        backend=backend.identity,
        settings=settings,
        items=tuple(items),
        answers=tuple(answers),
        metrics=compute_metrics(items, answers),
        started_at=started,
        finished_at=utc_now(REVIEW_TIMESPEC),
        model_info={**model_info, "reasoning": thinking} if thinking["with_reasoning"] else model_info,
    )


def _count_reasoning(thinking: dict, answer: ItemAnswer, completion: Completion) -> None:
    thinking["answers_asked"] += 1
    thinking["with_reasoning"] += bool(completion.reasoning)
    thinking["reasoning_tokens"] += completion.reasoning_tokens
    thinking["runaway_reasoning"] += answer.capture_reason == "runaway_reasoning"
