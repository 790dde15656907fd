"""docs/claims.md: every claim of the README and of docs/sandbox.md names tests that exist and run by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from claims_support import (
    CLAIMS,
    ROOT,
    Claim,
    bullets_between,
    default_addopts,
    find_test,
    problems,
    read_claims,
)

# Each list of promises, where it is (a file, the line that opens it, a pattern of the line after it), and the id
# prefix its rows carry: row N proves bullet N, so a bullet added without a row fails.
PROMISE_LISTS = (
    ("what", "README.md", "## What bakeoff is", "## "),
    ("cannot", "docs/sandbox.md", "It cannot", r"It can, and these limits remain"),
    ("round2", "docs/sandbox.md", "Added by the second review (issue 23; the row numbers are the issue's):", "Added by"),
    ("round3", "docs/sandbox.md", "Added by the third review (issue 32; the row numbers are the issue's):", "## "),
    ("gguf", "docs/sandbox.md", "A model file is untrusted too: its header is parsed by bakeoff, its chat template is "
     "code (Jinja2).", r"It can$"),
    ("batch", "docs/sandbox.md", "run folder, another user) may have changed it. As of this round:", "What a hostile plan"),
)


@pytest.fixture(scope="module")
def claims() -> list[Claim]:
    return read_claims(CLAIMS.read_text())


def test_every_named_test_exists_carries_no_skip_and_runs_under_the_default_options(claims):
    assert len(claims) >= 30 and sum(len(claim.node_ids) for claim in claims) >= 100
    assert problems(ROOT, claims, default_addopts(ROOT)) == []


@pytest.mark.parametrize(("prefix", "document", "start", "end"), PROMISE_LISTS, ids=[p[0] for p in PROMISE_LISTS])
def test_every_promise_of_each_list_has_its_row(claims, prefix, document, start, end):
    promised = bullets_between((ROOT / document).read_text(), start, end)
    rows = [claim.id for claim in claims if claim.id.startswith(prefix + "-")]
    assert promised > 0 and rows == [f"{prefix}-{n}" for n in range(1, promised + 1)]


def test_the_calibration_checks_and_the_plans_have_rows(claims):
    ids = {claim.id for claim in claims}
    assert {"cal-1", "cal-2", "cal-3", "cal-4", "cal-5", "plan-1"} <= ids
    assert len(ids) == len(claims), "an id is used twice"


def test_the_readme_links_the_table():
    assert "(docs/claims.md)" in (ROOT / "README.md").read_text()


# The checker itself, on a planted tests folder: each way a named test can fail to prove its claim is named.
PLANTED = '''
import pytest

pytestmark = pytest.mark.slow


def test_plain():
    pass


@pytest.mark.docker
@pytest.mark.parametrize("x", [1, 2])
def test_in_docker(x):
    pass


@pytest.mark.skip(reason="planted")
def test_skipped():
    pass


@pytest.mark.xfail
def test_expected_to_fail():
    pass


def test_skips_itself():
    pytest.skip("planted")


class TestGroup:
    def test_in_class(self):
        pass


@pytest.mark.skipif(True, reason="planted")
class TestSkippedGroup:
    def test_in_skipped_class(self):
        pass


def helper_not_a_test():
    pass
'''


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_planted.py").write_text(PLANTED)
    return tmp_path


def _claim(*names: str) -> list[Claim]:
    return [Claim("x-1", "planted", tuple(f"tests/test_planted.py::{name}" for name in names))]


def test_the_checker_passes_tests_that_exist_and_run(planted):
    named = _claim("test_plain", "test_in_docker", "test_in_docker[1]", "TestGroup::test_in_class")
    assert problems(planted, named, ["-ra", "-n", "2"]) == []
    assert find_test(planted, "tests/test_planted.py::test_in_docker").marks == {"slow", "docker", "parametrize"}


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("test_missing", "does not exist"),
        ("helper_not_a_test", "does not exist"),
        ("TestGroup::test_missing", "does not exist"),
        ("test_skipped", "is marked skip"),
        ("test_expected_to_fail", "is marked xfail"),
        ("TestSkippedGroup::test_in_skipped_class", "is marked skipif"),
        ("test_skips_itself", "calls pytest.skip"),
    ],
)
def test_the_checker_names_a_missing_or_skipped_test(planted, name, why):
    [problem] = problems(planted, _claim(name), [])
    assert why in problem and name in problem


@pytest.mark.parametrize(
    ("addopts", "deselected", "kept"),
    [
        (["-m", "not docker"], "test_in_docker", "test_plain"),
        (["-mnot docker"], "test_in_docker[2]", "TestGroup::test_in_class"),
        (["-m", "not slow"], "test_plain", None),
        (["-k", "not group"], "TestGroup::test_in_class", "test_plain"),
        (["--deselect", "tests/test_planted.py::test_plain"], "test_plain", "test_in_docker"),
        (["--deselect=tests/test_planted.py::test_in_docker"], "test_in_docker[1]", "test_plain"),
        (["--ignore", "tests/test_planted.py"], "test_plain", None),
    ],
)
def test_the_checker_names_a_test_the_default_options_deselect(planted, addopts, deselected, kept):
    [problem] = problems(planted, _claim(deselected), addopts)
    assert "deselected by addopts" in problem
    if kept is not None:
        assert problems(planted, _claim(kept), addopts) == []


def test_a_row_without_a_test_is_named():
    assert problems(ROOT, [Claim("x-1", "nothing", ())], []) == ["x-1: names no test"]
