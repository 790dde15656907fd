"""The layers of bakeoff/ as a test: no import circle between modules, no import that runs up the layer order
(docs/tasks.md, "Layers"), no task's words in the task-neutral core, and no record read as a dict outside
the typed readers.

Imports are read from the code (ast) wherever they stand, inside functions too; an import under
`if TYPE_CHECKING:` is an annotation only and never runs, so it is left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bakeoff"

# Lowest first; a module may import its own layer (no circle) and the layers below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("bakeoff", "bakeoff.errors", "bakeoff.textsafe"),
    ("bakeoff.models",),
    ("bakeoff.records",),
    ("bakeoff.answers", "bakeoff.grading", "bakeoff.preflight"),
    ("bakeoff.batchfolder",),
    ("bakeoff.taskapi",),
    ("bakeoff.runner", "bakeoff.review"),
    ("bakeoff.analysis",),
    ("bakeoff.report",),
    ("bakeoff.export",),
    ("bakeoff.tasks",),
    ("bakeoff.cli",),
)
# The task-neutral core: no task's words in these folders (bakeoff/tasks/<task>/ holds them).
CORE = ("records", "runner", "report", "export", "analysis", "taskapi")
TASK_WORDS = re.compile(r"\bf1\b|train_output|training_completed|prediction_completed|holdout_predictions|smoke",
                        re.IGNORECASE)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes that stand under `if TYPE_CHECKING:`."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return skipped


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of bakeoff/ that `path` imports when it runs (a name imported from a package that is one of
    its modules counts as that module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{alias.name}" for alias in node.names} & known
            found.update(subs or {node.module})
    return {name for name in found if name in known}


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(path, known) - {name} for name, path in found.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str) -> int:
    best, depth = -1, -1
    for number, layer in enumerate(LAYERS):
        for prefix in layer:
            if (module == prefix or module.startswith(prefix + ".")) and prefix.count(".") > depth:
                best, depth = number, prefix.count(".")
    return best


def test_every_module_has_a_layer():
    assert [name for name in modules() if layer_of(name) < 0] == []


def test_no_module_imports_another_that_imports_it_back():
    assert circles(graph()) == []


def test_no_import_runs_up_the_layers():
    upward = [f"{name} -> {target}" for name, targets in graph().items() for target in sorted(targets)
              if layer_of(target) > layer_of(name)]
    assert upward == []


def test_the_scan_finds_the_circles_and_the_upward_imports_it_should(tmp_path):
    """Shown to fail: a circle through a function-level import, and an import of a higher layer."""
    edges = {"bakeoff.models.engine": {"bakeoff.models.engine_child"},
             "bakeoff.models.engine_child": {"bakeoff.models.engine"}, "bakeoff.runner.run": set()}
    assert circles(edges) == [["bakeoff.models.engine", "bakeoff.models.engine_child"]]
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bakeoff.tasks import x\n"
                      "def f():\n    from bakeoff.tasks.registry import task_plugin\n", encoding="utf-8")
    assert imports_of(module, {"bakeoff.tasks", "bakeoff.tasks.registry"}) == {"bakeoff.tasks.registry"}
    assert layer_of("bakeoff.tasks.registry") > layer_of("bakeoff.runner.batch")


@pytest.mark.parametrize("folder", CORE)
def test_no_task_word_in_the_core(folder):
    offenders = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if TASK_WORDS.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_word_scan_finds_the_old_words():
    for line in ("f1=check.f1", "check.train_output", '"training_completed"', "holdout_predictions.csv", "smoke_rows"):
        assert TASK_WORDS.search(line), line
    assert not TASK_WORDS.search("headline.value, visible_output, Rung.VISIBLE_STEP_RAN")


# A record or a grader's output is read through its typed class (bakeoff.records, the task's own readers),
# never as a dict with string keys. These read JSON that has no typed class yet, by design: the review
# benchmark's summary and answers (review.json, answers.jsonl) and the environment.
DICT_READERS_ALLOWED = {"bakeoff/report/review.py", "bakeoff/report/transcript_review.py"}
DICT_SCAN = ("analysis", "report")


def string_key_gets(path: Path, root: Path = ROOT) -> list[str]:
    """Every `x.get("key", ...)` with a string literal key (os.environ's excepted), as `file:line: call`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                and ast.unparse(node.func.value) != "os.environ"):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("folder", DICT_SCAN)
def test_records_are_read_through_their_classes_not_as_dicts(folder):
    offenders = [hit for path in sorted((PACKAGE / folder).rglob("*.py"))
                 if path.relative_to(ROOT).as_posix() not in DICT_READERS_ALLOWED for hit in string_key_gets(path)]
    assert offenders == []


def test_the_dict_scan_finds_a_key_read_from_a_record(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\ndef f(record, stages, key):\n    os.environ.get('PATH')\n    stages.get(key)\n"
                      "    return record.get('outcome', {}).get('f1')\n", encoding="utf-8")
    hits = sorted(line.split(": ", 1)[1] for line in string_key_gets(module, tmp_path))
    assert hits == ["record.get('outcome', {})", "record.get('outcome', {}).get('f1')"]
