"""The architecture as a test: every command has --help, and dependencies point one way."""

from __future__ import annotations

import ast
from pathlib import Path

import click
from click.testing import CliRunner

from bakeoff.cli import main

ROOT = Path(__file__).resolve().parents[1]
COMPONENTS_BAKEOFF_MAY_USE = ("generators", "scorer", "sandbox", "task_specs")


def _walk_commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from _walk_commands(command, prefix + (name,))


def test_every_command_answers_help():
    runner = CliRunner()
    seen = []
    for path, _ in _walk_commands(main):
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert result.output.startswith("Usage: "), path
        seen.append(" ".join(path))
    expected = {"generate", "calibrate", "sandbox build", "check", "score", "models", "ask",
                "run", "status", "demo", "analyze", "report", "review"}
    assert expected <= set(seen)


def test_bad_input_is_a_message_not_a_traceback(tmp_path):
    out = tmp_path / "never"
    result = CliRunner().invoke(main, ["generate", "--rows", "-5", "--out", str(out)])
    assert result.exit_code != 0
    assert "error" in result.output.lower()
    assert "Traceback" not in result.output
    assert not out.exists()


def _imported_top_level_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_components_never_import_bakeoff():
    offenders = []
    for component in COMPONENTS_BAKEOFF_MAY_USE:
        for path in (ROOT / component).rglob("*.py"):
            if "bakeoff" in _imported_top_level_names(path):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_scorer_imports_only_the_standard_library_and_itself():
    import sys

    allowed = set(sys.stdlib_module_names) | {"scorer"}
    for path in (ROOT / "scorer").rglob("*.py"):
        assert _imported_top_level_names(path) <= allowed, path


def test_stages_never_touch_llama_cpp_or_docker():
    for folder in ("runner", "analysis", "review", "report"):
        for path in (ROOT / "bakeoff" / folder).rglob("*.py"):
            assert not {"llama_cpp", "docker"} & _imported_top_level_names(path), path
