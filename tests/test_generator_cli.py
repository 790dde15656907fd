"""`bakeoff generate`: bad input gives a named error, a non-zero exit, and no partial corpus."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from generators.errors import OutputFolderNotWritable
from generators.spam_classifier import CorpusParams, generate_corpus, writer

SMALL = ["--rows", "300", "--holdout-rows", "100"]


def invoke(*args: str):
    return CliRunner().invoke(main, ["generate", *args])


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir())


@pytest.mark.parametrize(
    "option, value",
    [
        ("--rows", "0"),
        ("--rows", "-5"),
        ("--holdout-rows", "0"),
        ("--spam-rate", "1.0"),
        ("--spam-rate", "0"),
        ("--flip-rate", "-0.01"),
        ("--flip-rate", "1"),
        ("--dup-rate", "1.5"),
        ("--noise-rate", "1.0"),
        ("--contamination", "-0.1"),
        ("--contamination", "0.6"),
    ],
)
def test_bad_parameters_are_named_errors_and_write_nothing(tmp_path, option, value):
    result = invoke("--out", str(tmp_path / "corpus"), *SMALL, option, value)
    assert result.exit_code != 0
    assert "error: InvalidParameter:" in result.output
    assert "Traceback" not in result.output
    assert leftovers(tmp_path) == []


def test_non_empty_folder_needs_force(tmp_path):
    target = tmp_path / "corpus"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    result = invoke("--out", str(target), *SMALL)
    assert result.exit_code != 0
    assert "error: OutputFolderNotEmpty:" in result.output
    assert leftovers(target) == ["notes.txt"] and leftovers(tmp_path) == ["corpus"]

    forced = invoke("--out", str(target), *SMALL, "--force")
    assert forced.exit_code == 0, forced.output
    assert "notes.txt" not in leftovers(target) and "manifest.json" in leftovers(target)
    assert leftovers(tmp_path) == ["corpus"], "no staging or retired folder is left beside it"


def test_empty_existing_folder_is_fine(tmp_path):
    target = tmp_path / "corpus"
    target.mkdir()
    result = invoke("--out", str(target), *SMALL)
    assert result.exit_code == 0, result.output
    assert "train.csv" in leftovers(target)


@pytest.mark.parametrize("make_target", ["under_a_file", "is_a_file"])
def test_unwritable_output_is_a_named_error(tmp_path, make_target):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    target = {
        "under_a_file": blocker / "corpus",
        "is_a_file": blocker,
    }[make_target]
    result = invoke("--out", str(target), *SMALL)
    assert result.exit_code != 0
    assert "error: OutputFolderNotWritable:" in result.output
    assert leftovers(tmp_path) == ["plain-file"]


def test_missing_parents_are_made(tmp_path):
    target = tmp_path / "no" / "such" / "corpus"
    result = invoke("--out", str(target), *SMALL)
    assert result.exit_code == 0, result.output
    assert "train.csv" in leftovers(target)


def test_a_failure_midway_leaves_no_partial_corpus(tmp_path, monkeypatch):
    def broken_write(tables, folder):
        (folder / "train.csv").write_text("half a file")
        raise OSError("disk full")

    monkeypatch.setattr(writer, "write_tables", broken_write)
    with pytest.raises(OSError, match="disk full"):
        generate_corpus(CorpusParams(rows=300, holdout_rows=100), tmp_path / "corpus")
    assert leftovers(tmp_path) == []


def test_generate_writes_a_corpus_and_reports_it(tmp_path):
    result = invoke("--out", str(tmp_path / "corpus"), *SMALL, "--seed", "5")
    assert result.exit_code == 0, result.output
    assert "300 training rows" in result.output
    assert leftovers(tmp_path / "corpus") == sorted(
        ["train.csv", "holdout.csv", "holdout_answers.csv", "truth.csv", "excerpt.txt", "manifest.json", "secret.hex"]
    )
    assert (tmp_path / "corpus").stat().st_mode & 0o777 == 0o755  # not the private mode of a temp folder


def test_help_exists():
    for command in ("generate", "calibrate"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert result.exit_code == 0 and "Usage:" in result.output


def test_writer_error_class_is_a_generator_error():
    from generators.errors import GeneratorError

    assert issubclass(OutputFolderNotWritable, GeneratorError)


def _ctrl_c_as_a_shell_delivers_it() -> None:
    """In the child before exec: SIGINT neither ignored nor blocked, as for a shell's foreground job. A test worker
    need not be so after other tests ran in it, and a Python started with SIGINT ignored keeps ignoring it (the
    clean-clone suite saw the generation run to its end, exit 0, twice)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_during_generate_exits_130_and_leaves_no_corpus(tmp_path):
    """Ctrl-C is 130 in every command; generate used to exit 1 (click's "Aborted!")."""
    out = tmp_path / "corpus"
    # Ten times the default rows: the default corpus takes about 4 s here, and on a loaded machine the signal
    # landed after it was done (exit 0); this one takes about 30 s, and the signal ends it in its first second.
    process = subprocess.Popen([str(Path(sys.executable).parent / "bakeoff"), "generate", "--out", str(out),
                                "--rows", "2080000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_ctrl_c_as_a_shell_delivers_it)
    deadline = time.monotonic() + 120
    while not any(p.name != "corpus" for p in tmp_path.iterdir()):  # the staged sibling: generation has begun
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists()
