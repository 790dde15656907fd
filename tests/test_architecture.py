"""The architecture as a test: every command has --help, and dependencies point one way."""

from __future__ import annotations

import ast
from pathlib import Path

import click
from click.testing import CliRunner

from bakeoff.cli import main

ROOT = Path(__file__).resolve().parents[1]
COMPONENTS_BAKEOFF_MAY_USE = ("durable", "generators", "scorer", "sandbox", "task_specs")


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


def test_scorer_imports_only_the_standard_library_itself_and_durable():
    """durable (the untrusted-JSON reader and the JSON writer) is standard library only too (the test below)."""
    import sys

    allowed = set(sys.stdlib_module_names) | {"scorer", "durable"}
    for path in (ROOT / "scorer").rglob("*.py"):
        assert _imported_top_level_names(path) <= allowed, path


def test_durable_imports_only_the_standard_library_and_itself():
    """durable is the leaf everyone may import (bakeoff, generators, sandbox): it imports none of them."""
    import sys

    allowed = set(sys.stdlib_module_names) | {"durable"}
    files = list((ROOT / "durable").rglob("*.py"))
    assert files
    for path in files:
        assert _imported_top_level_names(path) <= allowed, path


# Crash-safe writing lives in durable/ only. supervisor.py runs alone inside the container and may not import it.
OWN_DURABLE_WRITES_ALLOWED = {"sandbox/supervisor.py"}
# The batch lock is opened "a+" so that a process waiting for the lock never truncates the holder's note.
APPEND_MODE_ALLOWED: set[tuple[str, str]] = set()  # the batch lock is opened through durable.TrustedRoot
_RENAMES = {("os", "replace"), ("os", "rename"), ("os", "renames")}


def _mode_of(call: ast.Call, position: int) -> str | None:
    values = [k.value for k in call.keywords if k.arg == "mode"]
    values += call.args[position:position + 1]
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


def _own_durable_writes(path: Path, name: str) -> list[str]:
    """Renames into place and append-mode opens in one file (`name`, relative to the root): what only durable/ may do."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"{where}: from {node.module} import {a.name}" for a in node.names
                      if (node.module, a.name) in _RENAMES]
        if isinstance(node, ast.Attribute) and node.attr == "O_APPEND":
            found.append(f"{where}: os.O_APPEND")
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute):
            owner = function.value.id if isinstance(function.value, ast.Name) else None
            if (owner, function.attr) in _RENAMES:
                found.append(f"{where}: {owner}.{function.attr}")
            elif function.attr == "rename" and node.args:
                found.append(f"{where}: Path.rename")
            elif function.attr == "replace" and len(node.args) == 1 and not node.keywords and owner != "dataclasses":
                found.append(f"{where}: Path.replace")  # str.replace takes two arguments, datetime's keywords
            elif function.attr == "open" and owner not in ("os", "tarfile", "zipfile", "gzip"):
                mode = _mode_of(node, 0)  # Path.open(mode)
                if mode and "a" in mode and (name, mode) not in APPEND_MODE_ALLOWED:
                    found.append(f"{where}: .open({mode!r})")
        elif isinstance(function, ast.Name) and function.id == "open":
            mode = _mode_of(node, 1)
            if mode and "a" in mode and (name, mode) not in APPEND_MODE_ALLOWED:
                found.append(f"{where}: open(..., {mode!r})")
    return found


def test_no_module_outside_durable_writes_its_own_atomic_file_or_journal():
    offenders = []
    for folder in ("bakeoff", "generators", "sandbox", "scorer", "task_specs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name not in OWN_DURABLE_WRITES_ALLOWED:
                offenders += _own_durable_writes(path, name)
    assert offenders == [], "write through durable (atomic write, staged folder, journal) instead:\n" + "\n".join(offenders)


def test_the_durable_scan_finds_what_the_old_copies_did(tmp_path):
    """The scan above would have failed on the code before durable/: each of the old copies' shapes is caught."""
    old = tmp_path / "old.py"
    old.write_text(
        "import os, tempfile\nfrom pathlib import Path\n"
        "def write(path, text):\n    fd, tmp = tempfile.mkstemp(dir=path.parent)\n    os.replace(tmp, path)\n"
        "def publish(staging, out):\n    os.rename(staging, out)\n    staging.rename(out)\n    Path(staging).replace(out)\n"
        "def journal(path, line):\n    with open(path, 'a', encoding='utf-8') as f:\n        f.write(line)\n"
        "    with open(path, 'a+b') as f:\n        f.write(line)\n    with Path(path).open('a') as f:\n        f.write(line)\n"
        "def fine(text, moment):\n    return text.replace('a', 'b'), moment.replace(tzinfo=None), open(text, 'rb')\n",
        encoding="utf-8")
    found = [line.split(": ", 1)[1] for line in _own_durable_writes(old, "old.py")]
    assert found == ["os.replace", "os.rename", "Path.rename", "Path.replace", "open(..., 'a')", "open(..., 'a+b')",
                     ".open('a')"]

