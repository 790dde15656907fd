"""`bakeoff review import`: cells of a notebook we write become a real, fixture-less item, and such items
run end to end through `bakeoff review --items` with a scripted model."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.review.items import load_items


def _notebook(path):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Churn model\n", "Quarterly refresh.\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
         "source": ["import pandas as pd\n", "df = pd.read_csv('subscribers.csv')\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 2,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["SECRET OUTPUT 0.97\n"]}],
         "source": ["%matplotlib inline\n", "from sklearn.preprocessing import StandardScaler\n",
                    "X = StandardScaler().fit_transform(df.drop(columns='churned'))\n"]},
        {"cell_type": "markdown", "metadata": {}, "source": "Now the split."},
        {"cell_type": "code", "metadata": {}, "execution_count": 3, "outputs": [],
         "source": "from sklearn.model_selection import train_test_split\n"
                   "X_train, X_test, y_train, y_test = train_test_split(X, df['churned'])\n"
                   "!pip list\n"
                   "print(model.score(X_test, y_test))"},
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _import(tmp_path, out, *extra):
    args = ["review", "import", str(_notebook(tmp_path / "churn.ipynb")), "--cells", "3-5",
            "--claim", "The churn model scores 0.81 on held-out subscribers.", "--licence", "MIT",
            "--repository", "example-org/churn-notebooks", "--path", "notebooks/churn.ipynb", "--out", str(out), *extra]
    return CliRunner().invoke(main, args)


def test_cells_become_a_real_item_with_outputs_stripped_and_lines_rebased(tmp_path):
    out = tmp_path / "real.jsonl"
    # Line 3 of the chosen cells (magic line included) is the fit; after dropping the magic it is line 2.
    result = _import(tmp_path, out, "--verdict", "PROBLEM", "--family", "data_leakage", "--flaw-lines", "3")
    assert result.exit_code == 0, result.output
    (item,) = load_items(out)
    assert item.is_real and item.fixture is None and item.pair_id is None
    assert "SECRET OUTPUT" not in item.code and "%matplotlib" not in item.code and "!pip" not in item.code
    assert "# Churn model" not in item.code and "Now the split" not in item.code  # markdown skipped
    assert item.code_lines[item.flaw_lines[0] - 1] == "X = StandardScaler().fit_transform(df.drop(columns='churned'))"
    assert item.flaw_lines == (2,)
    # The code cells before cell 3 hold 2 lines; cells 3-5 hold 3 + 4 lines.
    assert (item.source.repository, item.source.path, item.source.lines, item.source.licence) == (
        "example-org/churn-notebooks", "notebooks/churn.ipynb", "3-9", "MIT")
    assert item.id == "churn.cells-3-5" and item.family == "data_leakage"


def test_importing_appends_and_refuses_a_duplicate_or_a_bad_range(tmp_path):
    out = tmp_path / "real.jsonl"
    assert _import(tmp_path, out, "--verdict", "OK").exit_code == 0
    assert _import(tmp_path, out, "--verdict", "OK", "--id", "second").exit_code == 0
    assert [item.id for item in load_items(out)] == ["churn.cells-3-5", "second"]
    again = _import(tmp_path, out, "--verdict", "OK")
    assert again.exit_code != 0 and "duplicate item id" in again.output
    assert len(load_items(out)) == 2  # the file is unchanged
    bad = CliRunner().invoke(main, ["review", "import", str(tmp_path / "churn.ipynb"), "--cells", "4-9",
                                    "--claim", "c", "--verdict", "OK", "--licence", "MIT", "--url", "https://x.test/n",
                                    "--out", str(out)])
    assert bad.exit_code != 0 and "error: NotebookInvalid: cells 4-9" in bad.output
    magic = _import(tmp_path, out, "--verdict", "PROBLEM", "--family", "data_leakage", "--flaw-lines", "1", "--id", "m")
    assert magic.exit_code != 0 and "flaw line 1 is not a line of Python" in magic.output
    no_source = CliRunner().invoke(main, ["review", "import", str(tmp_path / "churn.ipynb"), "--cells", "2",
                                          "--claim", "c", "--verdict", "OK", "--licence", "MIT", "--out", str(out)])
    assert no_source.exit_code != 0 and "repository or a url" in no_source.output


def test_bakeoff_review_runs_a_file_of_real_fixture_less_items_with_a_scripted_model(tmp_path):
    items = tmp_path / "real.jsonl"
    assert _import(tmp_path, items, "--verdict", "PROBLEM", "--family", "data_leakage", "--flaw-lines", "3").exit_code == 0
    assert _import(tmp_path, items, "--verdict", "OK", "--id", "sound-one").exit_code == 0
    script = tmp_path / "answers.jsonl"
    script.write_text(
        json.dumps({"key": "review/churn.cells-3-5",
                    "text": "VERDICT: PROBLEM\nLINE: 2\nCONFIDENCE: 90\nREASON: scaler fitted before the split"}) + "\n"
        + json.dumps({"key": "review/sound-one", "text": "VERDICT: PROBLEM\nLINE: 4\nCONFIDENCE: 60\nREASON: unsure"}) + "\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["review", "--model", f"scripted:{script}", "--items", str(items), "--json",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert (metrics["accuracy"], metrics["problem_recall"], metrics["ok_specificity"]) == (0.5, 1.0, 0.0)
    assert metrics["localization"] == 1.0 and metrics["youden_j"] == 0.0
    assert metrics["pair_accuracy"] is None  # real items have no twins
    assert metrics["brier"] == (0.1 ** 2 + 0.6 ** 2) / 2
    answers = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert [a["blamed_line"] for a in answers] == [2, 4]
    summary = json.loads((out / "review.json").read_text())
    assert summary["baseline_cues"]["label"] == "reading without understanding"


def test_a_cell_whose_source_is_a_list_of_numbers_is_a_named_error_not_a_traceback(tmp_path):
    notebook = tmp_path / "odd.ipynb"
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": [1, 2, 3]}]
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    result = CliRunner().invoke(main, ["review", "import", str(notebook), "--cells", "1", "--claim", "c", "--verdict",
                                       "OK", "--licence", "MIT", "--url", "https://x.test/n", "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert result.output.startswith("error: NotebookInvalid: cell 1's source is a list holding int"), result.output
    assert not (tmp_path / "o.jsonl").exists()


def test_several_cell_ranges_become_several_line_ranges_and_twins_keep_their_pair(tmp_path):
    out = tmp_path / "bank.jsonl"
    # Cells 2 and 5 hold code lines 1-2 and 6-9 of the notebook's code (cell 3 holds lines 3-5).
    base = ["review", "import", str(_notebook(tmp_path / "churn.ipynb")), "--cells", "2,4-5", "--claim", "c",
            "--license", "Apache-2.0", "--repository", "example-org/churn", "--pair", "churn-scaling", "--out", str(out)]
    assert CliRunner().invoke(main, [*base, "--verdict", "OK", "--id", "sound"]).exit_code == 0
    result = CliRunner().invoke(main, [*base, "--verdict", "PROBLEM", "--family", "data_leakage", "--flaw-lines", "4",
                                       "--id", "flawed"])
    assert result.exit_code == 0, result.output
    sound, flawed = load_items(out)
    assert sound.source.lines == "1-2,6-9" and sound.source.licence == "Apache-2.0"
    assert sound.pair_id == flawed.pair_id == "churn-scaling"
    assert flawed.code_lines[flawed.flaw_lines[0] - 1].startswith("X_train, X_test")
    # The items file holds only what a reviewer sees; the rest is in the key file beside it.
    visible = [json.loads(line) for line in out.read_text().splitlines()]
    assert visible[0]["canary"] and all(set(r) == {"id", "claim", "code"} for r in visible[1:])
    key = [json.loads(line) for line in (tmp_path / "bank.key.jsonl").read_text().splitlines()]
    assert key[0]["canary"] == visible[0]["canary"] and [r["verdict"] for r in key[1:]] == ["OK", "PROBLEM"]
    third = CliRunner().invoke(main, [*base, "--verdict", "OK", "--id", "third"])
    assert third.exit_code != 0 and "a pair has two" in third.output


def test_a_source_may_spell_it_license_and_give_several_ranges():
    from bakeoff.review.errors import ItemsInvalid
    from bakeoff.review.sources import source_from_record

    source = source_from_record({"url": "https://x.test", "path": "n.ipynb", "lines": "3-5,9", "license": "MIT"}, "here")
    assert (source.licence, source.lines, source.ranges) == ("MIT", "3-5,9-9", ((3, 5), (9, 9)))
    for lines, message in (("9-12,3-5", "does not come after"), ("5-3", "runs backwards"), ("a-b", "not a range")):
        try:
            source_from_record({"url": "u", "path": "p", "lines": lines, "licence": "MIT"}, "here")
        except ItemsInvalid as exc:
            assert message in str(exc)
        else:
            raise AssertionError(lines)


def test_an_import_into_a_self_contained_file_keeps_it_self_contained(tmp_path):
    out = tmp_path / "mine.jsonl"
    assert _import(tmp_path, out, "--verdict", "OK", "--id", "first").exit_code == 0
    (first,) = load_items(out)
    out.write_text(json.dumps(first.to_dict()) + "\n")  # the first banks' one-file format
    (tmp_path / "mine.key.jsonl").unlink()
    assert _import(tmp_path, out, "--verdict", "PROBLEM", "--family", "data_leakage", "--flaw-lines", "3",
                   "--id", "second").exit_code == 0
    assert not (tmp_path / "mine.key.jsonl").exists()
    assert [item.id for item in load_items(out)] == ["first", "second"]
    assert all("verdict" in json.loads(line) for line in out.read_text().splitlines())
