"""Reports: a batch's records turned into Markdown, one self-contained HTML page with inline SVG plots,
and CSV tables. The report only reads records (see docs/records.md and docs/reports.md)."""
