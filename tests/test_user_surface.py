"""What a new user trips over first (issue 27, "Smaller"): typos answered with the nearest name, model paths read
against the plan file, `generate --out` into a folder that does not exist yet, `score` without --task, the
review's quick subsets, the review-only reader refused in a take-home plan, prompts and docs agreeing on the
stages, and docs that link only inside the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from runner_support import REPO_ROOT, bakeoff_cli

from bakeoff.models.errors import ModelSpecError
from bakeoff.models.spec import parse_spec
from bakeoff.records import STAGE_NAMES
from bakeoff.runner.plan import PlanError, ReviewOnlyReader, load_plan, plan_from_mapping


def test_a_mistyped_spec_kind_is_answered_with_the_nearest_form():
    with pytest.raises(ModelSpecError, match=r"did you mean 'gguf:'"):
        parse_spec("gguff:/models/x")
    with pytest.raises(ModelSpecError, match=r"did you mean 'default'"):
        parse_spec("defualt")
    with pytest.raises(ModelSpecError) as nothing_close:
        parse_spec("zzz")
    assert "did you mean" not in str(nothing_close.value)


@pytest.mark.parametrize("raw, nearest", [
    ({"modles": ["default"], "rnus": 2}, "'models' for 'modles', 'runs' for 'rnus'"),
    ({"limits": {"memory": 1}}, "'memory_mb'"),
    ({"models": [{"spec": "default", "resoning": "off"}]}, "'reasoning'"),
])
def test_a_mistyped_plan_key_is_answered_with_the_nearest_key(raw, nearest):
    mapping = {"models": ["default"], "corpus": "c", **raw}
    with pytest.raises(PlanError, match="did you mean") as refused:
        plan_from_mapping(mapping, Path("/base"))
    assert nearest in str(refused.value)


def test_a_mistyped_task_and_task_setting_are_answered_with_the_nearest_name():
    from bakeoff.taskapi.spec import TaskSpecError, load_task
    from bakeoff.tasks.registry import UnknownTask, task_plugin

    with pytest.raises(UnknownTask, match=r"did you mean 'ab_test'"):
        task_plugin("ab_tset")
    with pytest.raises(TaskSpecError, match=r"did you mean 'max_tokens'"):
        load_task("spam_classifier", {"max_token": 10})


def test_the_review_only_reader_is_refused_in_a_take_home_plan():
    with pytest.raises(ReviewOnlyReader, match="bakeoff review"):
        plan_from_mapping({"models": ["baseline:cues"], "corpus": "c"}, Path("/base"))
    with pytest.raises(ReviewOnlyReader):
        plan_from_mapping({"models": [{"spec": "baseline:cues", "label": "cues"}], "corpus": "c"}, Path("/base"))


def test_model_files_are_read_against_the_plan_file_like_the_corpus(tmp_path, monkeypatch):
    plans = tmp_path / "plans"
    plans.mkdir()
    (plans / "answers.jsonl").write_text("{}\n")
    (plans / "plan.toml").write_text(
        'corpus = "corpus"\nmodels = ["scripted:answers.jsonl", "gguf:models/m.gguf", "weights/w.gguf",'
        ' "openai:http://127.0.0.1:9/v1#served"]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # run from another folder: the plan's own folder still decides
    plan = load_plan(plans / "plan.toml")
    assert plan.corpus == str(plans / "corpus")
    assert [m.spec for m in plan.models] == [
        f"scripted:{plans / 'answers.jsonl'}", f"gguf:{plans / 'models/m.gguf'}", str(plans / "weights/w.gguf"),
        "openai:http://127.0.0.1:9/v1#served"]
    assert [m.label for m in plan.models] == ["answers", "m", "w", "served"]  # labels as the plan wrote the files


def test_generate_makes_the_parent_folders_of_out(tmp_path):
    out = tmp_path / "corpora" / "deeper" / "ab"
    done = bakeoff_cli("generate", "--task", "ab_test", "--out", str(out), "--experiments", "2", "--users", "400")
    assert done.returncode == 0, done.stderr
    assert (out / "manifest.json").is_file()


def test_score_reads_the_task_from_the_corpus_manifest(tmp_path):
    from bakeoff.tasks.registry import CorpusTaskUnknown, task_of_corpus

    for task, version in (("spam_classifier", "spam-1.0"), ("ab_test", "ab_test-1.0")):
        folder = tmp_path / task
        folder.mkdir()
        (folder / "manifest.json").write_text(json.dumps({"generator_version": version}))
        assert task_of_corpus(folder) == task
    named = tmp_path / "named"
    named.mkdir()
    (named / "manifest.json").write_text(json.dumps({"task": "ab_test", "generator_version": "spam-1.0"}))
    assert task_of_corpus(named) == "ab_test"  # a manifest that names its task is believed first
    (named / "manifest.json").write_text(json.dumps({"generator_version": "weather-3"}))
    with pytest.raises(CorpusTaskUnknown, match="give --task"):
        task_of_corpus(named)
    (named / "manifest.json").write_text("[" * 10_000)  # damaged, or hostile: a named refusal, not a traceback
    with pytest.raises(CorpusTaskUnknown, match="give --task"):
        task_of_corpus(named)
    assert task_of_corpus(tmp_path / "no-such-folder") == "spam_classifier"  # its corpus check names what is missing
    # The command: an ab_test corpus and no --task is graded as ab_test (an empty submission: nothing to install).
    corpus = tmp_path / "ab"
    made = bakeoff_cli("generate", "--task", "ab_test", "--out", str(corpus), "--experiments", "2", "--users", "400")
    assert made.returncode == 0, made.stderr
    refused = bakeoff_cli("score", str(tmp_path / "empty"), "--corpus", str(corpus), "--train")
    assert "OptionNotForTask" in refused.stderr  # ab_test's own refusal of --train: the task came from the manifest


def test_review_subsets_keep_pairs_whole():
    from bakeoff.cli.review import UnknownFamily, select_items
    from bakeoff.review.items import load_items

    items = load_items()
    few = select_items(items, (), 3)
    pairs = {item.pair_id for item in few}
    assert len(few) >= 3 and all(sum(i.pair_id == p for i in few) == 2 for p in pairs if p)
    family = next(item.family for item in items if item.family)
    chosen = select_items(items, (family,), None)
    assert {i.family for i in chosen if i.is_problem} == {family} and any(not i.is_problem for i in chosen)
    with pytest.raises(UnknownFamily, match="did you mean"):
        select_items(items, (family[:-1] + "x",), None)
    shown = bakeoff_cli("review", "--help")
    assert "--limit" in shown.stdout and "--family" in shown.stdout


@pytest.mark.parametrize("task", ["spam_classifier", "ab_test", "simulation"])
def test_prompts_count_the_stages_the_docs_count(task):
    readme = (REPO_ROOT / "README.md").read_text()
    assert f"in {['one', 'two', 'three', 'four', 'five', 'six', 'seven'][len(STAGE_NAMES) - 1]} stages" in readme
    for prompt in sorted((REPO_ROOT / "task_specs" / task / "prompts").glob("*.md")):
        first = prompt.read_text().splitlines()[0]
        found = re.match(r"Stage (\d+) of (\d+): ", first)
        if found is None:
            continue  # a repair prompt continues the implement conversation
        assert int(found.group(2)) == len(STAGE_NAMES), prompt
        assert STAGE_NAMES[int(found.group(1)) - 1] == prompt.stem, prompt


def test_docs_link_only_inside_the_repository():
    pages = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            assert not re.match(r"[a-z]+://", target), f"{page.name} links outside the repository: {target}"
            path = target.split("#", 1)[0]
            if path:
                assert (page.parent / path).resolve().is_relative_to(REPO_ROOT), (page.name, target)
                assert (page.parent / path).exists(), (page.name, target)
