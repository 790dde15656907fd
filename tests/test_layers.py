"""The layers of bakeoff/ as a test: no import circle between modules, no import that runs up the layer order
(docs/tasks.md, "Layers"), no task's words outside bakeoff/tasks/, no agent's names outside bakeoff/scaffolds/,
and no record read as a dict outside the typed readers. Every package under bakeoff/ is scanned.

The last three rules are not met yet everywhere: each has a debt list (layers_debt.py), today's offenders file by
file with their exact counts. The test asserts the list exactly, so a new offence fails, and so does a fixed one
until its line leaves the list: the list can only shrink, and it always says what is left.

Imports are read from the code (ast) wherever they stand, inside functions too; an import under
`if TYPE_CHECKING:` is an annotation only and never runs, so it is left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from layers_debt import AGENT_NAME_DEBT, DICT_READ_DEBT, NOT_RECORD_READS, TASK_WORD_DEBT

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bakeoff"

# Lowest first; a module may import its own layer (no circle) and the layers below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("bakeoff", "bakeoff.errors", "bakeoff.textsafe"),
    ("bakeoff.models",),
    ("bakeoff.records",),
    ("bakeoff.answers", "bakeoff.submission", "bakeoff.preflight"),
    ("bakeoff.batchfolder",),
    ("bakeoff.taskapi",),
    ("bakeoff.runner", "bakeoff.review"),
    ("bakeoff.scaffolds",),
    ("bakeoff.analysis",),
    ("bakeoff.report",),
    ("bakeoff.export",),
    ("bakeoff.tasks",),
    ("bakeoff.cli",),
)
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


def imports_of(path: Path, known: set[str], type_only: bool = False) -> set[str]:
    """The modules of bakeoff/ that `path` imports when it runs (a name imported from a package that is one of
    its modules counts as that module); with `type_only`, those it imports for its annotations alone too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set() if type_only else _type_checking_only(tree)
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


def graph(type_only: bool = False) -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(path, known, type_only) - {name} for name, path in found.items()}


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


def test_no_circle_even_through_imports_for_annotations_alone():
    """Two modules that name each other only in annotations are still one design knotted in two files."""
    assert circles(graph(type_only=True)) == []


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


# --- the rules with a debt list (layers_debt.py) -----------------------------------------------------------------

TASKS, SCAFFOLDS = "bakeoff/tasks/", "bakeoff/scaffolds/"


def python_files(root: Path, outside: tuple[str, ...] = ()) -> dict[str, Path]:
    """name -> path of every module under root/bakeoff/ (names relative to `root`), those whose name starts with
    one of `outside` (a folder such as bakeoff/tasks/, or one module) left out."""
    found = {path.relative_to(root).as_posix(): path for path in sorted((root / "bakeoff").rglob("*.py"))}
    return {name: path for name, path in found.items() if not name.startswith(outside)}


def lines_matching(pattern: re.Pattern[str], files: dict[str, Path]) -> dict[str, int]:
    """file -> how many of its lines `pattern` finds something on (comments and docstrings too: the words a page
    shows and a reader reads are the same words)."""
    counts = {name: sum(1 for line in path.read_text(encoding="utf-8").splitlines() if pattern.search(line))
              for name, path in files.items()}
    return {name: count for name, count in counts.items() if count}


def against_the_debt(found: dict[str, int], debt: dict[str, int]) -> str:
    """How today's offences differ from the debt list, said so that either can be corrected."""
    grown = {name: count for name, count in found.items() if count > debt.get(name, 0)}
    shrunk = {name: found.get(name, 0) for name, count in debt.items() if found.get(name, 0) < count}
    return (f"new offences (fix them; the debt list only shrinks): {grown}\n"
            f"paid off (lower these counts in tests/layers_debt.py, 0: remove the line): {shrunk}")


