"""Crash-safe files, in one place: every file and folder a reader may trust is written through here.

Standard library only, and it imports nothing of ours, so `bakeoff`, `generators` and `sandbox` all use it
(`sandbox/supervisor.py`, a stand-alone file run inside the container, is the one exception).

The rules, each decided once:

* Atomic write (`write_bytes`, `write_text`, `write_json`): the data goes to a temporary file in the target's
  own folder, is fsynced, renamed over the target with `os.replace`, and the folder is fsynced. A reader sees
  the old file whole or the new one whole, never half, even if the writer is killed with SIGKILL; a failed
  write removes its temporary file and leaves the old file as it was (a kill may leave a hidden
  `.NAME.*.tmp` beside it, which no reader opens). The file gets exactly `mode` (default 0o644, what `open`
  gives under the usual umask; `PRIVATE` is 0o600), whatever the umask. Text is UTF-8; a lone surrogate is
  written as its `\\uXXXX` escape, which inside a JSON string reads back as the same character.
* Staged folder (`staged_folder`, `publish_folder`): a folder is built in a hidden sibling
  (`.NAME.partial-*`, made with `mode`, default 0o755, once at creation: nothing chmods it again) and
  swapped in whole. What happens to a folder already at the target is the caller's choice (`IfExists`):
  REPLACE retires it (an atomic exchange where the kernel offers one, else two renames that put the old one
  back if the second fails) and removes it; REFUSE takes over an empty folder and fails on anything else;
  KEEP lets a folder someone else finished first win and discards ours. A failure while building removes
  the staging folder and leaves the target untouched.
* Journal (`Journal`): an append-only file of JSON lines, each appended in one write and fsynced.
  A kill can cut only the line being written, and that line has no newline yet. So: **a last line without
  its newline is a cut write**: reading drops it, and the next append truncates it away first, so the file
  is again whole lines. Any other line that is not valid JSON (a damaged line that is not the last) is
  `JournalDamaged`, naming the file and the line: it was not written by a kill, so nobody guesses around it.
  Blank lines are skipped.
"""

from durable.atomic import PRIVATE, move_file, write_bytes, write_json, write_text
from durable.errors import DurableError, JournalDamaged
from durable.folder import IfExists, new_staging, publish_folder, publishing, staged_folder
from durable.journal import Journal

__all__ = [
    "PRIVATE", "DurableError", "IfExists", "Journal", "JournalDamaged", "move_file", "new_staging",
    "publish_folder", "publishing", "staged_folder", "write_bytes", "write_json", "write_text",
]
