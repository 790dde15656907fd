"""The stage runner and unattended batches: a model takes the whole take-home, stage by stage.

Layout of what this package writes: docs/records.md.
"""
