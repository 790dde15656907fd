"""What the interval take-homes share (ab_test, simulation): the submission prints one interval per hidden item,
graded on the host by coverage and Winkler score (scorer.intervals).

Each task's package imports these helpers and keeps its own words, files and probes; this package imports no
task, and no task imports another.
"""
