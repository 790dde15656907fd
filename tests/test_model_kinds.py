"""Model backends have one owner per kind (issue 33): every registered kind parses, labels and re-reads its own
specs; a spec no kind claims is a named error that lists the registered forms; no module outside the kinds
compares a kind's name; the plan record loads no backend; a plan entry's spec is parsed once."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from bakeoff.models.errors import ModelSpecError
from bakeoff.models.kinds import KINDS, UnknownModelKind, kind_named, kind_of
from bakeoff.models.spec import label_for_spec, parse_spec
from bakeoff.records import ModelEntry, Plan
from bakeoff.runner.model_entries import spec_of

ROOT = Path(__file__).resolve().parents[1]
# One spec of each registered kind (a kind registered without one here fails the first test), its label.
SAMPLES = {
    "gguf": [("gguf:/m/Qwen2.5-7B.Q4_K_M.gguf", "qwen2.5-7b.q4_k_m"), ("/m/plain.gguf", "plain"),
             ("default", "default")],
    "openai": [("openai:http://127.0.0.1:8080/v1#llama-3", "llama-3")],
    "ollama": [("ollama:qwen3:8b", "qwen3-8b"), ("ollama:http://127.0.0.1:11434#llama3.1:latest", "llama3.1-latest")],
    "scripted": [("scripted:/t/answers.jsonl", "answers")],
}
# The kinds' own modules: the only place a kind's name or prefix may be compared. And the `server` option's table:
# "ollama" there names Ollama's OpenAI-compatible endpoint behind an `openai:` entry, not the `ollama:` kind.
KIND_MODULES = ("bakeoff/models/kind.py", "bakeoff/models/kinds/", "bakeoff/models/servers.py")


def test_every_registered_kind_has_a_sample_here():
    assert {kind.name for kind in KINDS} == set(SAMPLES)
    assert len({kind.name for kind in KINDS}) == len(KINDS)  # each registered once


@pytest.mark.parametrize("name, text, label", [(name, text, label) for name, specs in SAMPLES.items()
                                               for text, label in specs])
def test_a_kind_round_trips_its_spec(name, text, label, tmp_path):
    spec = parse_spec(text)
    kind = kind_of(spec)
    assert kind is kind_named(name) and spec.kind == name and spec.text == text
    assert parse_spec(spec.text) == spec  # the text records keep reads back as the same spec
    assert label_for_spec(text) == label
    absolute = kind.absolute(spec, tmp_path)
    assert parse_spec(absolute.text) == absolute and kind_of(absolute) is kind
    plan = Plan(models=(ModelEntry("m", absolute.text, parsed=absolute),), corpus=str(tmp_path))
    kept = Plan.from_json(plan.to_dict()).models[0]  # what batch.json keeps, read back: the text
    assert kept == plan.models[0] and kept.parsed is None and spec_of(kept) == absolute


def test_a_relative_file_is_made_absolute_against_the_plan_folder(tmp_path):
    for text in ("gguf:models/m.gguf", "models/m.gguf", "scripted:answers.jsonl"):
        spec = parse_spec(text)
        absolute = kind_of(spec).absolute(spec, tmp_path)
        assert absolute.file() is not None and absolute.file().is_absolute()
        assert str(tmp_path) in absolute.text and absolute.text.startswith(text.split(":")[0] if ":" in text else "/")


def test_an_unknown_spec_is_a_named_error_listing_every_registered_form():
    with pytest.raises(ModelSpecError) as refused:
        parse_spec("nonsense:x")
    assert all(kind.form in str(refused.value) for kind in KINDS)
    with pytest.raises(UnknownModelKind) as unknown:
        kind_named("vllm")
    assert all(kind.name in str(unknown.value) for kind in KINDS)


def kind_words() -> set[str]:
    """The registered kinds' names and the heads of their forms ("gguf", "gguf:"...)."""
    return {kind.name for kind in KINDS} | {head for kind in KINDS for head in kind.prefixes if head.endswith(":")}


