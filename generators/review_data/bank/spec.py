"""One pair template: what the builder needs to make two items."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PairSpec:
    pair_id: str
    family: str  # the flawed twin's family
    fixture: str
    claim: str  # holds @FIG@, where the figure both twins report goes
    ok_code: str
    bad_code: str
    flaw: tuple[str, ...]  # substrings that pick out the flawed twin's flaw lines
    explain_ok: str
    explain_bad: str
    mechanism: dict  # how tests/test_review_mechanisms.py shows the flaw at work
    knobs: tuple[object, ...] = tuple(range(0, 60))
    decimals: int = 2
    extra: dict = field(default_factory=dict)
    template: str = ""  # the idea both twins share, across data sets (the audit holds templates out); default: pair_id's head

    @property
    def template_name(self) -> str:
        return self.template or self.pair_id.split(".")[0]
