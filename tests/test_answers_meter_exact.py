"""Survivors of the answer parser's mutation run (docs/mutation.md): the work meter handed on by extract_files (the
linearity tests read the meter, so a caller whose meter is dropped would measure nothing), and every missing
argument named."""

from __future__ import annotations

from bakeoff.answers import WorkMeter, extract_files


def test_extract_files_counts_every_line_it_scans_on_the_meter_it_is_given():
    text = "Here is the code.\n# file: train.py\n```python\nprint(1)\n```\nDone.\n"
    meter = WorkMeter()
    assert extract_files(text, meter) == {"train.py": "print(1)\n"}
    assert meter.chars >= len(text.replace("\n", ""))


def test_every_missing_argument_is_named_in_the_schema_s_order():
    from bakeoff.answers import argument_problem

    schema = {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
              "required": ["path", "content"]}
    assert argument_problem({}, schema) == "missing argument(s): path, content"