def _planted(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_debt_list_fails_on_a_new_offence_and_on_a_paid_off_one():
    debt = {"bakeoff/runner/a.py": 2}
    assert against_the_debt({"bakeoff/runner/a.py": 2}, debt).count("{}") == 2
    assert "new offences (fix them; the debt list only shrinks): {'bakeoff/runner/b.py': 1}" in against_the_debt(
        {"bakeoff/runner/a.py": 2, "bakeoff/runner/b.py": 1}, debt)
    assert "remove the line): {'bakeoff/runner/a.py': 1}" in against_the_debt({"bakeoff/runner/a.py": 1}, debt)


# Task words: nothing outside bakeoff/tasks/ speaks a registered task's words.

# The spam take-home's words of old, which no task declares any more.
TASK_WORDS_OF_OLD = frozenset({"holdout_predictions", "smoke"})
# A word a task declares that is also the core's own English: "effect" is a repair turn's (RepairEffect).
NEUTRAL_ENGLISH = frozenset({"effect"})
# Where a task's words are the subject: the first record schema was the spam take-home's, and its upgrade
# reads those fields by name.
TASK_WORDS_ALLOWED = ("bakeoff/batchfolder/upgrade.py",)


def registered_task_words() -> frozenset[str]:
    """The words every registered task declares, read from the registry: its name, its script, its generator,
    its headline's name and label, and its pages' words (rungs, claim, visible output, claim sources)."""
    from bakeoff.tasks.registry import task_names, task_plugin

    words = set(TASK_WORDS_OF_OLD)
    for name in task_names():
        task = task_plugin(name)
        words |= {task.name, task.script, task.generator, task.headline.name, task.headline.label,
                  task.words.claim, task.words.visible_output}
        words |= set(task.words.rungs.values()) | set(task.words.sources.values())
    return frozenset(word for word in words if word) - NEUTRAL_ENGLISH


def task_word_pattern(words: frozenset[str]) -> re.Pattern[str]:
    """Each word whole, in any case: `spam` is not in `spammy`, `f1` not in `claimed_f1`; `smoke` stays a prefix
    (`smoke_rows`), as the old rule had it."""
    whole = [rf"(?<!\w){re.escape(word)}(?!\w)" for word in sorted(words - {"smoke"}, key=len, reverse=True)]
    return re.compile("|".join(whole + [r"\bsmoke"] * ("smoke" in words)), re.IGNORECASE)


def task_word_offences(root: Path = ROOT) -> dict[str, int]:
    return lines_matching(task_word_pattern(registered_task_words()),
                          python_files(root, outside=(TASKS, *TASK_WORDS_ALLOWED)))


def test_the_task_words_come_from_every_registered_task():
    from bakeoff.tasks.registry import task_names, task_plugin

    words = registered_task_words()
    assert all({task_plugin(name).name, task_plugin(name).script} <= words for name in task_names())
    assert {"spam_classifier", "predict.py", "f1", "training_completed", "train_output", "ab_test", "analyze.py",
            "winkler", "simulation", "simulate.py", "relative Winkler score", "smoke"} <= words


def test_no_task_word_outside_the_tasks():
    found = task_word_offences()
    assert found == TASK_WORD_DEBT, against_the_debt(found, TASK_WORD_DEBT)


def test_the_word_scan_finds_a_task_word_planted_in_the_core(tmp_path):
    pattern = task_word_pattern(registered_task_words())
    for line in ("f1=check.f1", "check.train_output", '"training_completed"', "holdout_predictions.csv", "smoke_rows",
                 "python predict.py", 'task = "simulation"', "the Winkler score", "ab_test's probe", "F1"):
        assert pattern.search(line), line
    for line in ("headline.value, visible_output, Rung.VISIBLE_STEP_RAN", "claimed_f1", "a repair turn's effect",
                 "spammy", "simulations"):
        assert not pattern.search(line), line
    _planted(tmp_path, "bakeoff/runner/new.py", 'TASK = "spam_classifier"  # the spam corpus\nx = 1\n')
    _planted(tmp_path, "bakeoff/tasks/spam_classifier/new.py", 'TASK = "spam_classifier"\n')  # a task's own folder
    _planted(tmp_path, "bakeoff/batchfolder/upgrade.py", 'V1 = "f1"\n')
    assert task_word_offences(tmp_path) == {"bakeoff/runner/new.py": 1}


# Agent names: nothing outside bakeoff/scaffolds/ names the agent scaffold or its records.

AGENT_NAMES = re.compile(r"agent|StepRecord", re.IGNORECASE)  # Agent, AGENT, AgentLoop, agent_batch, Stage.AGENT...


def agent_name_offences(root: Path = ROOT) -> dict[str, int]:
    return lines_matching(AGENT_NAMES, python_files(root, outside=(SCAFFOLDS,)))


def test_no_agent_name_outside_the_scaffolds():
    found = agent_name_offences()
    assert found == AGENT_NAME_DEBT, against_the_debt(found, AGENT_NAME_DEBT)


def test_the_agent_scan_finds_an_agent_name_planted_outside_the_scaffolds(tmp_path):
    for line in ("Stage.AGENT", "from bakeoff.records import StepRecord", "AgentLoop(settings)", "an agent's step",
                 "agent_batch"):
        assert AGENT_NAMES.search(line), line
    assert not AGENT_NAMES.search("the staged scaffold's stages (StageRecord)")
    _planted(tmp_path, "bakeoff/report/new.py", "if stage == Stage.AGENT:\n    pass\n")
    _planted(tmp_path, "bakeoff/scaffolds/agent/loop.py", "class AgentLoop:\n    pass\n")
    assert agent_name_offences(tmp_path) == {"bakeoff/report/new.py": 1}


# Records read as dicts: a record or a grader's output is read through its typed class, never with string keys,
# except by the decoders that build those classes from JSON: the record library, and the upgrade of old
# records (it rewrites an old version's JSON before the record library reads it).
DECODERS = ("bakeoff/records/", "bakeoff/batchfolder/upgrade.py", "bakeoff/review/records.py",
            "bakeoff/taskapi/grade.py")


def string_key_gets(path: Path, root: Path = ROOT) -> list[str]:
    """Every `x.get("key", ...)` with a string literal key (os.environ's excepted), as `file:line: call`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                and ast.unparse(node.func.value) != "os.environ"):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def dict_read_offences(root: Path = ROOT) -> dict[str, int]:
    counts = {name: len(string_key_gets(path, root)) for name, path in python_files(root, outside=DECODERS).items()}
    return {name: count for name, count in counts.items() if count}


def test_records_are_read_through_their_classes_not_as_dicts():
    found = dict_read_offences()
    for name, (count, _why) in NOT_RECORD_READS.items():
        assert found.get(name) == count, (name, found.get(name), "reads of other mappings changed: look again")
        del found[name]
    assert found == DICT_READ_DEBT, against_the_debt(found, DICT_READ_DEBT)


def test_the_dict_scan_finds_a_key_read_from_a_record(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\ndef f(record, stages, key):\n    os.environ.get('PATH')\n    stages.get(key)\n"
                      "    return record.get('outcome', {}).get('f1')\n", encoding="utf-8")
    hits = sorted(line.split(": ", 1)[1] for line in string_key_gets(module, tmp_path))
    assert hits == ["record.get('outcome', {})", "record.get('outcome', {}).get('f1')"]
    _planted(tmp_path, "bakeoff/tasks/ab_test/new.py", "def f(grade):\n    return grade.get('winkler')\n")
    _planted(tmp_path, "bakeoff/records/run.py", "def from_json(data):\n    return data.get('outcome')\n")
    assert dict_read_offences(tmp_path) == {"bakeoff/tasks/ab_test/new.py": 1}
