"""Seeded small data sets the claim-review items run on, and the item bank built from them.

Every item of the claim-versus-code benchmark that has executable ground
truth names a fixture; its code runs in a namespace holding the variables
that fixture returns (as if an earlier notebook cell had loaded them). Each
fixture is built so that the flaw its items can hide has a visible effect.
The data are small (hundreds of rows) so that every fixture runs in seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from generators.errors import GeneratorError
from generators.review_data import series, tabular, text

Fixture = Callable[[int], dict[str, object]]

FIXTURES: Mapping[str, Fixture] = {**tabular.FIXTURES, **series.FIXTURES, **text.FIXTURES}
DOMAINS: Mapping[str, str] = {
    **{name: "tabular" for name in tabular.FIXTURES},
    **{name: "time_series" for name in series.FIXTURES},
    **{name: "text" for name in text.FIXTURES},
}


class UnknownFixture(GeneratorError):
    """An item names a fixture this package does not provide."""


def fixture_names() -> tuple[str, ...]:
    return tuple(FIXTURES)


def build_fixture(name: str, seed: int) -> dict[str, object]:
    """The variables an item's code expects, freshly generated for `seed`."""
    try:
        make = FIXTURES[name]
    except KeyError:
        raise UnknownFixture(f"no review fixture named {name!r}; known: {', '.join(FIXTURES)}") from None
    return make(seed)
