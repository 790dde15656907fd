"""The task seam and what it speaks, below the runner (docs/tasks.md, "Adding a task"):

- `task`: Task, one take-home as a frozen value of small parts; `parts`: those parts, each a protocol of one or
  two members (corpus, grader, score report, calibration, probes, re-analysis, report sections, export metadata,
  the tripwire's reach); `control`: the negative control `bakeoff generate --control` makes of a task's data;
- `options`: the options a task adds to generate, calibrate, analyze and score; `plugin`: what the core hands a
  task's parts and gets back (generate requests, analyze settings, the report's CoreSection);
- `spec`: a task's statement, prompts and settings read from task_specs/<name>/;
- `corpus`: its data folder's layout and files; `workspace`: the workspace a check runs in;
- `grading`: the one grading path (GradeJob in, Graded out); `context`: what a run's stages are handed;
- `headline`: the headline and the words a task's pages use; `score`: `bakeoff score` for every task.

Submodules are imported by name (`from bakeoff.taskapi.task import Task`): this package imports none.
"""
