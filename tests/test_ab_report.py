"""The ab_test report section: probe verdict, stated unit and divergence per run and per model, the interval
metrics, and the two plots (checked as SVG and as pixels in headless Chromium)."""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET

import pytest
from ab_factory import TRUTHS, AbFakeRun, write_ab_batch
from report_png import read_png, region_stats

from bakeoff.batchfolder.read import read_batch
from bakeoff.report.tables import display
from bakeoff.tasks.ab_test.report import ab_test_section, intervals_plot, probe_plot
from bakeoff.tasks.ab_test.signals import ab_run_signals, summarise_models

SVG = "{http://www.w3.org/2000/svg}"
RUNS = [
    AbFakeRun("by_user", 1), AbFakeRun("by_user", 2, stated=None),
    AbFakeRun("by_visit", 1, half_width=0.0012, ratio=0.70), AbFakeRun("by_visit", 2, half_width=0.0012, ratio=0.71),
    AbFakeRun("crashing", 1, status="crashed", ratio=None),
]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return read_batch(write_ab_batch(tmp_path_factory.mktemp("ab-report") / "batch", RUNS))


@pytest.fixture(scope="module")
def section(records):
    return ab_test_section(records)


def test_per_run_signals_read_verdict_stated_unit_divergence_and_metrics(records):
    by_id = {r.run_id: ab_run_signals(r) for r in records.runs}
    assert [(s.measured_unit.value, s.stated.value, s.divergence.value if s.divergence else None)
            for s in by_id.values()] == [
        ("user", "user", "consistent"), ("visit", "user", "states_user_analyses_visits"), ("failed", "user", None),
        ("user", "unstated", "unstated"), ("visit", "user", "states_user_analyses_visits"),
    ]
    wide, narrow = by_id["by_user-r01"].grade, by_id["by_visit-r01"].grade
    assert wide.items == wide.graded == len(TRUTHS) and wide.failed == 0
    assert narrow.mean_width == pytest.approx(0.0024) and wide.mean_width == pytest.approx(0.008)
    assert narrow.coverage < wide.coverage == 1.0  # the wobble (up to 0.002) escapes only the narrow intervals
    assert len(by_id["by_visit-r01"].points) == len(TRUTHS)
    assert not by_id["crashing-r01"].scored and by_id["crashing-r01"].grade is None


def test_per_model_counts_and_bootstrap_means(records):
    signals = [ab_run_signals(r) for r in records.runs]
    models = {m.model: m for m in summarise_models(signals, ["by_user", "by_visit", "crashing"])}
    assert models["by_user"].measured == {"user": 2} and models["by_user"].divergent == 0
    assert models["by_visit"].measured == {"visit": 2} and models["by_visit"].divergent == 2
    assert models["crashing"].measured == {"failed": 1} and models["crashing"].scored == 0
    assert models["crashing"].figures.metric("winkler") is None
    user, visit = models["by_user"].figures.metric("winkler"), models["by_visit"].figures.metric("winkler")
    assert user.n == visit.n == 2 and user.low <= user.mean <= user.high
    assert visit.mean > user.mean  # the misses of the too-narrow intervals cost more than the width saved


def test_the_section_tables_and_findings(section):
    tables = {t.name: t for t in section.tables}
    assert set(tables) == {"ab_models", "ab_runs"}
    models = tables["ab_models"]
    names = [c.name for c in models.columns]
    rows = {row[0]: dict(zip(names, row, strict=False)) for row in models.rows}
    assert (rows["by_visit"]["by_visit"], rows["by_visit"]["divergent"], rows["by_user"]["stated_none"]) == (2, 2, 1)
    assert rows["crashing"]["probe_failed"] == 1 and rows["crashing"]["winkler"] is None
    runs = tables["ab_runs"]
    columns = [c.name for c in runs.columns]
    visit_row = dict(zip(columns, next(r for r in runs.rows if r[0] == "by_visit-r01"), strict=False))
    assert (visit_row["measured_unit"], visit_row["stated_unit"], visit_row["divergence"]) == (
        "visit", "user", "states_user_analyses_visits")
    assert visit_row["width_ratio"] == pytest.approx(0.70)
    assert display(visit_row["mean_width"], "f4") == "0.0024" and "by_visit-r01" in runs.to_csv()
    text = " ".join(section.findings)
    assert "by_visit: the unit probe found 2 of 2 probed analyses by visit" in text
    assert "by_visit: 2 designs state UNIT: user while the code analyses visits." in text
    assert "by_user: the unit probe found 0 of 2 probed analyses by visit" in text


