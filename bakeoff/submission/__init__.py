"""What the harness does with a submission it does not trust, the same for every task: telling why its script
failed from what it printed (`crashes`), and copying its folder without trusting anything in it (`safe_copy`).

It grades nothing: each task grades in its own package (bakeoff.tasks.<task>), through the one path of
bakeoff.taskapi.grading, and uses these on the way.
"""
