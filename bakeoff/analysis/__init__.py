"""Analysis: per-run signals read from a batch's records, per-model aggregates with their uncertainty,
and the behavioural probes (leak probe, seed retrains) that run in the sandbox and write records."""
