"""Reading `id,label` CSV files strictly and in one streaming pass.

Every way a file can be wrong has a stable name (the constants below) that
the scorer reports instead of raising a traceback; records and reports group
submissions by these names, so they must never change.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

# Stable error names: part of the scorer's output format.
MISSING_FILE = "missing_file"
UNREADABLE_FILE = "unreadable_file"
UNDECODABLE_BYTES = "undecodable_bytes"
EMPTY_FILE = "empty_file"
MISSING_HEADER = "missing_header"
MISSING_COLUMNS = "missing_columns"
MALFORMED_CSV = "malformed_csv"
MALFORMED_ROW = "malformed_row"
BAD_LABEL = "bad_label"
DUPLICATE_IDS = "duplicate_ids"
EXTRA_IDS = "extra_ids"
MISSING_IDS = "missing_ids"

ERROR_NAMES = (
    MISSING_FILE,
    UNREADABLE_FILE,
    UNDECODABLE_BYTES,
    EMPTY_FILE,
    MISSING_HEADER,
    MISSING_COLUMNS,
    MALFORMED_CSV,
    MALFORMED_ROW,
    BAD_LABEL,
    DUPLICATE_IDS,
    EXTRA_IDS,
    MISSING_IDS,
)

ID_COLUMN = "id"
LABEL_COLUMN = "label"
_LABELS = {"0": 0, "1": 1}


class LabelsFileError(Exception):
    """A labels file that cannot be scored; `name` is one of ERROR_NAMES."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def parse_label(text: str) -> int | None:
    """0 or 1 for a valid label (surrounding spaces allowed), None for anything else."""
    return _LABELS.get(text.strip())


def iter_rows(path: Path) -> Iterator[tuple[int, str, str]]:
    """Yield (line number, id, raw label) for every data row of an id/label CSV.

    Raises LabelsFileError for a file that cannot be opened, decoded or
    parsed, or whose header lacks the id and label columns.
    """
    try:
        handle = open(path, encoding="utf-8-sig", newline="")
    except FileNotFoundError:
        raise LabelsFileError(MISSING_FILE, f"{path} does not exist") from None
    except OSError as exc:
        raise LabelsFileError(UNREADABLE_FILE, f"{path} cannot be read: {exc.strerror}") from None
    with handle:
        try:
            yield from _iter_open_rows(handle, path)
        except UnicodeDecodeError as exc:
            raise LabelsFileError(
                UNDECODABLE_BYTES, f"{path} is not UTF-8 text (byte {exc.start}: {exc.reason})"
            ) from None
        except csv.Error as exc:
            raise LabelsFileError(MALFORMED_CSV, f"{path} is not a readable CSV file: {exc}") from None
        except OSError as exc:  # e.g. a folder given as the file
            raise LabelsFileError(UNREADABLE_FILE, f"{path} cannot be read: {exc.strerror}") from None


def _iter_open_rows(handle: Iterable[str], path: Path) -> Iterator[tuple[int, str, str]]:
    reader = csv.reader(handle)
    header = _first_non_blank_row(reader)
    if header is None:
        raise LabelsFileError(EMPTY_FILE, f"{path} is empty")
    id_index, label_index = _column_positions(header, path)
    needed = max(id_index, label_index) + 1
    for row in reader:
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # blank lines (a trailing newline, say) carry no prediction
        if len(row) < needed:
            raise LabelsFileError(
                MALFORMED_ROW,
                f"{path} line {reader.line_num} has {len(row)} field(s); the header needs {needed}",
            )
        yield reader.line_num, row[id_index].strip(), row[label_index]


def _first_non_blank_row(reader: Iterator[list[str]]) -> list[str] | None:
    for row in reader:
        if any(field.strip() for field in row):
            return row
    return None


def _column_positions(header: list[str], path: Path) -> tuple[int, int]:
    names = [field.strip().lower() for field in header]
    has_id, has_label = ID_COLUMN in names, LABEL_COLUMN in names
    if not has_id and not has_label:
        raise LabelsFileError(
            MISSING_HEADER,
            f"{path} has no header row naming the columns {ID_COLUMN!r} and {LABEL_COLUMN!r} "
            f"(first row: {shorten(','.join(header))!r})",
        )
    if not (has_id and has_label):
        missing = ID_COLUMN if not has_id else LABEL_COLUMN
        raise LabelsFileError(
            MISSING_COLUMNS, f"{path} has no {missing!r} column (header: {shorten(','.join(header))!r})"
        )
    return names.index(ID_COLUMN), names.index(LABEL_COLUMN)


def read_answer_key(path: Path) -> dict[str, int]:
    """The answer key as {id: label}; any defect raises LabelsFileError."""
    answers: dict[str, int] = {}
    for line, row_id, raw_label in iter_rows(path):
        label = parse_label(raw_label)
        if label is None:
            raise LabelsFileError(BAD_LABEL, f"{path} line {line}: label {shorten(raw_label)!r} is not 0 or 1")
        if row_id in answers:
            raise LabelsFileError(DUPLICATE_IDS, f"{path} line {line}: id {shorten(row_id)!r} repeats")
        answers[row_id] = label
    if not answers:
        raise LabelsFileError(EMPTY_FILE, f"{path} has a header but no rows")
    return answers


def shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
