"""Hostile chat templates (round 2, rows 1 to 4): a long loop, a recursion, a huge string, and one that loops only
on a long conversation. No template runs in the bakeoff process or the engine's: each runs in its own process
(bakeoff.models.template_process) and exhausting a limit is ChatTemplateExhausted naming the model, at the plan
check and at the load, well before the 900 s load timeout. The templates are our own.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from fuzz_support import FUZZ_SLOW, Reach
from gguf_copies import with_template
from hypothesis import given
from hypothesis import strategies as st

from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.errors import ChatTemplateError, ChatTemplateExhausted, ReasoningModeUnsupported
from bakeoff.models.template_process import TemplateLimits, TemplateProcess

# A plain ChatML layout with the on/off switch, so that `reasoning = "off"` is a mode the plan check must test.
CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% if enable_thinking is defined and not enable_thinking %}"
          "<think>\n\n</think>\n\n{% endif %}{% endif %}")
LOOP = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}" + CHATML
RECURSIVE = "{% macro deeper(n) %}{{ deeper(n + 1) }}{% endmacro %}{{ deeper(0) }}" + CHATML
HUGE = "{% set block = 'x' * 100000 %}{% set all = block * 100000 %}{{ all | length }}" + CHATML  # 10 GB of text
LOOPS_ON_LONG = ("{% if messages[-1].content | length > 100 %}{% for i in range(100000) %}{% for j in range(100000) %}"
                 "{% endfor %}{% endfor %}{% endif %}") + CHATML
DEEP_SOURCE = "{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}" + CHATML  # Jinja's parser recurses on it: compiling is code too
LONG_PROMPT = "{{ 'y' * 5000000 }}" + CHATML  # fits the memory limit, but no context holds 5 million characters
QUICK = TemplateLimits(deadline_s=5.0)
CHAT = [Message("user", "Say hi.")]


@pytest.mark.parametrize("source, limit", [(LOOP, "deadline"), (RECURSIVE, "recursion"), (HUGE, "memory"),
                                           (LONG_PROMPT, "size")])
def test_each_limit_of_the_template_process_is_a_named_error_naming_the_model(source, limit):
    with TemplateProcess(source, model="gguf:/models/hostile.gguf", limits=QUICK) as template:
        with pytest.raises(ChatTemplateExhausted) as raised:
            template.check("off")
            template.render([{"role": "user", "content": "hi"}])  # the prompt's size is checked where it is sent
    assert raised.value.limit == limit and "model gguf:/models/hostile.gguf" in str(raised.value)


def test_after_a_template_overran_the_next_render_gets_a_fresh_process():
    with TemplateProcess(LOOPS_ON_LONG, model="m", limits=QUICK) as template:
        facts = template.check("off")
        assert facts.reasoning_kwargs == {"enable_thinking": False} and facts.format.value == "think"
        with pytest.raises(ChatTemplateExhausted, match="did not finish within 5 s"):
            template.render([{"role": "user", "content": "long " * 40}])
        assert template.render([{"role": "user", "content": "short"}]).endswith("<|im_start|>assistant\n")


def test_plain_failures_keep_their_names():
    with TemplateProcess("{{ raise_exception('no') }}", model="m", limits=QUICK) as template:
        with pytest.raises(ChatTemplateError, match="cannot render a plain conversation") as raised:
            template.check()
        assert not isinstance(raised.value, ChatTemplateExhausted)
    with TemplateProcess(CHATML, model="m", limits=QUICK) as template:
        with pytest.raises(ReasoningModeUnsupported, match="model m: reasoning 'high'"):
            template.check("high")


pieces = st.sampled_from(["{{ ", " }}", "{% ", " %}", "for m in messages", "endfor", "if ", "endif", "m.content",
                          "m.role", "add_generation_prompt", "enable_thinking", "'<think>'", "</think>", "raise_exception('x')",
                          "range(3)", " * 3", "|length", "|tojson", "set x = ", "x", "macro f()", "endmacro", "f()",
                          "<|channel|>", "namespace(a=1)", "loop.index", "break", "strftime_now('%Y')", "(", ")", "text"])


TEMPLATES = [CHATML, "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}",
             "{% for m in messages %}{{ m | tojson }}{% endfor %}{% if add_generation_prompt %}>{% endif %}"]
TEMPLATE_CHANGES = ("none", "words", "words", "insert", "replace", "delete")


@st.composite
def changed_templates(draw: st.DrawFn) -> tuple[str, str]:
    """(a template, its change). Valid: one of TEMPLATES, or one with words put between two of its tags or texts
    (still valid); then one change: a piece put there, a tag or text replaced by a piece, or deleted."""
    parts = [part for part in re.split(r"(\{[{%].*?[%}]\})", draw(st.sampled_from(TEMPLATES))) if part]
    change = draw(st.sampled_from(TEMPLATE_CHANGES))
    if change in ("words", "insert"):
        words = st.text(alphabet="abc <>|\n", min_size=1, max_size=12)
        parts.insert(draw(st.integers(0, len(parts))), draw(words if change == "words" else pieces))
    elif change != "none":
        which = draw(st.integers(0, len(parts) - 1))
        parts[which:which + 1] = [draw(pieces)] if change == "replace" else []
    return "".join(parts), change


@FUZZ_SLOW
@given(case=changed_templates(), reasoning=st.sampled_from(["default", "off", "high"]))
def _fuzz_template(reach: Reach, case, reasoning: str) -> None:
    source, change = case
    with TemplateProcess(source, model="fuzzed", limits=QUICK) as template:
        try:
            facts = template.check(reasoning)
        except (ChatTemplateError, ReasoningModeUnsupported) as exc:
            reach.saw(False, type(exc).__name__)
            return
        reach.saw(True, change)
        assert isinstance(template.render([{"role": "user", "content": "hi"}], **facts.reasoning_kwargs), str)


def test_any_template_gives_facts_or_a_named_error_in_its_process():
    reach = Reach("chat template")
    _fuzz_template(reach)
    reach.check()


# --- real GGUF files -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile-templates")
    sources = {"loop": LOOP, "recursive": RECURSIVE, "huge": HUGE, "loops_on_long": LOOPS_ON_LONG, "chatml": CHATML,
               "deep_source": DEEP_SOURCE}
    return {name: with_template(folder, name, source) for name, source in sources.items()}


@pytest.mark.parametrize("name, limit", [("loop", "deadline"), ("recursive", "recursion"), ("huge", "memory")])
def test_the_plan_check_refuses_a_hostile_template_by_name(hostile, name, limit):
    from bakeoff.models.registry import check_reasoning_mode

    spec = f"gguf:{hostile[name]}"
    with pytest.raises(ChatTemplateExhausted) as raised:
        check_reasoning_mode(spec, "off", limits=QUICK)
    assert raised.value.limit == limit and spec in str(raised.value)


def test_the_plan_check_renders_nothing_in_the_bakeoff_process(hostile):
    code = ("import sys\nfrom bakeoff.models.registry import check_reasoning_mode\n"
            f"check_reasoning_mode('gguf:{hostile['chatml']}', 'off')\n"
            "print('jinja2' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_bakeoff_run_names_a_looping_template_instead_of_hanging(hostile, tmp_path):
    """Row 1: `reasoning = "off"` made the plan check render the template in the bakeoff process, for ever."""
    from bakeoff.cli import main

    plan = tmp_path / "plan.toml"
    plan.write_text(f'runs = 1\ncorpus = "{tmp_path}"\nmodels = [{{ spec = "gguf:{hostile["loop"]}", reasoning = "off" }}]\n')
    result = CliRunner().invoke(main, ["run", "--plan", str(plan), "--out", str(tmp_path / "batch")])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "error: ChatTemplateExhausted: model gguf:" in result.output and "did not finish within" in result.output
    assert not (tmp_path / "batch" / "batch.json").exists()  # refused before the batch began


@pytest.mark.llama
@pytest.mark.parametrize("name, limit", [("loop", "deadline"), ("recursive", "recursion"), ("huge", "memory"),
                                         ("deep_source", "recursion")])
def test_the_load_fails_by_name_within_the_template_deadline(hostile, name, limit):
    """Row 2: the engine's load stalled until the 900 s load timeout; here the load timeout is far away. A source
    that only compiling recurses on is the template process's failure too: llama-cpp-python compiles nothing."""
    from bakeoff.models.gguf import GgufBackend, GgufSettings

    with pytest.raises(ChatTemplateExhausted) as raised:
        GgufBackend(hostile[name], GgufSettings(n_ctx=512, n_threads=2, template_limits=QUICK, load_timeout_s=900))
    assert raised.value.limit == limit and str(hostile[name]) in str(raised.value)


@pytest.mark.llama
def test_a_template_that_loops_on_one_conversation_fails_that_turn_only(hostile):
    from bakeoff.models.gguf import GgufBackend, GgufSettings

    backend = GgufBackend(hostile["loops_on_long"], GgufSettings(n_ctx=512, n_threads=2, template_limits=QUICK))
    try:
        settings = GenerationSettings(max_tokens=4)
        first = backend.chat(CHAT, key="a#1", settings=settings)
        long = backend.chat([Message("user", "long " * 40)], key="a#2", settings=settings)
        again = backend.chat(CHAT, key="a#3", settings=settings)
        with pytest.raises(ChatTemplateExhausted):
            backend.render_prompt([Message("user", "long " * 40)])
        pid = backend.engine_pid
    finally:
        backend.close()
    assert first.error is None and again.error is None and first.completion_tokens > 0
    assert long.error_kind == "backend_error" and "ChatTemplateExhausted" in long.error and "did not finish" in long.error
    # The engine was never restarted for it: every turn, the failed one too, says one start of the same process.
    assert pid is not None
    assert [(c.model_info["engine_starts"], c.model_info["engine_pid"]) for c in (first, long, again)] == [(1, pid)] * 3
