"""The agent scaffold: the model works in its sandbox with tools (run, write_file, read_file, list_files, submit)
under step, token, wall-clock and CPU budgets; the task's check grades what it leaves, then evaluate runs as for
every run."""
