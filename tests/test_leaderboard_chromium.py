"""Issue 38: the leaderboard as a person sees it, in headless Chromium at 1280x900. Two finished nights of the same
two models, one run added later: the first screen names the batches, says who beats whom by how much with its
interval, ranks the rows with their intervals and keeps the "added later" mark, with no empty block above it, and
the plot's axes read as round, distinct values from the metric's floor. (`BAKEOFF_KEEP_SCREENSHOT=DIR` copies the
screenshot out: the closing note's description was made from it.)"""

from __future__ import annotations

import base64
import json
import os
import shutil
from pathlib import Path

import pytest
from analysis_factory import FakeRun, write_batch
from click.testing import CliRunner
from export_support import DevTools
from report_png import read_png, region_stats

from bakeoff.cli import main

pytestmark = [pytest.mark.slow]

IDENTITIES = {"careful": "sha256:aaa", "hasty": "sha256:bbb"}
# What the page lays out, read in the browser: each element's box and the page's visible text.
BOXES = """(() => { const box = s => { const e = document.querySelector(s); if (!e) return null;
  const r = e.getBoundingClientRect(); return [r.left, r.top + scrollY, r.width, r.height]; };
  return {ready: document.readyState, h1: box('header h1'), task: box('section[id^="task-"] h2'), table: box('div[id^="table-leaderboard"] table'),
          plot: box('figure[id^="plot-pareto"] svg'), text: document.body.innerText,
          ticks: [...document.querySelectorAll('figure[id^="plot-pareto"] svg text[font-size="10"]')]
            .map(t => [t.getAttribute('text-anchor'), t.textContent]),
          rows: [...document.querySelector('div[id^="table-leaderboard"] table').querySelectorAll('tbody tr')]
            .map(r => r.innerText)}; })()"""


def night(folder: Path, careful: tuple[float, ...], hasty: tuple[float, ...], added: tuple[str, ...] = ()) -> Path:
    """A finished batch of both models on one corpus (the leaderboard pools it with the other)."""
    write_batch(folder, [FakeRun("careful", i, f1=f) for i, f in enumerate(careful, 1)]
                + [FakeRun("hasty", i, f1=f) for i, f in enumerate(hasty, 1)])
    record = json.loads((folder / "batch.json").read_text())
    record.update(identities=IDENTITIES, corpus_sha256={"manifest.json": "c1"}, code_version={"version": "0.9"},
                  task_version="v1")
    if added:
        record["extensions"] = [{"at": "2026-12-01T00:00:00+00:00", "previous_plan_sha256": "0" * 64, "added": list(added)}]
    (folder / "batch.json").write_text(json.dumps(record))
    return folder


@pytest.fixture(scope="module")
def seen(tmp_path_factory):
    root = tmp_path_factory.mktemp("board-chromium")
    one = night(root / "night1", (0.71, 0.74, 0.72), (0.40, 0.0, 0.45), added=("hasty-r03",))
    two = night(root / "night2", (0.73, 0.70, 0.75), (0.42, 0.38, 0.0))
    done = CliRunner().invoke(main, ["leaderboard", str(one), str(two), "--out", str(root / "board")])
    assert done.exit_code == 0, done.output
    page = (root / "board" / "leaderboard.html").as_uri()
    with DevTools(root) as browser:
        found = browser.measure(page, BOXES, "table")
        shot = root / "leaderboard.png"
        shot.write_bytes(base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"]))
    keep = os.environ.get("BAKEOFF_KEEP_SCREENSHOT")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / "leaderboard.png")
    return found, shot


def test_the_first_screen_ranks_both_models_with_intervals_and_the_added_later_mark(seen):
    found, _ = seen
    assert found["table"][1] + found["table"][3] <= 900  # the ranked table is on the first screen
    careful, hasty = found["rows"]
    assert careful.split("\t")[:4] == ["1", "careful", "0.725", "[0.712, 0.738]"], careful
    assert hasty.split("\t")[:4] == ["2", "hasty", "0.275", "[0.130, 0.420]"], hasty
    assert "night1: 1 of 3 runs added later (extension 1)" in hasty
    text = found["text"]
    assert "Batches: night1, night2." in text
    assert "careful beats hasty by 0.450 F1 on 6 shared seeds (95% interval of careful's advantage: [0.298, 0.603])" in text


def test_no_empty_block_sits_between_the_title_and_the_board(seen):
    found, shot = seen
    h1, task = found["h1"], found["task"]
    assert task[1] - (h1[1] + h1[3]) < 60, (h1, task)  # a fixed-height header left 130 px of nothing here
    _, inked = region_stats(read_png(shot), 0, 0, 1280, 900)
    assert inked > 0.02


def test_the_plot_reads_from_the_floor_with_distinct_ticks(seen):
    found, shot = seen
    left, top, width, height = (int(v) for v in found["plot"])
    colours, inked = region_stats(read_png(shot), left, top, width, min(height, 900 - top))
    assert colours >= 4 and inked > 0.01  # drawn: axes, dots of two colours
    times = [text for anchor, text in found["ticks"] if anchor == "middle"]
    f1s = [float(text) for anchor, text in found["ticks"] if anchor == "end"]
    assert len(times) >= 2 and len(set(times)) == len(times), times  # not every tick `0`
    assert min(f1s) == 0.0 and max(f1s) <= 1.0, f1s  # from F1's floor, not -0.07