def test_capture_and_crashes_are_counted_apart_from_the_scores(tmp_path):
    runs = [AbFakeRun("mute", 1, status="crashed", ratio=None, stated=None, mute=True),
            AbFakeRun("mute", 2, status="crashed", ratio=None, stated=None, mute=True), *RUNS]
    section = ab_test_section(read_batch(write_ab_batch(tmp_path / "batch", runs)))
    models = {t.name: t for t in section.tables}["ab_models"]
    names = [c.name for c in models.columns]
    rows = {row[0]: dict(zip(names, row, strict=True)) for row in models.rows}
    assert (rows["mute"]["graded"], rows["mute"]["uncaptured_runs"], rows["mute"]["capture_rate"]) == (0, 2, 0.0)
    assert rows["mute"]["winkler"] is None and rows["mute"]["crash_rate"] is None  # never a zero, never a crash
    assert (rows["crashing"]["graded"], rows["crashing"]["scored"], rows["crashing"]["crash_rate"]) == (1, 0, 1.0)
    assert rows["by_user"]["crash_rate"] == 0.0 and rows["by_user"]["capture_rate"] == 1.0
    text = " ".join(section.findings)
    assert "mute: every answer was uncaptured (2 runs); it is not scored, not scored as zero." in text
    assert "crashing: 1 of 1 graded run did not produce a valid interval on every hidden experiment." in text


def _bars(svg: str) -> dict[str, list[float]]:
    """Each drawn interval's pixel height by the run its tooltip names (the dot's title follows its bar)."""
    root = ET.fromstring(svg)
    children = list(root)
    heights: dict[str, list[float]] = {}
    for bar, dot in zip(children, children[1:], strict=False):
        if bar.tag == f"{SVG}line" and dot.tag == f"{SVG}circle":
            run = dot.find(f"{SVG}title").text.split(" on ")[0]
            heights.setdefault(run, []).append(abs(float(bar.get("y2")) - float(bar.get("y1"))))
    return heights


def test_the_intervals_plot_draws_every_experiment_for_every_graded_run(records):
    signals = [ab_run_signals(r) for r in records.runs]
    svg = intervals_plot(signals, ["by_user", "by_visit", "crashing"])
    bars = _bars(svg)
    assert set(bars) == {"by_user-r01", "by_user-r02", "by_visit-r01", "by_visit-r02"}  # the crashed run has none
    assert all(len(h) == len(TRUTHS) for h in bars.values())
    # the by-visit intervals are a third as wide: their bars are a third as tall
    assert sum(bars["by_visit-r01"]) / sum(bars["by_user-r01"]) == pytest.approx(0.3, abs=0.01)
    truth_ticks = re.findall(r'<line [^>]*stroke="#222222" stroke-width="2"/>', svg)
    assert len(truth_ticks) == len(TRUTHS)
    assert "12 hidden experiments, by true effect" in svg


def test_the_probe_plot_places_runs_by_their_ratio_in_the_model_colour_and_shapes_divergence(records):
    from bakeoff.report.plots import model_colours

    signals = [ab_run_signals(r) for r in records.runs]
    models = ["by_user", "by_visit", "crashing"]
    svg = probe_plot(signals, models)
    colours = model_colours(models)
    dots = {}
    for x, fill, stroke, title in re.findall(
            r'<circle cx="([\d.]+)"[^>]*fill="(#[0-9a-f]+)"(?: stroke="(#[0-9a-f]+)")?[^>]*><title>([^<]+)</title>', svg):
        dots[title.split(":")[0]] = (float(x), "hollow" if fill == "#ffffff" else "dot", stroke if fill == "#ffffff" else fill)
    for points, fill, title in re.findall(r'<polygon points="([^"]+)" fill="(#[0-9a-f]+)"[^>]*><title>([^<]+)</title>', svg):
        xs = [float(p.split(",")[0]) for p in points.split()]
        dots[title.split(":")[0]] = (sum(xs) / len(xs), "diamond", fill)
    runs = {name: dot for name, dot in dots.items() if "-r0" in name}
    assert set(runs) == {"by_user-r01", "by_user-r02", "by_visit-r01", "by_visit-r02"}
    assert runs["by_visit-r01"][0] < runs["by_user-r01"][0]
    assert runs["by_visit-r01"][1:] == ("diamond", colours["by_visit"])  # the design states another unit
    assert runs["by_user-r01"][1:] == ("dot", colours["by_user"])  # the design agrees
    assert runs["by_user-r02"][1:] == ("hollow", colours["by_user"])  # its design names no unit
    assert "1 not measured" in svg


