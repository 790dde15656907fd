"""The bank's self-audit (`bakeoff review audit`): cheap readers that must not read the bank.

Each reader answers OK or PROBLEM without running code and without a language
model: mined n-gram rules, a logistic regression on generic code features, a
compression distance (zlib), the order of the file, dead code, and
`baseline:cues`. A reader that learns is
always scored on pairs it never saw (one half of the pairs against the other,
and each pair template held out in turn), so a figure above chance means the
bank gives its answers away, not that the reader understood anything. A reader
sees only what a reviewer sees (bakeoff.review.audit.view): the claim, the
code and where the item stands in its file.
"""
