"""Subjects and bodies: rendered pools of text pieces, assembled per message with numpy.

Rendering every message with Python string formatting would dominate the
generation time. Instead each (style, part) gets a pool of pre-rendered pieces
(a few thousand strings), and a message is a row of pool indices; assembling
the corpus is a handful of vectorised concatenations of object arrays.

Difficulty: every piece of a message (subject, greeting, each sentence,
sign-off) is written in its own class's voice, except that with probability
`contamination` it is written in the other class's voice. A bag-of-words model
therefore sees a noisy count of spam-voiced pieces; the more contamination,
the more spam and ham messages read alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generators.spam_classifier import templates
from generators.spam_classifier import vocabulary as v

POOL_SIZES = {"subject": 4000, "greeting": 800, "sentence": 9000, "signoff": 800}
NEUTRAL_POOL_SIZE = 1500
MIN_SENTENCES = 1
MAX_SENTENCES = 5
NEUTRAL_SENTENCE_CHANCE = 0.5


def _title(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(word.capitalize() for word in items)


def _numbers(low: int, high: int, fmt: str = "{}") -> tuple[str, ...]:
    return tuple(fmt.format(n) for n in range(low, high))


def slot_values() -> dict[str, tuple[str, ...]]:
    """What each template slot may be filled with."""
    first = _title(v.words(v.FIRST_NAMES))
    hnoun = v.words(v.HAM_NOUNS)
    snoun = v.words(v.SPAM_NOUNS)
    return {
        "first": first,
        "first2": first,
        "last": _title(v.words(v.LAST_NAMES)),
        "city": _title(v.words(v.CITIES)),
        "day": _title(v.words(v.DAYS)),
        "month": _title(v.words(v.MONTHS)),
        "time": v.words(v.WEEKDAY_TIMES),
        "num": _numbers(2, 60),
        "num2": _numbers(1, 5),
        "pct": _numbers(10, 95, "{}%"),
        "money": _numbers(20, 2000, "${}") + _numbers(1, 50, "${},000"),
        "company": v.compounds(v.COMPANY_PREFIXES, v.COMPANY_SUFFIXES),
        "brand": v.compounds(v.BRAND_PREFIXES, v.BRAND_SUFFIXES),
        "hnoun": hnoun,
        "hnoun2": hnoun,
        "hverb": v.words(v.HAM_VERBS),
        "hadj": v.words(v.HAM_ADJECTIVES),
        "hplace": v.words(v.HAM_PLACES),
        "hleisure": v.words(v.HAM_LEISURE),
        "hfood": v.words(v.HAM_FOOD),
        "hteam": _title(v.words(v.HAM_TEAMS)),
        "snoun": snoun,
        "snoun2": snoun,
        "sverb": v.words(v.SPAM_VERBS),
        "sadj": v.words(v.SPAM_ADJECTIVES),
        "surg": v.words(v.SPAM_URGENCY),
    }


def _capitalise_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def render_pool(patterns: tuple[str, ...], size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` pieces, each a random template with random slot values (object array of str)."""
    values = slot_values()
    chosen = rng.integers(0, len(patterns), size)
    # One column of random picks per slot; a template reads only the slots it names.
    picks = {name: rng.integers(0, len(options), size) for name, options in values.items()}
    pool = np.empty(size, dtype=object)
    for row in range(size):
        fill = {name: values[name][picks[name][row]] for name in values}
        pool[row] = _capitalise_first(patterns[chosen[row]].format_map(fill))
    return pool


@dataclass(frozen=True)
class TextPools:
    """Pre-rendered pieces per (style, part); style 0 is ham, 1 is spam."""

    pieces: dict[tuple[int, str], np.ndarray]
    neutral: np.ndarray

    @classmethod
    def render(cls, rng: np.random.Generator) -> TextPools:
        pieces = {}
        for style, style_name in ((0, "ham"), (1, "spam")):
            for part in templates.PARTS:
                pieces[(style, part)] = render_pool(templates.TEMPLATES[(style_name, part)], POOL_SIZES[part], rng)
        neutral = render_pool(templates.NEUTRAL_SENTENCES, NEUTRAL_POOL_SIZE, rng)
        return cls(pieces=pieces, neutral=neutral)


def _voices(labels: np.ndarray, contamination: float, rng: np.random.Generator) -> np.ndarray:
    """The voice (0 ham, 1 spam) of one piece for every message: its label, crossed at the contamination rate."""
    crossed = rng.random(labels.shape[0]) < contamination
    return np.where(crossed, 1 - labels, labels)


def _draw_pieces(pools: TextPools, part: str, voices: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One piece per message from the pool of its voice."""
    out = np.empty(voices.shape[0], dtype=object)
    for style in (0, 1):
        rows = np.flatnonzero(voices == style)
        pool = pools.pieces[(style, part)]
        out[rows] = pool[rng.integers(0, pool.shape[0], rows.shape[0])]
    return out


def _with_space(pieces: np.ndarray, present: np.ndarray) -> np.ndarray:
    """" piece" where present, "" elsewhere: lets bodies of different lengths share one concatenation."""
    spaced = np.full(pieces.shape[0], "", dtype=object)
    spaced[present] = " " + pieces[present]
    return spaced


def build_messages(
    labels: np.ndarray, contamination: float, pools: TextPools, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Subjects and bodies (object arrays of str) for messages with these clean labels."""
    n: int = labels.shape[0]
    subjects = _draw_pieces(pools, "subject", _voices(labels, contamination, rng), rng)
    # Body pieces side by side, each already carrying its leading space ("" when absent),
    # joined once per message: cheaper than growing every body piece by piece.
    columns = [_draw_pieces(pools, "greeting", _voices(labels, contamination, rng), rng)]
    n_sentences = rng.integers(MIN_SENTENCES, MAX_SENTENCES + 1, n)
    for position in range(MAX_SENTENCES):
        sentence = _draw_pieces(pools, "sentence", _voices(labels, contamination, rng), rng)
        columns.append(_with_space(sentence, n_sentences > position))
    neutral_present = rng.random(n) < NEUTRAL_SENTENCE_CHANCE
    neutral = pools.neutral[rng.integers(0, pools.neutral.shape[0], n)]
    columns.append(_with_space(neutral, neutral_present))
    signoff = _draw_pieces(pools, "signoff", _voices(labels, contamination, rng), rng)
    columns.append(_with_space(signoff, np.ones(n, dtype=bool)))
    bodies = np.empty(n, dtype=object)
    bodies[:] = list(map("".join, zip(*columns, strict=True)))
    return subjects, bodies
