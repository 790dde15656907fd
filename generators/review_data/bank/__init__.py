"""The claim-review item bank, written as pair templates (the sound and the flawed twin of one idea).

`python -m generators.review_data.bank.build` executes every pair on seed 0
data, fills the figure both twins report into their shared claim, and writes
task_specs/claim_review/items.jsonl (what a reviewer sees) and items.key.jsonl
(the answers), in an order that gives nothing away. A pair's code may hold
`@KNOB@` (a random_state, a cutoff): the builder picks the first value at
which both twins report the same figure to the claim's precision, so the
claim alone never tells the twins apart and the code must decide.
"""
