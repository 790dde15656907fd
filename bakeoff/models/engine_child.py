"""The llama.cpp engine's own process: one `Llama` object, loaded once, answering chat requests.

`serve` is the child's entry point (bakeoff.models.engine starts it). Everything
that touches llama_cpp lives in this module, so a native crash ends this
process and never the batch.

One `Llama` object serves every conversation and turn. llama-cpp-python keeps
the tokens of its last evaluation and, on the next call, re-reads only what
follows the longest common token prefix; so a second turn of a conversation
costs little prompt processing. Nothing here resets or reloads the model
between calls, and the chat template is the one stored in the GGUF, rendered in
its own process under a deadline and a memory limit (bakeoff.models.template_process):
a template that cannot render, or exhausts a limit, fails the load within that
deadline; one that exhausts a limit later fails that turn. No template code runs in
this process: llama-cpp-python's own compilation of the file's templates, for chat
handlers we never call, is skipped while the model loads.
A reasoning model's raw output is split here into reasoning and answer, in the
format its template shows, and the reasoning is counted with the model's tokenizer.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bakeoff.errors import BakeoffError
from bakeoff.models.chat_template import TemplateTokens
from bakeoff.models.engine_messages import (
    ChatReply,
    ChatRequest,
    Done,
    EngineFacts,
    LoadConfig,
    LoadFailed,
    Rendered,
    RenderFailed,
    RenderRequest,
    ResetRequest,
    StopRequest,
)
from bakeoff.models.errors import BackendUnavailable, ChatTemplateError, ModelFileInvalid
from bakeoff.models.memory import check_fits
from bakeoff.models.reasoning import ReasoningFormat, prompt_opens_reasoning, split_output
from bakeoff.models.template_process import TemplateProcess
from bakeoff.models.tools import NATIVE_SYNTAXES, ToolSyntax, parse_reply


def serve(conn, config: LoadConfig) -> None:
    """Load the model, report (EngineFacts or LoadFailed), then answer requests until StopRequest or EOF."""
    # Ctrl-C is the parent's to handle: it stops the child (a daemon) when it exits.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        engine = Engine.open(config)
    except Exception as exc:  # noqa: BLE001 - every load failure is reported to the parent, as a BakeoffError
        error = exc if isinstance(exc, BakeoffError) else BackendUnavailable(
            f"llama.cpp could not load {config.info.path}: {type(exc).__name__}: {exc}")
        conn.send(LoadFailed(error))
        return
    conn.send(engine.facts)
    try:
        while True:
            try:
                request = conn.recv()
                if isinstance(request, StopRequest):
                    break
                conn.send(engine.handle(request))
            except (EOFError, OSError):
                break  # the parent is gone
    finally:
        engine.close()


class _Deadline:
    """A stopping criterion that ends the answer at the first token past the deadline.

    The parent also waits only until the deadline plus a grace period, then stops
    this process: a prompt evaluation cannot be interrupted from here.
    """

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.fired = False

    def __call__(self, input_ids, logits) -> bool:
        if time.perf_counter() >= self.deadline:
            self.fired = True
        return self.fired


def _native_library_versions(llama_cpp) -> dict[str, str]:
    """llama.cpp and ggml versions, from the versioned shared-library names shipped in the wheel."""
    versions = {}
    for library in sorted((Path(llama_cpp.__file__).parent / "lib").glob("lib*.so.*.*.*")):
        name, _, version = library.name.partition(".so.")
        versions[name] = version
    return versions


def _common_prefix(previous: list[int], current: list[int]) -> int:
    count = 0
    for a, b in zip(previous, current, strict=False):  # the shorter one ends the common prefix
        if a != b:
            break
        count += 1
    return count


class Engine:
    """The loaded model, its chat template, and how one chat request is answered."""

    def __init__(self, llama_cpp, llm, template: TemplateProcess, facts: EngineFacts) -> None:
        self._llama_cpp = llama_cpp
        self._llm = llm
        self._template = template
        self._kwargs = dict(facts.reasoning_kwargs)  # the reasoning switch's template variables
        self._format = ReasoningFormat(facts.reasoning_format)
        self._tool_syntax = ToolSyntax(facts.tool_syntax)
        self.facts = facts

    @classmethod
    def open(cls, config: LoadConfig) -> Engine:
        try:
            import llama_cpp
        except ImportError as exc:
            raise BackendUnavailable(f"llama-cpp-python is not installed: {exc}") from None
        offload = bool(llama_cpp.llama_supports_gpu_offload())
        # The fit check runs before loading, against what this build would put on the GPU.
        requested_layers = config.n_gpu_layers if offload or config.gpu_simulated else 0
        estimate = check_fits(config.info, config.n_ctx, requested_layers, config.gpu)
        llm = _load(llama_cpp, config)
        template = None
        try:
            template = _chat_template(llm, config)
            checked = template.check(config.reasoning)  # an impossible mode, or a hostile template, fails the load
        except BaseException:
            if template is not None:
                template.close()
            llm.close()
            raise
        facts = EngineFacts(
            pid=os.getpid(),
            llama_cpp_python_version=llama_cpp.__version__,
            libraries=_native_library_versions(llama_cpp),
            system_info=llama_cpp.llama_print_system_info().decode(errors="replace").strip(),
            gpu_offload_supported=offload,
            n_ctx=llm.n_ctx(),
            estimate=estimate,
            chat_template_sha256=checked.sha256,
            reasoning_format=checked.format.value,
            reasoning_kwargs=checked.reasoning_kwargs,
            tool_syntax=checked.tool_syntax.value,
            n_threads=int(llm.n_threads),
            n_threads_batch=int(llm.n_threads_batch),
        )
        return cls(llama_cpp, llm, template, facts)

    def handle(self, request):
        if isinstance(request, ChatRequest):
            return self.chat(request)
        if isinstance(request, RenderRequest):
            try:
                return Rendered(self._render(request.messages, request.tools))
            except BakeoffError as exc:  # the template failed (or overran) on these messages
                return RenderFailed(exc)
        if isinstance(request, ResetRequest):
            self._llm.reset()
            return Done()
        raise TypeError(f"the engine does not know {type(request).__name__}")

    def _prefill(self, tokens: list[int]) -> int:
        """Evaluate all but the last prompt token, reusing the longest cached prefix.

        The last token is left for llama-cpp-python's generate() to evaluate on
        its own, cold or warm alike: so the logits the first answer token is
        sampled from come from the same computation whatever the cache held,
        and the same seed gives the same text. Returns the tokens reused.
        """
        llm = self._llm
        reused = _common_prefix(llm._input_ids.tolist(), tokens[:-1])
        if getattr(llm, "_is_recurrent", False) and reused != llm.n_tokens:
            reused = 0  # a recurrent state cannot be rolled back to a shorter prefix
        llm.n_tokens = reused
        if len(tokens) - 1 > reused:
            llm.eval(tokens[reused:-1])
        return reused

    def _render(self, messages, tools=()) -> str:
        """The prompt; tools offered go into the template's `tools` where it writes a syntax bakeoff reads (the
        text protocol's tools are in the system prompt the scaffold wrote)."""
        extra: dict[str, Any] = dict(self._kwargs)
        if tools and self._tool_syntax in NATIVE_SYNTAXES:
            extra["tools"] = [t.to_openai() for t in tools]
        return self._template.render([m.template_dict() for m in messages], True, **extra)

    def _calls(self, prompt: str, tokens: list[int], text: str, answer: str):
        """(answer without the calls' markup, calls) of a turn that offered tools. The calls are read from the
        output with its special tokens written out (several families' call markers are special tokens); harmony's
        from the whole output (its calls are commentary-channel messages), the others' from the answer part."""
        raw = self._raw_output(tokens, text)
        if self._tool_syntax is not ToolSyntax.HARMONY and self._format is not ReasoningFormat.NONE:
            raw = split_output(raw, self._format, prompt_opens_reasoning(prompt, self._format)).answer
        parsed = parse_reply(raw, self._tool_syntax)
        if not parsed.calls:
            return answer, ()
        return (answer if self._tool_syntax is ToolSyntax.HARMONY else parsed.text), parsed.calls

    def _budget(self, settings) -> int:
        """The answer's budget, plus the reasoning budget when this model may reason."""
        reasons = self._format is not ReasoningFormat.NONE and self.facts.reasoning_kwargs.get("enable_thinking") is not False
        return settings.total_tokens if reasons else settings.max_tokens

    def _raw_output(self, prompt_tokens: list[int], text: str) -> str:
        """The generation with special tokens written out (reasoning markers may be special tokens,
        which llama-cpp-python's completion text leaves out). The last sampled token is not yet in
        the evaluated ids when the budget ended the answer: its text is taken from `text`."""
        llm = self._llm
        generated = llm._input_ids.tolist()[len(prompt_tokens):]
        plain = llm.detokenize(generated, prev_tokens=prompt_tokens).decode("utf-8", errors="ignore")
        raw = llm.detokenize(generated, prev_tokens=prompt_tokens, special=True).decode("utf-8", errors="ignore")
        return raw + (text[len(plain):] if text.startswith(plain) else "")

    def _split(self, prompt: str, prompt_tokens: list[int], text: str) -> tuple[str, str, int, bool]:
        """(answer, reasoning, reasoning tokens, unfinished) of one generation."""
        if self._format is ReasoningFormat.NONE:
            return text, "", 0, False
        raw = self._raw_output(prompt_tokens, text)
        split = split_output(raw, self._format, prompt_opens_reasoning(prompt, self._format))
        counted = len(self._llm.tokenize(split.reasoning.encode("utf-8"), add_bos=False, special=True)) if split.reasoning else 0
        return split.answer, split.reasoning, counted, split.unfinished

    def chat(self, request: ChatRequest) -> ChatReply:
        llm, settings = self._llm, request.settings
        started = time.perf_counter()
        deadline = _Deadline(started + settings.timeout_s)
        try:
            prompt = self._render(request.messages, settings.tools)
        except BakeoffError as exc:  # the template refused these messages, or overran its limits: this turn fails
            return _failed(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
        try:
            # The template writes every special token it wants (BOS included): none is added.
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            if len(tokens) >= llm.n_ctx():
                return _failed(f"prompt of {len(tokens)} tokens does not fit n_ctx={llm.n_ctx()}", 0.0,
                               kind="context_truncated")  # the model would not see it whole: never its failure
            reused = self._prefill(tokens)
            prefilled = time.perf_counter()
            budget = self._budget(settings)
            response = llm.create_completion(
                prompt=tokens,
                max_tokens=budget,
                temperature=settings.temperature,
                seed=settings.seed,
                stop=[s for s in (self._template.tokens.eos_token,) if s] + list(settings.stop),
                stopping_criteria=self._llama_cpp.StoppingCriteriaList([deadline]),
            )
            answer, reasoning, reasoning_tokens, unfinished = self._split(prompt, tokens, response["choices"][0].get("text") or "")
            calls: tuple = ()
            if settings.tools:
                answer, calls = self._calls(prompt, tokens, response["choices"][0].get("text") or "", answer)
        except (ValueError, RuntimeError) as exc:
            return _failed(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
        finished = time.perf_counter()
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        if deadline.fired:
            return _failed(f"timed out after {settings.timeout_s:g} s (answer ended at the deadline)",
                           finished - started, kind="timeout", partial_text=choice.get("text") or "")
        return ChatReply(
            text=answer,
            reasoning=reasoning,
            reasoning_tokens=reasoning_tokens,
            reasoning_unfinished=unfinished,
            token_budget=budget,
            finish_reason=choice.get("finish_reason") or "stop",
            prompt_tokens=len(tokens),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            prompt_seconds=prefilled - started,
            generation_seconds=finished - prefilled,
            cached_prompt_tokens=reused,
            tool_calls=calls,
        )

    def close(self) -> None:
        self._template.close()
        if self._llm is not None:
            self._llm.close()
            self._llm = None


def _failed(error: str, elapsed: float, kind: str = "backend_error", partial_text: str = "") -> ChatReply:
    return ChatReply(text="", finish_reason="error", prompt_tokens=0, completion_tokens=0, prompt_seconds=0.0,
                     generation_seconds=elapsed, error=error, error_kind=kind, partial_text=partial_text)


class _UncompiledFormatter:
    """Stands in for llama-cpp-python's Jinja2ChatFormatter while the model loads: that class compiles every
    template in the file's metadata, in this process, for chat handlers bakeoff never calls (prompts are
    rendered by the template process and handed over as tokens)."""

    def __init__(self, **_: object) -> None:
        pass

    def to_chat_handler(self):
        def unused(*_: object, **__: object):
            raise ChatTemplateError("llama-cpp-python's chat handlers are not used by bakeoff")

        return unused


@contextmanager
def _no_template_compilation(llama_cpp):
    formats = getattr(llama_cpp, "llama_chat_format", None)
    original = getattr(formats, "Jinja2ChatFormatter", None)
    if original is None:  # a llama-cpp-python without it compiles nothing of the kind
        yield
        return
    formats.Jinja2ChatFormatter = _UncompiledFormatter
    try:
        yield
    finally:
        formats.Jinja2ChatFormatter = original


def _load(llama_cpp, config: LoadConfig):
    try:
        with _no_template_compilation(llama_cpp):
            return llama_cpp.Llama(
                model_path=str(config.info.path),
                n_ctx=config.n_ctx,
                n_gpu_layers=config.n_gpu_layers,
                seed=config.load_seed,
                n_threads=config.n_threads,
                n_threads_batch=config.n_threads_batch,
                verbose=False,
            )
    except (ValueError, RuntimeError) as exc:
        raise BackendUnavailable(f"llama.cpp could not load {config.info.path}: {exc}") from None


def _chat_template(llm, config: LoadConfig) -> TemplateProcess:
    """The chat template stored in the GGUF, in its own process (not started until it is first checked)."""
    path = config.info.path
    source = llm.metadata.get("tokenizer.chat_template")
    if not source:
        raise ModelFileInvalid(f"{path} has no chat template in its metadata (a base model?)")
    model = llm._model
    eos_id, bos_id = llm.token_eos(), llm.token_bos()
    tokens = TemplateTokens(
        bos_token=model.token_get_text(bos_id) if bos_id != -1 else "",
        eos_token=model.token_get_text(eos_id) if eos_id != -1 else "",
    )
    return TemplateProcess(source, tokens, model=str(path), limits=config.template_limits)
