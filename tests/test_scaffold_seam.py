"""The scaffold seam (issue 33): what every scaffold shares is defined once (bakeoff.runner.scaffold_kit), and no
module outside bakeoff/scaffolds/ (and the tasks) names the agent: what the core needs of a scaffold it asks of
the scaffold (its stages, `code_stage`, `step_stage`, `tools`). tests/test_third_scaffold.py runs a scaffold
written in a test through the whole core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bakeoff.records import (
    Attribution,
    Commit,
    CrashClass,
    LadderCheck,
    LadderStatus,
    Rung,
    Stage,
    StageRecord,
    Timings,
)
from bakeoff.runner.scaffold_kit import DISK_FULL, NO_CHECK, final_check
from bakeoff.scaffolds.registry import scaffold_plugin

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bakeoff"
OWN_FOLDERS = ("scaffolds", "tasks")  # where a scaffold, or a task that says which scaffolds it takes, is named


def _check(rung: Rung, status: LadderStatus, **fields) -> LadderCheck:
    return LadderCheck(rung, status, None, None, **fields)


def _record(stage: Stage, index: int, check: LadderCheck | None, reason: str | None = None) -> StageRecord:
    return StageRecord("m-r01", stage, index, Attribution.OK, Commit("", "", ""), Timings("", ""),
                       attribution_reason=reason, check=check)


def test_the_final_check_is_the_disk_filling_stages_else_the_last_one_recorded():
    crashed = _check(Rung.INSTALLED, LadderStatus.CRASHED)
    scored = _check(Rung(5), LadderStatus.SCORED)
    full = _check(Rung.NOTHING, LadderStatus.CRASHED, crash_class=CrashClass.DISK_FULL)
    staged = {"explore": _record(Stage.EXPLORE, 1, None), "implement": _record(Stage.IMPLEMENT, 3, crashed),
              "repair": _record(Stage.REPAIR, 4, scored), "docs": _record(Stage.DOCS, 6, None)}
    assert final_check(staged) is scored
    assert final_check({"implement": _record(Stage.IMPLEMENT, 3, full, DISK_FULL),
                        "repair": _record(Stage.REPAIR, 4, scored)}) is full
    assert final_check({"explore": _record(Stage.EXPLORE, 1, None)}) is NO_CHECK


def _definitions(name: str) -> list[str]:
    return [f"{path.relative_to(ROOT)}" for path in sorted(PACKAGE.rglob("*.py"))
            for node in ast.parse(path.read_text(encoding="utf-8")).body  # a module's functions (not a check's method)
            if isinstance(node, ast.FunctionDef) and node.name == name]


def test_the_machinery_every_scaffold_shares_is_defined_once():
    for name in ("make_evaluate", "ladder_check", "find_claim"):
        assert _definitions(name) == ["bakeoff/runner/scaffold_kit.py"], name
    assert _definitions("final_check") == ["bakeoff/records/stage.py"]  # below the runner and the tasks' reports
    assert len([p for p in PACKAGE.rglob("*.py") if "class StageOutcome" in p.read_text(encoding="utf-8")]) == 1


def agent_names(text: str) -> list[str]:
    """What in a module's code names the agent scaffold: its package, its stage, or a scaffold's name compared
    (`scaffold != "staged"` read as the agent, `stage == "agent"`)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bakeoff.scaffolds.agent"):
            found.append(f"imports {node.module}")
        elif isinstance(node, ast.Attribute) and ast.unparse(node) == "Stage.AGENT":
            found.append("Stage.AGENT")
        elif isinstance(node, ast.Name) and node.id == "AGENT_STAGE_NAMES":
            found.append("AGENT_STAGE_NAMES")
        elif isinstance(node, ast.Compare) and any(isinstance(part, ast.Constant) and part.value in ("agent", "staged")
                                                   for part in (node.left, *node.comparators)):
            found.append(ast.unparse(node))
    return found


def test_no_module_outside_the_scaffolds_names_the_agent():
    offenders = [f"{path.relative_to(ROOT)}: {hit}" for path in sorted(PACKAGE.rglob("*.py"))
                 if path.relative_to(PACKAGE).parts[0] not in OWN_FOLDERS
                 for hit in agent_names(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_scan_finds_the_agent_where_it_is_named():
    text = ("from bakeoff.scaffolds.agent.conversation import call_id\n"
            "def f(run, name):\n    if name == Stage.AGENT or run.scaffold != 'staged':\n        return AGENT_STAGE_NAMES\n")
    assert sorted(agent_names(text)) == sorted(["imports bakeoff.scaffolds.agent.conversation", "Stage.AGENT",
                                                "run.scaffold != 'staged'", "AGENT_STAGE_NAMES"])
    assert agent_names("names = scaffold.stages\nif name == scaffold.step_stage:\n    pass\n") == []


def test_what_the_core_needs_of_a_scaffold_it_asks_of_the_scaffold():
    staged, agent = scaffold_plugin("staged"), scaffold_plugin("agent")
    assert staged.stage_of_code() == "implement" and staged.step_stage is None and staged.tools == ()
    assert agent.stage_of_code() == "agent" == agent.step_stage and agent.stages == ("agent", "evaluate")
    assert {tool.name for tool in agent.tools} >= {"run", "submit"}


def test_bakeoff_ask_offers_a_scaffolds_tools_by_its_name(tmp_path):
    from bakeoff.cli.models import ToolsFileInvalid, read_tools

    assert read_tools("agent") == scaffold_plugin("agent").tools
    with pytest.raises(ToolsFileInvalid, match="cannot read staged"):  # a scaffold with no tools: a file's name
        read_tools("staged")
