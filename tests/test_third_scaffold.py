"""A third scaffold, written here and nowhere in bakeoff/, runs through the core end to end: the batch, its status,
its report, its transcript and its Inspect export, with the scripted backend on the real Docker sandbox.

`oneshot` asks the model once for the code, checks it, then evaluates: its stages are `implement` and `evaluate`,
it writes no step records. Its one registry line is the test's (monkeypatched); no core module is edited. The
readers used to take any scaffold that is not `staged` for the agent (its loop and evaluate), so they counted,
showed and exported the wrong stages of such a run.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from runner_support import implementation, make_tiny_corpus, run_scripted_batch

from bakeoff.answers import extract_files
from bakeoff.models.base import turn_key
from bakeoff.runner.conversation import stage_conversation
from bakeoff.runner.modelcall import ask, write_files
from bakeoff.runner.scaffold import Scaffold, StageFunction, StageServices
from bakeoff.runner.scaffold_kit import Done, StageOutcome, check_attribution, ladder_check, make_evaluate
from bakeoff.taskapi.context import RunContext, StageClock

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NAME = "oneshot"


def one_answer(ctx: RunContext, clock: StageClock, done: Done) -> StageOutcome:
    """The model's one answer: its files written, then the task's check of them."""
    conversation = stage_conversation(turn_key("implement", 1), ctx.shared, ctx.task.prompts["implement"],
                                      {"design": "(answer in one go: there is no design)"},
                                      ctx.task.settings.prompt_budget_chars("implement"))
    answer = ask(ctx, clock, conversation, "implement", expect="code")
    written = write_files(ctx, extract_files(answer.text), lambda path: True) if answer.captured else []
    check, commands = ladder_check(ctx, clock, "implement")
    return StageOutcome(*check_attribution(check), prompt=conversation.to_prompt(), completion=answer.completion_record(),
                        capture=answer.capture, files_written=tuple(written), commands=tuple(commands), check=check)


class OneShot(Scaffold):
    name = NAME
    stages = ("implement", "evaluate")

    def stage_functions(self, services: StageServices) -> Mapping[str, StageFunction]:
        return {"implement": one_answer, "evaluate": make_evaluate(services.evaluate_hooks)}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    from bakeoff.scaffolds import registry

    root = tmp_path_factory.mktemp("third-scaffold")
    corpus = make_tiny_corpus(root / "corpus")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._PLUGINS, NAME, f"{__name__}:OneShot")  # the scaffold's one registry line
        result = run_scripted_batch(root, {"solo": [{"key": "implement#1", "text": implementation()}]},
                                    {"corpus": str(corpus), "scaffolds": [NAME], "task_settings": {"smoke_rows": 50}},
                                    scaffolds=registry.scaffolds_for([NAME]))
        yield root / "batch", result


def test_the_run_is_driven_by_the_third_scaffold_and_graded(batch):
    folder, result = batch
    (record,) = result.records
    assert record.scaffold == NAME and record.run_id == f"solo-{NAME}-r01"
    assert [stage.stage for stage in record.stages] == ["implement", "evaluate"]
    assert record.outcome.status.value == "scored" and record.outcome.rung == 5
    files = sorted(p.name for p in (folder / "runs" / record.run_id / "stages").iterdir())
    assert files == ["1-implement.json", "2-evaluate.json"]
    assert not (folder / "runs" / record.run_id / "steps").exists()


def test_status_counts_the_third_scaffolds_stages(batch):
    from bakeoff.runner.status import read_status
    from bakeoff.scaffolds import registry

    folder, _ = batch
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._PLUGINS, NAME, f"{__name__}:OneShot")
        (state,) = read_status(folder, stages_of=lambda name: registry.scaffold_plugin(name).stages).runs
    assert state.stage_names == ("implement", "evaluate") and state.stages_done == 2 == state.stages_total


def test_the_report_transcript_and_export_show_the_third_scaffolds_stages(batch, tmp_path):
    from bakeoff.batchfolder.read import read_batch
    from bakeoff.scaffolds import registry
    from bakeoff.tasks.registry import report_batch

    folder, result = batch
    (record,) = result.records
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._PLUGINS, NAME, f"{__name__}:OneShot")
        report_batch(folder, tmp_path / "report")
        page = (tmp_path / "report" / "transcripts" / f"{record.run_id}.html").read_text(encoding="utf-8")
        assert 'id="stage-implement"' in page and 'id="stage-evaluate"' in page
        assert "stage-agent" not in page and "no record: the stage did not finish" not in page
        samples = _export_samples(folder, tmp_path / "export")
    (sample,) = samples
    spans = [event.name for event in sample.events if type(event).__name__ == "SpanBeginEvent"]
    assert spans == ["implement", "evaluate"]
    assert sample.input[0].metadata["stage"] == "implement"
    (run,) = read_batch(folder).runs
    assert run.scaffold == NAME


def _export_samples(folder, out):
    from inspect_ai.log import read_eval_log

    from bakeoff.export.write import export_batch
    from bakeoff.tasks.registry import plugin_for_batch

    files = export_batch(folder, "inspect", out, plugin=plugin_for_batch(folder)).files
    return [sample for path in files if path.suffix == ".eval" for sample in (read_eval_log(str(path)).samples or [])]
