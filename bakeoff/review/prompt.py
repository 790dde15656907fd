"""The review prompt: a data file (task_specs/claim_review/prompt.md) filled in per item.

The file holds two sections, `=== system ===` and `=== user ===`; the user
section's `$claim` and `$numbered_code` are substituted. Code lines are
numbered so that the model can name the line it blames.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from bakeoff.models.base import Message
from bakeoff.review.errors import ReviewSettingsInvalid
from bakeoff.review.items import ReviewItem

_SECTION = re.compile(r"^=== (system|user) ===[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class PromptTemplate:
    system: str
    user: str  # a string.Template body with $claim and $numbered_code

    def messages(self, item: ReviewItem) -> tuple[Message, ...]:
        user = Template(self.user).substitute(claim=item.claim, numbered_code=numbered_code(item.code))
        return (Message("system", self.system), Message("user", user))


def default_prompt_path() -> Path:
    import task_specs

    return Path(task_specs.__file__).parent / "claim_review" / "prompt.md"


def numbered_code(code: str) -> str:
    """`code` with right-aligned 1-based line numbers: ' 7 | X = df.drop(...)'."""
    lines = code.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{number:>{width}} | {line}".rstrip() for number, line in enumerate(lines, start=1))


def parse_template(text: str, source: str) -> PromptTemplate:
    parts = _SECTION.split(text)
    # split() yields: [preamble, name, body, name, body, ...]
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if set(sections) != {"system", "user"}:
        raise ReviewSettingsInvalid(f"{source}: a prompt file needs '=== system ===' and '=== user ===' sections")
    for placeholder in ("$claim", "$numbered_code"):
        if placeholder not in sections["user"]:
            raise ReviewSettingsInvalid(f"{source}: the user section lacks {placeholder}")
    return PromptTemplate(system=sections["system"], user=sections["user"])


def load_template(path: Path | None = None) -> PromptTemplate:
    path = Path(path) if path is not None else default_prompt_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReviewSettingsInvalid(f"cannot read prompt file {path}: {exc}") from None
    return parse_template(text, str(path))
