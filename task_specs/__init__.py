"""Tasks as data: statements, per-stage prompts and settings. No behaviour lives here."""
