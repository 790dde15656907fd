"""Generator code the tasks share: running a reference script on each hidden input (intervals), paired
margins and intervals (paired), and the verdict a full-size calibration bench prints (verdict)."""