def _literals(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [value for element in node.elts for value in _literals(element)]
    return []


def kind_comparisons(source: str, words: set[str]) -> list[str]:
    """Where `source` compares with, tests a prefix of, iterates or keys a dict by a kind's name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "startswith", "endswith", "removeprefix", "partition"):
            operands = list(node.args)
        elif isinstance(node, ast.comprehension):
            operands = [node.iter]
        elif isinstance(node, ast.Dict):
            operands = [key for key in node.keys if key is not None]
        else:
            continue
        if any(word in words for operand in operands for word in _literals(operand)):
            found.append(f"{getattr(node, 'lineno', getattr(operands[0], 'lineno', '?'))}: {ast.unparse(node)[:80]}")
    return found


def kind_comparisons_under(root: Path, words: set[str]) -> list[str]:
    found = []
    for folder in ("bakeoff", "bench"):
        for path in sorted((root / folder).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if not where.startswith(KIND_MODULES):
                found += [f"{where}:{hit}" for hit in kind_comparisons(path.read_text(encoding="utf-8"), words)]
    return found


def test_no_module_outside_the_kinds_compares_a_kind_name():
    assert kind_comparisons_under(ROOT, kind_words()) == []


def test_the_scan_sees_a_kind_comparison():
    words = kind_words()
    assert kind_comparisons('if spec.kind == "gguf":\n    pass\n', words)
    assert kind_comparisons('x = text.startswith("openai:")\n', words)
    assert kind_comparisons('y = {"scripted": 1}\n', words)
    assert not kind_comparisons('if mode == "default":\n    pass\n', words)


def test_the_plan_record_loads_no_backend_kind_nor_the_factory():
    code = ("import sys, bakeoff.records.plan; print(' '.join(sorted(m for m in sys.modules if m in "
            "('bakeoff.models.registry', 'bakeoff.models.kinds', 'bakeoff.models.spec', 'bakeoff.models.base', "
            "'bakeoff.models.gguf', 'bakeoff.models.scripted', 'bakeoff.models.openai_compat', "
            "'bakeoff.models.server_backend', 'httpx', 'llama_cpp'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert loaded.stdout.strip() == ""


def test_a_plan_entry_is_parsed_once(tmp_path, monkeypatch):
    from bakeoff.runner.plan import plan_from_mapping

    parsed: list[str] = []
    for kind in KINDS:
        original = type(kind).parse

        def counting(self, text, original=original):
            parsed.append(text)
            return original(self, text)

        monkeypatch.setattr(type(kind), "parse", counting)
    (tmp_path / "m.gguf").write_bytes(b"")
    models = [{"spec": "gguf:m.gguf", "n_ctx": 4096}, "scripted:a.jsonl",
              {"spec": "openai:http://127.0.0.1:9/v1#m", "label": "endpoint"}]
    plan = plan_from_mapping({"models": models, "corpus": str(tmp_path), "task": "spam_classifier"}, tmp_path)
    assert len(plan.models) == 3 and sorted(parsed) == sorted(["gguf:m.gguf", "scripted:a.jsonl",
                                                               "openai:http://127.0.0.1:9/v1#m"])
    assert all(spec_of(model) is model.parsed for model in plan.models)  # handed down, not parsed again
    parsed.clear()
    Plan.from_json(plan.to_dict())  # a resume reads batch.json back: no kind is asked
    assert parsed == []


def test_the_plan_record_imports_only_the_pure_model_values():
    """records sit above models in imports: the plan record reads options and holds a parsed spec's type, and asks
    no kind (a spec is parsed where the plan is loaded, bakeoff.runner.model_entries)."""
    tree = ast.parse((ROOT / "bakeoff/records/plan.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert {name for name in imported if name.startswith("bakeoff.models")} <= {
        "bakeoff.models.kind", "bakeoff.models.options", "bakeoff.models.errors"}