def test_stages_never_touch_llama_cpp_or_docker():
    for folder in ("runner", "scaffolds", "analysis", "review", "report"):  # the stages live in scaffolds/
        for path in (ROOT / "bakeoff" / folder).rglob("*.py"):
            assert not {"llama_cpp", "docker"} & _imported_top_level_names(path), path


# The in-sandbox layout (sandbox/paths.py) spelled anywhere else would drift from what the drivers show.
IN_SANDBOX_ROOTS = ("/workspace", "/wheels", "/deps", "/holdout", "/opt/venv", "/opt/bakeoff", "/opt/python-base")
# supervisor.py runs alone inside the container (`python -I -S`), importing none of ours: it spells /workspace itself.
MAY_SPELL_SANDBOX_PATHS = {"sandbox/paths.py", "sandbox/supervisor.py"}


def _string_literals(path: Path) -> list[tuple[int, str]]:
    """(line, value) of every string constant that is not a docstring (f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_in_sandbox_paths_are_spelled_only_in_sandbox_paths():
    offenders = []
    for folder in ("bakeoff", "sandbox", "generators"):
        for path in (ROOT / folder).rglob("*.py"):
            name = path.relative_to(ROOT).as_posix()
            if name in MAY_SPELL_SANDBOX_PATHS:
                continue
            for line, value in _string_literals(path):
                if any(value == root or value.startswith(root + "/") for root in IN_SANDBOX_ROOTS):
                    offenders.append(f"{name}:{line}: {value!r}")
    assert offenders == []
    supervisor = (ROOT / "sandbox" / "supervisor.py").read_text(encoding="utf-8")
    assert "sandbox.paths.WORKSPACE" in supervisor  # it says why it spells the path itself


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function, by its full name."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


# JSON the harness writes goes through durable.dumps (allow_nan=False: never Infinity or NaN, which are not JSON).
# These call sites still use json.dumps directly; each is listed with why it is not converted here.
JSON_DUMPS_NOT_YET = {
    "bakeoff/models/chat_template.py": "the templates' own tojson filter (Hugging Face's behaviour), not a file",
    "generators/spam_classifier/writer.py": "the manifest's measured rates may be NaN for a degenerate corpus: to decide",
    "generators/ab_test/writer.py": "the same, for the A/B data's manifest and truth",
    "generators/review_data/bank/build.py": "a development tool rebuilding the review bank",
}


def test_json_is_written_through_durable_dumps():
    offenders = []
    for folder in ("bakeoff", "generators", "sandbox", "scorer", "task_specs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if (name.startswith("generators/") and "/references/" in name) or name in JSON_DUMPS_NOT_YET:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in ("dumps", "dump") and isinstance(node.func.value, ast.Name)
                        and node.func.value.id == "json"
                        and not any(k.arg == "allow_nan" and getattr(k.value, "value", True) is False
                                    for k in node.keywords)):
                    offenders.append(f"{name}:{node.lineno}")
    assert offenders == [], "write JSON with durable.dumps (no NaN, no Infinity):\n" + "\n".join(offenders)


# JSON is read through durable's reader (durable.loads, loads_prefix, read_json, Journal): capped in size, depth
# and digits, with a named error, whoever wrote the text. The record library (bakeoff/records/) decodes records
# with its own decoder, behind the same caps.
JSON_PARSERS_ALLOWED = ("bakeoff/records/",)
_JSON_MODULES = {"json", "simplejson", "ujson", "orjson", "msgspec.json"}
_PARSING_NAMES = {"load", "loads", "decode", "JSONDecoder", "Decoder", "raw_decode", "decoder"}


def json_parses(path: Path, name: str) -> list[str]:
    """Every place in one file that parses JSON itself: a parser of a JSON module called or imported by name
    (json.loads, `from json import loads`, json.JSONDecoder, msgspec.json.decode, orjson...), whatever the module
    is imported as, and any `.raw_decode(` call."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {"json"}  # the names a JSON module is bound to in this file
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name in _JSON_MODULES)
            modules.update(f"{alias.asname or alias.name}.json" for alias in node.names if alias.name == "msgspec")
        elif isinstance(node, ast.ImportFrom) and node.module == "msgspec":
            modules.update(alias.asname or alias.name for alias in node.names if alias.name == "json")
    found = []
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module in _JSON_MODULES:
            found += [f"{where}: from {node.module} import {a.name}" for a in node.names if a.name in _PARSING_NAMES]
        elif isinstance(node, ast.Attribute) and node.attr in _PARSING_NAMES:
            owner = ast.unparse(node.value)
            if owner in modules or node.attr == "raw_decode":
                found.append(f"{where}: {owner}.{node.attr}")
    return found


