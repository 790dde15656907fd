"""Grading one submission: the one code path `bakeoff score`, the stage runner and analysis share.

- `score`: `bakeoff score` as a library call (copy the folder, open a sandbox, grade, score on the host);
- `grade`: grading a submission that already sits in an open sandbox's workspace;
- `outcome`: the frozen result of grading (status, stage, ladder rung, steps, timings);
- `inputs`: the corpus files grading uses and the scratch copy of a submission;
- `safe_copy`: copying a hostile submission folder without trusting anything in it;
- `crashes`: telling why a submission's script failed, from what it printed.
"""
