"""Exporting a batch to the field's log formats: Inspect eval logs and Every Eval Ever records (docs/reports.md).

The libraries are optional extras (`bakeoff[inspect]`, `bakeoff[eee]`): bakeoff imports and
works without them, and an export asked for without its extra is ExportExtraMissing.
"""
