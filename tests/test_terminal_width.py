"""Issue 38, "final tables fit the terminal's width": the scores table `bakeoff run` and `bakeoff leaderboard` print
gives up its optional columns (wall time, tokens, speed, marks), last first, until it fits, names what it left out,
and never folds a model's name or a number at 80 columns."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from analysis_factory import FakeRun
from rich.console import Console
from runner_support import bakeoff_cli
from test_leaderboard import fake_batch

from bakeoff.analysis.leaderboard import pooled_board
from bakeoff.batchfolder.read import read_batch
from bakeoff.report.terminal import scores_renderable
from bakeoff.tasks.spam_classifier.words import HEADLINE as F1

MODELS = ("qwen3-8b-instruct-q4_k_m", "llama-3.1-8b-instruct-q6_k-agent")


@pytest.fixture
def board(tmp_path):
    runs = [FakeRun(model, i, f1=0.6 + 0.01 * i + 0.1 * n) for n, model in enumerate(MODELS) for i in (1, 2, 3)]
    folder = fake_batch(tmp_path / "night", runs, {m: f"sha256:{n}" for n, m in enumerate(MODELS)})
    return folder, pooled_board([read_batch(folder)], F1, "spam_classifier")


def printed(table, width: int) -> list[str]:
    out = io.StringIO()
    Console(width=width, file=out, color_system=None).print(table)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("width", [80, 100, 120])
def test_the_scores_table_fits_and_keeps_names_and_numbers_whole(board, width):
    _, pooled = board
    lines = printed(scores_renderable(pooled.rows, F1, "scores", width), width)
    assert max(map(len, lines)) <= width
    for row in pooled.rows:  # each row on one line: its name and its headline side by side
        assert any(row.model in line and F1.show(row.headline.mean) in line for line in lines), (row.model, lines)


def test_a_narrow_terminal_names_the_columns_it_left_out_and_a_wide_one_shows_all(board):
    _, pooled = board
    narrow = "\n".join(printed(scores_renderable(pooled.rows, F1, "scores", 80), 80))
    assert "not shown at this width: wall s, tokens in/out, tok/s" in narrow and "tok/s " not in narrow.split("\n")[2]
    wide = "\n".join(printed(scores_renderable(pooled.rows, F1, "scores", 160), 160))
    assert "not shown" not in wide and "tokens in/out" in wide and "tok/s" in wide


def test_bakeoff_leaderboard_prints_at_the_width_it_is_given(board, tmp_path):
    folder, _ = board
    done = bakeoff_cli("leaderboard", str(folder), "--out", str(tmp_path / "board"), env_extra={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if not line.startswith(("html:", "markdown:", "tables:"))]  # paths
    assert max(map(len, table)) <= 80 and any(MODELS[1] in line for line in table)
    assert Path(tmp_path / "board").is_dir()
