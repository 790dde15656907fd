"""The grader: standard library only, runnable on its own as `python -m scorer`."""
