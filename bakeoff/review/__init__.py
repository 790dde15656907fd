"""The claim-versus-code review benchmark.

Items (task_specs/claim_review/items.jsonl) pair a data-science snippet with
the claim its author makes; a model answers OK or PROBLEM. This package loads
and validates items, executes their code on generated data (the executable
ground truth), builds the prompt, parses answers, computes the metrics and
runs a model over the items.
"""
