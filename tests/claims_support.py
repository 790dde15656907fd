"""Reading docs/claims.md and judging the tests it names, without importing or running them.

A named test is read from its file with ast (a module-level `def test_...` or one in a `class Test...`), so
the check costs milliseconds and sees exactly what pytest would collect by that name. Its marks are the
decorators on it and on its class and the module's `pytestmark`; the suite's default options are `addopts` in
pyproject.toml, whose `-m`, `-k`, `--deselect` and `--ignore` decide whether the test runs in a plain `pytest`.
"""

from __future__ import annotations

import ast
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

from _pytest.mark.expression import Expression

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "docs" / "claims.md"

# A table row: | id | claim | tests |, the tests as backticked node ids.
ROW = re.compile(r"^\| (?P<id>[a-z0-9]+-\d+) \| (?P<claim>.+?) \| (?P<tests>.+) \|$")
NODE_ID = re.compile(r"`(tests/[\w/]+\.py::[\w:\[\]\-.]+)`")
# Marks that keep a test from running or from counting when it fails.
NOT_RUN_MARKS = frozenset({"skip", "skipif", "xfail"})
NOT_RUN_CALLS = frozenset({"skip", "xfail", "importorskip"})


@dataclass(frozen=True)
class Claim:
    id: str
    text: str
    node_ids: tuple[str, ...]


@dataclass(frozen=True)
class FoundTest:
    """What a named test is, read from its source."""

    node_id: str
    marks: frozenset[str]
    calls_skip: bool


def read_claims(text: str) -> list[Claim]:
    claims = []
    for line in text.splitlines():
        if (row := ROW.match(line)) is not None:
            claims.append(Claim(row["id"], row["claim"], tuple(NODE_ID.findall(row["tests"]))))
    return claims


def _mark_names(decorators: list[ast.expr]) -> set[str]:
    """`pytest.mark.NAME` and `pytest.mark.NAME(...)`, as NAME."""
    names = set()
    for decorator in decorators:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute):
            if target.value.attr == "mark":
                names.add(target.attr)
    return names


def _module_marks(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            value = node.value
            return _mark_names(list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [value])
    return set()


def _calls_skip(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "pytest" and node.func.attr in NOT_RUN_CALLS:
                return True
    return False


def find_test(root: Path, node_id: str) -> FoundTest | None:
    """The test a node id names, or None where its file or its function is not there."""
    path, _, rest = node_id.partition("::")
    names = rest.split("[", 1)[0].split("::")  # a parametrized id names its function
    source = root / path
    if not source.is_file():
        return None
    tree = ast.parse(source.read_text(), filename=str(source))
    marks = _module_marks(tree)
    scope: list[ast.stmt] = tree.body
    for name in names[:-1]:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == name), None)
        if cls is None:
            return None
        marks |= _mark_names(cls.decorator_list)
        scope = cls.body
    function = next(
        (n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == names[-1]), None
    )
    if function is None or not function.name.startswith("test"):
        return None
    marks |= _mark_names(function.decorator_list)
    return FoundTest(node_id, frozenset(marks), _calls_skip(function))


def default_addopts(root: Path) -> list[str]:
    config = tomllib.loads((root / "pyproject.toml").read_text())
    addopts = config["tool"]["pytest"]["ini_options"].get("addopts", "")
    return shlex.split(addopts) if isinstance(addopts, str) else list(addopts)


def _option_values(args: list[str], *names: str) -> list[str]:
    """Every value given to one of the options `names` (`-m X`, `-mX`, `--deselect=X`)."""
    values = []
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                values.append(args[i + 1])
            elif arg.startswith(name + "=") and name.startswith("--"):
                values.append(arg[len(name) + 1 :])
            elif arg.startswith(name) and len(name) == 2 and len(arg) > 2:
                values.append(arg[2:])
    return values


def deselected_by(test: FoundTest, args: list[str]) -> str | None:
    """The option among `args` that keeps `test` out of a plain `pytest` run, or None where it runs."""
    path, _, rest = test.node_id.partition("::")
    # -k matches names case-insensitively as substrings: the file, its classes and function, and the marks.
    keywords = [Path(path).name, *rest.split("::"), *test.marks]

    def marked(name: str, /, **_: str | int | bool | None) -> bool:
        return name in test.marks

    def named(name: str, /, **_: str | int | bool | None) -> bool:
        return any(name.lower() in keyword.lower() for keyword in keywords)

    for expression in _option_values(args, "-m"):
        if not Expression.compile(expression).evaluate(marked):
            return f"-m {expression!r}"
    for expression in _option_values(args, "-k"):
        if not Expression.compile(expression).evaluate(named):
            return f"-k {expression!r}"
    for deselected in _option_values(args, "--deselect"):
        if test.node_id == deselected or test.node_id.startswith(deselected + "["):
            return f"--deselect {deselected}"
    for ignored in _option_values(args, "--ignore"):
        if Path(path) == Path(ignored) or Path(ignored) in Path(path).parents:
            return f"--ignore {ignored}"
    return None


def problems(root: Path, claims: list[Claim], args: list[str]) -> list[str]:
    """Why each named test would not prove its claim in a plain `pytest`: missing, skipped or deselected."""
    found = []
    for claim in claims:
        if not claim.node_ids:
            found.append(f"{claim.id}: names no test")
        for node_id in claim.node_ids:
            test = find_test(root, node_id)
            if test is None:
                found.append(f"{claim.id}: {node_id} does not exist")
                continue
            if marks := sorted(test.marks & NOT_RUN_MARKS):
                found.append(f"{claim.id}: {node_id} is marked {', '.join(marks)}")
            if test.calls_skip:
                found.append(f"{claim.id}: {node_id} calls pytest.skip, xfail or importorskip")
            if (option := deselected_by(test, args)) is not None:
                found.append(f"{claim.id}: {node_id} is deselected by addopts {option}")
    return found


def bullets_between(text: str, start: str, end: str) -> int:
    """How many list items (lines opening with '- ') lie between the line `start` and the next line `end` matches."""
    lines = text.splitlines()
    first = lines.index(start)
    last = next(i for i in range(first + 1, len(lines)) if re.match(end, lines[i]))
    return sum(1 for line in lines[first + 1 : last] if line.startswith("- "))
