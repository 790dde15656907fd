"""The task plug-in interface and what it speaks, below the runner (docs/tasks.md, "Adding a task"):

- `plugin`: Task, grouped by concern (vocabulary, corpus, grader, calibration, extras);
- `spec`: a task's statement, prompts and settings read from task_specs/<name>/;
- `corpus`: its data folder's layout and files; `workspace`: the workspace a check runs in;
- `grading`: the one grading path (GradeJob in, Graded out); `context`: what a run's stages are handed;
- `headline`: the headline and the words a task's pages use; `score`: `bakeoff score` for every task.

Submodules are imported by name (`from bakeoff.taskapi.plugin import Task`): this package imports none.
"""
