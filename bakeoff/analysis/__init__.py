"""Analysis: what every task's runs say, read from a batch's records by rule (`core`: grading, capture,
crashes, repair turns, the headline per model with its uncertainty, paired comparisons), and the seeded
bootstrap (`stats`). A task's own signals are built on these in its package (bakeoff.tasks.<task>)."""