def test_json_is_read_through_durable():
    offenders = []
    for path in sorted((ROOT / "bakeoff").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if not name.startswith(JSON_PARSERS_ALLOWED):
            offenders += json_parses(path, name)
    assert offenders == [], "read JSON with durable.loads / read_json / loads_prefix / Journal:\n" + "\n".join(offenders)


def test_the_json_scan_finds_every_way_of_parsing_it_alone(tmp_path):
    """The scan fails on the code before the one JSON door: each shape the old sites had is caught."""
    old = tmp_path / "old.py"
    old.write_text(
        "import json\nimport json as j\nimport msgspec\nfrom json import loads\n_DECODER = json.JSONDecoder()\n"
        "def read(path, text, line):\n    json.loads(line)\n    j.load(open(path))\n    loads(text)\n"
        "    msgspec.json.decode(text)\n    return _DECODER.raw_decode(text, 0)\n"
        "def fine(value, durable):\n    return json.dumps(value), durable.loads(value), json.JSONDecodeError\n",
        encoding="utf-8")
    found = sorted(line.split(": ", 1)[1] for line in json_parses(old, "old.py"))
    assert found == ["_DECODER.raw_decode", "from json import loads", "j.load", "json.JSONDecoder", "json.loads",
                     "msgspec.json.decode"]


def test_no_chat_template_is_rendered_outside_its_own_process():
    """Only the template worker (a process of its own, under limits) builds a ChatTemplate or imports jinja2's
    renderer; the bakeoff process and the engine's talk to it through bakeoff.models.template_process."""
    offenders = []
    for path in (ROOT / "bakeoff").rglob("*.py"):
        name = path.relative_to(ROOT).as_posix()
        if name in ("bakeoff/models/template_worker.py", "bakeoff/models/chat_template.py"):
            continue
        modules = _imported_modules(path)
        if "bakeoff.models.chat_template.ChatTemplate" in modules or any(m.split(".")[0] == "jinja2" for m in modules):
            offenders.append(name)
    assert offenders == []


def test_the_docker_driver_and_the_image_builder_do_not_import_each_other():
    docker = _imported_modules(ROOT / "sandbox" / "docker.py")
    image = _imported_modules(ROOT / "sandbox" / "image.py")
    # Both take what they share (connecting, the image's tag) from sandbox.docker_engine.
    assert "sandbox.docker" not in image
    assert "sandbox.image" not in docker
