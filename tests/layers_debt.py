"""Today's offences against three rules of tests/test_layers.py, file by file, with exact counts: a debt that
only shrinks. The tests assert these lists exactly: a new offence fails, and a paid-off one fails until its count
here is lowered (or its line removed), so the lists always say what is left. A failing test prints both.

Counted on the tree of issue 33's start (main 98e6ef3 plus the one-JSON-door change); the helpers of issue 33 are
paying these off now, and whoever merges their work lowers the counts to what the test prints.
"""

from __future__ import annotations

# Lines that speak a registered task's words outside bakeoff/tasks/ (test_no_task_word_outside_the_tasks).
TASK_WORD_DEBT: dict[str, int] = {
    "bakeoff/taskapi/spec.py": 1,  # DEFAULT_TASK: a plan's task when it names none (recorded in batch.json's plan)
}

# Lines that name the agent scaffold outside bakeoff/scaffolds/ (test_no_agent_name_outside_the_scaffolds).
AGENT_NAME_DEBT: dict[str, int] = {
    "bakeoff/export/eee_records.py": 1,  # Every Eval Ever's own value: "interaction_type": "agentic"
    "bakeoff/records/enums.py": 1,  # Stage.AGENT: the loop's stage name, which stage records are checked against
    "bakeoff/report/scaffolds.py": 2,  # the report's words: the agent_runs table and its line, as pages have them
}

# String-key `.get(` calls outside the decoders (test_records_are_read_through_their_classes_not_as_dicts).
# Not all of them read a record or a grader's output (some read settings, a server's JSON, HTTP headers);
# a file whose remaining calls read no record leaves this list for an allowed list that says why.
DICT_READ_DEBT: dict[str, int] = {
    "bakeoff/batchfolder/read.py": 1,
    "bakeoff/cli/models.py": 1,
    "bakeoff/cli/review.py": 1,
    "bakeoff/models/engine_build.py": 4,
    "bakeoff/models/tools.py": 19,
    "bakeoff/models/transcript.py": 10,
    "bakeoff/review/items.py": 18,
    "bakeoff/review/real_items.py": 4,
    "bakeoff/runner/batch.py": 1,
    "bakeoff/runner/executors/common.py": 2,
    "bakeoff/runner/executors/node.py": 1,
    "bakeoff/runner/executors/ray_driver.py": 6,
    "bakeoff/runner/model_entries.py": 11,
}


# Files whose string-key reads are of mappings that are not records nor a grader's output (click's parameter
# values by name): (how many, why). Asserted exactly like the debt, so a record read cannot hide among them.
NOT_RECORD_READS: dict[str, tuple[int, str]] = {
    "bakeoff/answers.py": (4, "a tool's JSON schema (its parameters), a call's arguments are checked against"),
    "bakeoff/cli/report.py": (1, "click's parameter values (the batch folder argument)"),
    "bakeoff/cli/score.py": (1, "the task's own option values, as click parsed them"),
    "bakeoff/cli/task_options.py": (2, "click's parameter values (--task, the corpus option)"),
    "bakeoff/models/engine_child.py": (8, "llama-cpp-python's answers, the GGUF's metadata and the template's switch, in the engine process"),
    "bakeoff/models/gguf_header.py": (3, "a GGUF file's header metadata"),
    "bakeoff/models/kinds/gguf.py": (1, "a GGUF file's header metadata (its chat template key)"),
    "bakeoff/models/kinds/openai.py": (3, "an endpoint's /models answer, the server's own JSON"),
    "bakeoff/models/openai_compat.py": (16, "an endpoint's chat-completion answer and HTTP headers, the server's own JSON"),
    "bakeoff/models/server_backend.py": (1, "a GGUF file's header metadata (its chat template key)"),
    "bakeoff/models/template_process.py": (4, "the template worker's replies on its pipe (a child process's own messages)"),
    "bakeoff/models/template_worker.py": (6, "the template process's requests on its pipe (a child process's own messages)"),
    "bakeoff/preflight.py": (1, "Docker's version answer"),
    "bakeoff/review/importer.py": (3, "a Jupyter notebook's JSON (its cells), someone else's file"),
    "bakeoff/review/settings.py": (7, "the review settings TOML file, read into ReviewSettings here"),
    "bakeoff/runner/executors/ray_worker.py": (2, "Ray's own node list (ray.nodes())"),
    "bakeoff/runner/executors/settings.py": (7, "a plan's [executor] table as TOML gave it, read into ExecutorSettings here"),
    "bakeoff/runner/plan.py": (6, "the plan file's TOML, read into the Plan record here (its decoder)"),
    "bakeoff/scaffolds/agent/tools.py": (2, "a model's call arguments, the model's own JSON"),
    "bakeoff/tasks/simulation/cpu_cap.py": (1, "a simulation configuration's cpu_seconds: the generator's own file on "
                                              "the host, the submission's input (no record, no grader's output)"),
    "bakeoff/tasks/spam_classifier/plugin.py": (3, "the task's calibrate option values, as click parsed them"),
}
