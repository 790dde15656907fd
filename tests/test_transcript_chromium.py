"""Acceptance: the transcript pages of a real scripted batch (real Docker sandbox), opened in headless Chromium.

`rescued` crashes (module_not_found), is repaired and rescued; `regressed` breaks its output
in the repair turn. Each page must show every stage, the repair turn's diff from the run's
git history with the ladder before and after, and the crash class; model output with markup
must arrive as text. A review in the batch gets its page too.
"""

from __future__ import annotations

import re

import pytest
from export_support import add_scripted_review, chromium, element_screenshot, make_scripted_batch
from report_png import read_png, region_stats

pytestmark = [pytest.mark.docker, pytest.mark.slow]

STAGES = ("explore", "decide", "implement", "repair", "evaluate", "docs")
DEL_BG, ADD_BG = (255, 235, 233), (230, 255, 236)  # .diff .del / .add in transcript_html.CSS


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from bakeoff.tasks import report_batch as write_report

    root = tmp_path_factory.mktemp("transcripts")
    batch = make_scripted_batch(root)
    add_scripted_review(batch, root)
    return write_report(batch)


def _dom(report, tmp_path, name):
    page = report.folder / "transcripts" / name
    assert page.is_file()
    return chromium(tmp_path, "--dump-dom", page.as_uri())


def _text(dom: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))


def test_the_report_links_each_run_to_its_transcript(report, tmp_path):
    dom = chromium(tmp_path, "--dump-dom", report.html.as_uri())
    for run_id in ("rescued-r01", "regressed-r01"):
        assert f'<a href="transcripts/{run_id}.html">transcript</a>' in dom
    assert 'href="transcripts/review-review-scripted.html"' in dom
    assert "transcripts/rescued-r01.html" in (report.folder / "tables" / "runs.csv").read_text()


def test_the_rescued_run_shows_every_stage_the_crash_and_the_repair_diff(report, tmp_path):
    dom = _dom(report, tmp_path, "rescued-r01.html")
    positions = [dom.index(f'id="stage-{stage}"') for stage in STAGES]
    assert positions == sorted(positions)  # in order
    implement = dom[positions[2]:positions[3]]
    assert 'class="bad crash-class">module_not_found<' in implement
    assert "No module named 'spam_magic_toolkit'" in implement  # the command's output tail
    assert "exit 1" in implement
    repair = dom[positions[3]:positions[4]]
    assert "git: the implement commit to the repair commit" in repair
    assert '<span class="del">-import spam_magic_toolkit</span>' in repair  # the diff of the turn
    text = _text(repair)
    assert "ladder before rung 1 (requirements_installed), crashed, crash class module_not_found" in text
    assert "ladder after rung 5 (scored), scored, F1 0." in text
    assert "Repair turn 1: rescued" in text
    outcome = _text(dom[:positions[0]])
    assert "final outcome rung 5 (scored), scored" in outcome and "claimed F1 0." in outcome
    # every file the harness wrote, with its sha256
    assert re.search(r"train\.py</td><td>\d+</td><td>[0-9a-f]{64}</td>", implement)


def test_the_regressed_run_shows_its_broken_output(report, tmp_path):
    dom = _dom(report, tmp_path, "regressed-r01.html")
    repair = dom[dom.index('id="stage-repair"'):dom.index('id="stage-evaluate"')]
    text = _text(repair)
    assert "Repair turn 1: regressed" in text
    assert "ladder before rung 5 (scored), scored" in text and "ladder after rung 3 (prediction_completed), bad_output" in text
    assert '<span class="del">-pd.DataFrame({"id": df["id"], "label"' in repair
    assert '<span class="add">+pd.DataFrame({"message": df["id"], "spam"' in repair


def test_model_output_with_markup_is_shown_as_text(report, tmp_path):
    page = (report.folder / "transcripts" / "rescued-r01.html").read_text()
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;document.title=&#x27;owned&#x27;&lt;/script&gt;" in page
    dom = _dom(report, tmp_path, "rescued-r01.html")
    assert "<title>transcript: rescued-r01</title>" in dom  # no script ran
    assert dom.count('id="stage-') == len(STAGES)  # the answer's </details> did not close the page's


def test_prompts_start_folded_and_say_what_the_budget_cut(report, tmp_path):
    dom = _dom(report, tmp_path, "rescued-r01.html")
    folded = re.findall(r"<details>(<summary>prompt[^:<]*: \d+ messages, key [^<]+</summary>)<p class=\"note\">([^<]+)</p>", dom)
    assert len(folded) == 5  # explore, decide, implement, the repair turn's, docs
    assert all(note == "nothing was cut to fit the context budget" for _, note in folded)


def test_the_review_page_puts_each_verdict_next_to_the_truth(report, tmp_path):
    text = _text(_dom(report, tmp_path, "review-review-scripted.html"))
    assert len(re.findall(r"\btruth (OK|PROBLEM)", text)) == 4
    assert "no verdict: not graded (uncaptured)" in text
    assert re.search(r"verdict (OK|PROBLEM): wrong", text)
    assert text.count(": right") == 2
    assert "blamed line 3" in text and "confidence 70" in text
    page = (report.folder / "transcripts" / "review-review-scripted.html").read_text()
    assert "<script" not in page and "&lt;b&gt;the scaler&lt;/b&gt;" in page


def test_screenshot_of_the_repair_diff(report, tmp_path):
    page = (report.folder / "transcripts" / "regressed-r01.html").as_uri()
    image = read_png(element_screenshot(tmp_path, page, "#turn-1 pre.diff"))
    colours, inked = region_stats(image, 0, 0, image.width, image.height)
    assert colours >= 6 and inked > 0.3  # the diff's grey, red and green backgrounds and its text
    pixels = {image.pixel(x, y) for y in range(0, image.height, 2) for x in range(0, image.width, 4)}
    assert DEL_BG in pixels and ADD_BG in pixels  # the removed and the added lines are drawn in their colours
