"""Acceptance: the HTML report opened in headless Chromium: every plot rendered, key sections present."""

import csv
import json
import re
import subprocess

import pytest
from analysis_factory import KEEPS_DESIGN, FakeRun, write_batch
from report_png import read_png, region_stats

from bakeoff.report.render import plot_box
from bakeoff.tasks import report_batch as write_report
from bakeoff.tasks.spam_classifier.probes import USES_LEAK

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PLOTS = ("f1_per_model", "crash_taxonomy", "repair_transitions", "claimed_vs_real", "predicted_rate", "pareto")
CALIBRATION = {"references": [
    {"variant": "careless", "local_f1": 0.98, "holdout_f1": 0.31, "predicted_positive_rate": 0.03},
    {"variant": "text_only", "local_f1": 0.78, "holdout_f1": 0.767, "predicted_positive_rate": 0.17},
    {"variant": "careful", "local_f1": 0.81, "holdout_f1": 0.801, "predicted_positive_rate": 0.18},
]}


def _chromium(tmp_path, *args):
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report") / "batch"
    lost = {"calls": 3, "captured": 0, "uncaptured": 3, "unusable": 0}
    runs = [FakeRun("steady", i, f1=0.74 + 0.01 * i, predicted_rate=0.16 + 0.01 * i) for i in range(1, 6)]
    runs += [FakeRun("leaky", 1, f1=0.35, claimed_f1=0.97, design=KEEPS_DESIGN, probe=USES_LEAK, predicted_rate=0.04),
             FakeRun("leaky", 2, f1=None, rung=2, status="crashed", crash_class="pickle_class_missing",
                     turns=[(5, 0.7, 2, None, "regressed")]),
             FakeRun("leaky", 3, f1=None, rung=1, status="crashed", crash_class="module_not_found",
                     turns=[(0, None, 1, None, "rescued")]),
             FakeRun("leaky", 4, f1=0.6, turns=[(1, None, 5, 0.6, "rescued")]),
             FakeRun("leaky", 5, f1=0.62)]
    runs += [FakeRun("mute", i, f1=None, rung=0, status="not_checked", implement_attribution="uncaptured",
                     capture=lost, design=None, probe=None, explore_exit=None) for i in range(1, 6)]
    write_batch(folder, runs)
    (folder / "calibration.json").write_text(json.dumps(CALIBRATION))
    return write_report(folder)


def test_every_plot_renders_in_the_page(report, tmp_path):
    shot = tmp_path / "page.png"
    _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2600", report.html.as_uri())
    image = read_png(shot)
    for index, name in enumerate(PLOTS):
        left, top, width, height = plot_box(index)
        colours, inked = region_stats(image, left, top, width, height)
        assert colours >= 4, f"{name}: {colours} colours: blank"
        assert 0.01 < inked < 0.9, f"{name}: {inked:.1%} of its pixels inked"
    # the header above the plots and the gap between them are not plots: they hold no plot ink
    gap_colours, _ = region_stats(image, plot_box(0)[0] + plot_box(0)[2] + 2, plot_box(0)[1] + 40, 14, 300)
    assert gap_colours <= 2


def test_the_page_holds_its_sections_and_names_the_uncaptured_model(report, tmp_path):
    dom = _chromium(tmp_path, "--dump-dom", report.html.as_uri())
    for name in PLOTS:
        assert f'id="plot-{name}"' in dom
    for section in ("scores", "findings", "glossary", "table-models", "table-model_behaviour", "table-runs", "table-crash_taxonomy",
                    "table-repair_turns", "table-paired_comparisons", "table-cost_runs", "table-cost_models"):
        assert f'id="{section}"' in dom
    assert "mute: every answer was uncaptured" in dom
    assert "every answer uncaptured: not scored" in dom  # in the F1 plot, in place of a point
    assert "repair turn 1 broke 1 of 3 pipelines" in dom
    assert "<script" not in report.html.read_text() and "http://" not in report.html.read_text().replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_each_standalone_plot_renders(report, tmp_path):
    for plot in report.plots:
        shot = tmp_path / f"{plot.stem}.png"
        _chromium(tmp_path, f"--screenshot={shot}", "--window-size=600,380", plot.as_uri())
        colours, inked = region_stats(read_png(shot), 0, 30, 600, 340)
        assert colours >= 4 and inked > 0.01, plot.stem


def test_the_careless_reference_inversion_is_visible(report):
    svg = (report.folder / "plots" / "claimed_vs_real.svg").read_text()
    diamonds = {}
    for match in re.finditer(r'<polygon points="([^"]+)"[^>]*><title>reference (\w+):', svg):
        xs, ys = zip(*(map(float, p.split(",")) for p in match.group(1).split()), strict=True)
        diamonds[match.group(2)] = (sum(xs) / 4, sum(ys) / 4)
    assert set(diamonds) == {"careless", "text_only", "careful"}
    careless_x, careless_y = diamonds["careless"]
    # leftmost (worst real F1) and highest (best claimed F1; SVG y grows downwards)
    assert all(careless_x < x and careless_y < y for name, (x, y) in diamonds.items() if name != "careless")


def test_uncaptured_model_is_never_a_zero_in_the_tables(report):
    with open(report.folder / "tables" / "models.csv", newline="") as handle:
        mute = next(row for row in csv.DictReader(handle) if row["model"] == "mute")
    f1_columns = ("f1", "f1_low", "f1_high", "f1_scored", "f1_scored_low", "f1_scored_high")
    assert [mute[c] for c in f1_columns] == ["uncaptured"] * 6
    assert (mute["graded"], mute["uncaptured_runs"], mute["capture_rate"]) == ("0", "5", "0.0")
