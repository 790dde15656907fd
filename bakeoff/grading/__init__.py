"""What grading shares across tasks: telling why a submission's script failed from what it printed
(`crashes`), and copying a hostile submission folder without trusting anything in it (`safe_copy`).

Each task grades in its own package (bakeoff.tasks.<task>), through the one path of bakeoff.taskapi.grading.
"""
