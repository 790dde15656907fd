"""Issue 38, point 10: the report's first screen has no empty blocks. Read in headless Chromium at 1280x900: the
scores follow the header's last line and the findings follow the scores' last line closely (the header, the
scores and the findings were boxes of fixed height, 160, 320 and 280 px, that stood mostly empty under a short
batch), while the plots still begin where bakeoff.report.render.plot_box says."""

from __future__ import annotations

import pytest
from analysis_factory import FakeRun, write_batch
from export_support import DevTools

from bakeoff.report.render import PLOTS_TOP, plot_box
from bakeoff.tasks import report_batch

pytestmark = [pytest.mark.slow]

# The page's boxes as laid out: the last line of the header and of the scores, the headings under them, the plots.
LAYOUT = """(() => { const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
  return [r.left, r.top + scrollY, r.width, r.height]; };
  const last = s => box([...document.querySelectorAll(s)].pop());
  return {ready: document.readyState, header_end: last('header > *'), scores: box(document.querySelector('#scores h2')),
          scores_end: last('#scores > *'), findings: box(document.querySelector('#findings h2')),
          plot: box(document.querySelector('#plots figure svg'))}; })()"""


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    root = tmp_path_factory.mktemp("blocks")
    runs = [FakeRun("floor", i, f1=0.0) for i in (1, 2, 3)] + [FakeRun("fine", i, f1=f)
                                                              for i, f in enumerate((0.70, 0.72, 0.75), 1)]
    report = report_batch(write_batch(root / "batch", runs), root / "report")
    with DevTools(root) as browser:
        return browser.measure((report.folder / "report.html").as_uri(), LAYOUT, "plot")


def test_the_scores_follow_the_header_closely(layout):
    end = layout["header_end"][1] + layout["header_end"][3]
    assert layout["scores"][1] - end < 50, layout  # a 160 px header left about 70 px of nothing here


def test_the_findings_follow_the_scores_closely(layout):
    end = layout["scores_end"][1] + layout["scores_end"][3]
    assert layout["findings"][1] - end < 60, layout  # a 320 px scores box left about 100 px of nothing here


def test_the_plots_begin_where_plot_box_says(layout):
    left, top, width, height = plot_box(0)
    assert top == PLOTS_TOP and [round(v) for v in layout["plot"]] == [left, top, width, height], layout