def test_empty_plots_say_why():
    assert "no run was graded on the hidden experiments" in intervals_plot([], [])
    assert "no run was probed" in probe_plot([], [])


CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.mark.slow
def test_both_plots_render_in_chromium(section, tmp_path):
    for plot in section.plots:
        path = tmp_path / f"{plot.name}.svg"
        path.write_text(plot.svg, encoding="utf-8")
        shot, profile = tmp_path / f"{plot.name}.png", tmp_path / f"profile-{plot.name}"
        profile.mkdir()
        done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                               "--window-size=600,380", path.as_uri()], capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-2000:]
        colours, inked = region_stats(read_png(shot), 0, 30, 600, 340)
        assert colours >= 4 and 0.01 < inked < 0.9, (plot.name, colours, inked)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from bakeoff.tasks import report_batch as write_report

    return write_report(write_ab_batch(tmp_path_factory.mktemp("ab-full-report") / "batch", RUNS))


def test_the_report_of_an_ab_test_batch_holds_the_section(report):
    markdown = report.markdown.read_text(encoding="utf-8")
    assert "## Per model: unit of analysis and intervals" in markdown and "## Per run: unit of analysis and intervals" in markdown
    assert "by_visit: 2 designs state UNIT: user while the code analyses visits." in markdown
    assert {p.name for p in report.plots} >= {"ab_intervals.svg", "ab_unit_probe.svg"}
    assert (report.folder / "tables" / "ab_runs.csv").is_file() and (report.folder / "tables" / "ab_models.csv").is_file()
    html = report.html.read_text(encoding="utf-8")
    assert 'id="plot-ab_intervals"' in html and 'id="table-ab_models"' in html
    assert 'href="transcripts/by_visit-r01.html"' in html  # the per-run table links each run's transcript
    # the spam take-home's F1 sections are its plug-in's, not the report's: none of them here
    assert "Per model: scores and capture" not in markdown and "f1_per_model.svg" not in {p.name for p in report.plots}
    assert "Capture: calls not captured, by reason" in markdown  # what every task's report has


def test_an_ab_test_report_has_every_tasks_crash_repair_and_pair_tables_and_plots(report):
    """The part every task has (bakeoff.report.core), in the ab_test report, headed by the Winkler score."""
    tables = report.folder / "tables"
    for name in ("crash_taxonomy", "repair_turns", "paired_comparisons"):
        assert (tables / f"{name}.csv").is_file(), name
    assert {"crash_taxonomy.svg", "repair_transitions.svg"} <= {p.name for p in report.plots}
    pairs = (tables / "paired_comparisons.csv").read_text(encoding="utf-8").splitlines()
    assert pairs[0] == "model_a,model_b,shared_seeds,winkler_difference,low,high,a_wins,b_wins,ties"
    assert len(pairs) > 1  # the fixture's models share seeds
    crashes = (tables / "crash_taxonomy.csv").read_text(encoding="utf-8")
    assert "crash_class" in crashes.splitlines()[0]
    markdown = report.markdown.read_text(encoding="utf-8")
    assert "Paired comparisons (Winkler score of b minus a: positive when a is better; scored runs only)" in markdown
    assert "## Crash taxonomy" in markdown and "## Repair turns" in markdown


@pytest.mark.slow
def test_the_section_plots_render_in_the_page(report, tmp_path):
    from bakeoff.report.render import plot_box

    shot, profile = tmp_path / "page.png", tmp_path / "profile"
    profile.mkdir()
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                           "--window-size=1280,2400", report.html.as_uri()], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    image = read_png(shot)
    names = [p.stem for p in report.plots]
    for name in ("ab_intervals", "ab_unit_probe"):
        colours, inked = region_stats(image, *plot_box(names.index(name)))
        assert colours >= 4 and 0.01 < inked < 0.9, (name, colours, inked)
