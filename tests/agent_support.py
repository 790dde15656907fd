"""Scripted agents for the agent scaffold's tests: tool-call answers, one JSON line a step (keys agent#1...).

`fixing(task)`: the agent looks, writes its design and code, runs it, meets a real traceback, fixes the code,
runs it again, writes the README and submits. `exhausting(task)`: the agent writes code but never submits, and
runs out of steps (graded on what it left).
"""

from __future__ import annotations

import ab_runner_support as ab
import runner_support as spam
import sim_runner_support as sim

SAMPLE = ("python -c \"import pandas as pd; pd.read_csv('data/train.csv').drop(columns=['label'])"
          ".head(50).to_csv('/tmp/sample.csv', index=False)\" && python predict.py --input /tmp/sample.csv "
          "--output /tmp/out.csv && head -n 3 /tmp/out.csv")


def _body(fenced_answer: str) -> str:
    """The file inside a fenced answer of the staged scripts (between its fences)."""
    inside = fenced_answer.split("```", 2)[1]
    return inside.split("\n", 1)[1]


def call(name: str, text: str = "", **arguments) -> dict:
    return {"text": text, "tool_calls": [{"name": name, "arguments": arguments}]}


HIDDEN_PROBE = 'echo "hidden files: $(ls -A /holdout 2>/dev/null | wc -l)"'  # the image has the empty folder


def look_for_hidden() -> dict:
    return call("run", "Is anything else mounted?", command=HIDDEN_PROBE)


SPAM_DESIGN = _body(spam.DESIGN)
SPAM_README = _body(spam.README)
SPAM_BROKEN_TRAIN = spam.TRAIN.replace('labels = df["label"]', 'labels = df["labels"]')  # KeyError: 'labels'
AB_DESIGN = _body(ab.design("user"))
AB_README = _body(ab.README)
# A column that is not there: a KeyError in the traceback.
AB_BROKEN = ab.BY_USER.replace('["arm", "user_id"]', '["arm", "user"]', 1)
AB_RUN = "python analyze.py --input data/sessions.csv --output /tmp/result.json && cat /tmp/result.json"
SIM_DESIGN = _body(sim.CAREFUL_DESIGN)
SIM_README = _body(sim.README)
SIM_RUN = ("python simulate.py --config data/examples/example_1.json --output /tmp/result.json "
           "&& cat /tmp/result.json")


def _spam_fixing() -> list[dict]:
    return [
        look_for_hidden(),
        call("list_files", "First I look at what is there."),
        call("write_file", "The design.", path="DESIGN.md", content=SPAM_DESIGN),
        call("write_file", path="train.py", content=SPAM_BROKEN_TRAIN),
        call("write_file", path="requirements.txt", content="pandas\nscikit-learn\nnumpy\n"),
        call("run", "Now I train.", command="python train.py"),
        call("write_file", "The column is called label.", path="train.py", content=spam.TRAIN),
        call("run", command="python train.py"),
        call("write_file", path="predict.py", content=spam.PREDICT),
        call("run", command=SAMPLE),
        call("write_file", path="README.md", content=SPAM_README),
        call("submit", "Done."),
    ]


def _spam_exhausting() -> list[dict]:
    return [
        call("write_file", path="train.py", content=spam.TRAIN),
        call("write_file", path="predict.py", content=spam.PREDICT_ZERO),
        call("list_files"),
        call("read_file", path="train.py"),
        call("list_files"),
        call("read_file", path="data/train.csv"),
        call("list_files"),
        call("list_files"),
        call("list_files"),
        call("list_files"),
        call("list_files"),
        call("list_files"),
    ]


def keyed(lines: list[dict]) -> list[dict]:
    return [{"key": f"agent#{index}", **line} for index, line in enumerate(lines, 1)]


def fixing(task: str) -> list[dict]:
    return keyed({"spam_classifier": _spam_fixing, "ab_test": _ab_fixing, "simulation": _sim_fixing}[task]())


def exhausting(task: str) -> list[dict]:
    return keyed({"spam_classifier": _spam_exhausting, "ab_test": _ab_exhausting,
                  "simulation": _sim_exhausting}[task]())


CODE_FILE = {"spam_classifier": "train.py", "ab_test": "analyze.py", "simulation": "simulate.py"}


def _ab_fixing() -> list[dict]:
    return [
        look_for_hidden(),
        call("run", "A look at the log.", command="head -n 3 data/sessions.csv && wc -l data/sessions.csv"),
        call("write_file", path="DESIGN.md", content=AB_DESIGN),
        call("write_file", path="analyze.py", content=AB_BROKEN),
        call("write_file", path="requirements.txt", content="pandas\nnumpy\n"),
        call("run", command=AB_RUN),
        call("write_file", "The column is user_id.", path="analyze.py", content=ab.BY_USER),
        call("run", command=AB_RUN),
        call("write_file", path="README.md", content=AB_README),
        call("submit"),
    ]


def _ab_exhausting() -> list[dict]:
    return [
        call("write_file", path="analyze.py", content=ab.BY_VISIT),
        *[call("list_files") for _ in range(11)],
    ]


def _sim_fixing() -> list[dict]:
    return [
        look_for_hidden(),
        call("run", "The example lines.", command="ls data/examples && cat data/examples/example_1.json"),
        call("write_file", path="DESIGN.md", content=SIM_DESIGN),
        call("write_file", path="simulate.py", content=sim.CRASHING),  # a package that does not exist
        call("write_file", path="requirements.txt", content="numpy\n"),
        call("run", command=SIM_RUN),
        call("write_file", "No such package: numpy is enough.", path="simulate.py", content=sim.CAREFUL_FIXED),
        call("run", command=SIM_RUN),
        call("write_file", path="README.md", content=SIM_README),
        call("submit"),
    ]


def _sim_exhausting() -> list[dict]:
    return [
        call("write_file", path="simulate.py", content=sim.CARELESS),
        call("write_file", path="requirements.txt", content="numpy\n"),
        *[call("list_files") for _ in range(10)],
    ]
