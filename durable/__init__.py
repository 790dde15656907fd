"""Files the harness can trust, in one place: written crash-safe, read within caps, reached without links.

Standard library only, and it imports nothing of ours, so every component uses it: `bakeoff`, `generators`,
`sandbox`, and the scorer too (`sandbox/supervisor.py`, a stand-alone file run inside the container, is the one
exception). The reader of untrusted JSON and the opener of harness-owned paths live here rather than in a package
of their own because they are the other half of the same contract: what durable writes is what a reader may
trust, and these are how a reader checks that what it finds is still that (a JSON text within caps, a path that is
the harness's own folders and files, not a link some sandboxed code left in its place). One leaf package keeps
the dependency arrows simple: everyone imports durable, durable imports nobody.

The rules, each decided once:

* Atomic write (`write_bytes`, `write_text`, `write_json`): the data goes to a temporary file in the target's
  own folder, is fsynced, renamed over the target with `os.replace`, and the folder is fsynced. A reader sees
  the old file whole or the new one whole, never half, even if the writer is killed with SIGKILL; a failed
  write removes its temporary file and leaves the old file as it was (a kill may leave a hidden
  `.NAME.*.tmp` beside it, which no reader opens and the next write does not remove). The file gets exactly `mode` (default 0o644, what `open`
  gives under the usual umask; `PRIVATE` is 0o600), whatever the umask. Text is UTF-8; a lone surrogate is
  written as its `\\uXXXX` escape, which inside a JSON string reads back as the same character.
* Staged folder (`staged_folder`, `publish_folder`): a folder is built in a hidden sibling
  (`.NAME.partial-HOST.PID.*`, made with `mode`, default 0o755, once at creation: nothing chmods it again) and
  swapped in whole. What happens to a folder already at the target is the caller's choice (`IfExists`):
  REPLACE retires it (an atomic exchange where the kernel offers one, else two renames through a retired
  `.NAME.old-HOST.PID.*` folder that put the old one back if the second fails) and removes it; REFUSE takes over
  an empty folder and fails on anything else; KEEP lets a folder someone else finished first win and discards
  ours. A failure while building removes the staging folder and leaves the target untouched. Answer keys
  (`ANSWER_KEYS`: holdout_answers.csv, truth.csv, holdout_truth.csv, truth.json) anywhere in the staging folder
  are published `PRIVATE` (0o600), whoever wrote them: only the harness's user reads a corpus's answers.
  **A kill leaves hidden siblings, and the next publish of the same target removes them**: a kill while building
  leaves the staging folder, a kill just after an exchange leaves the old folder under the staging name, a kill
  between the two renames leaves the retired folder. Each of those names carries its owner (HOST is eight hex
  digits of this machine's name, PID the process), so every publish of a target ends with `sweep_leftovers`,
  which removes the siblings whose owner is a process of this machine that no longer runs, and leaves alone a
  live publisher's and those of other machines (on a shared filesystem).
* Journal (`Journal`): an append-only file of JSON lines, each appended in one write and fsynced.
  A kill can cut only the line being written, and that line has no newline yet. So: **a last line without
  its newline is a cut write**: reading drops it, and the next append truncates it away first, so the file
  is again whole lines. Any other line that is not valid JSON (a damaged line that is not the last) is
  `JournalDamaged`, naming the file and the line: it was not written by a kill, so nobody guesses around it.
  Blank lines are skipped. A line is read through the untrusted-JSON reader below: one past its caps is damaged too.
* Untrusted JSON (`loads`, `loads_prefix`, `read_json`, `JsonLimits`): a size cap, a nesting cap, a cap on integer digits, and no
  NaN or Infinity (nor a literal that overflows to it); every refusal is one `UntrustedJSON` subclass naming the
  cap (`JSONTooLarge`, `JSONTooDeep`, `JSONNumberTooLong`, `JSONNotFinite`, `JSONMalformed`).
  Written JSON (`dumps`, and so `write_json` and `Journal.append`) is always valid JSON: NaN or Infinity in a
  value is `JSONUnwritable`, never written.
* Harness-owned paths (`TrustedRoot`): every path under a trusted root is opened, written, copied out or removed
  one component at a time relative to the folder before it (`O_NOFOLLOW`, directory descriptors), so a link,
  a pipe or a folder that sandboxed code left in the way is a named `UnsafePath` (`LinkInTheWay`, `NotAFolder`,
  `NotARegularFile`, `OutsideTheRoot`), never followed, and a swap between two steps changes nothing.
  A file sandboxed code could have written is read within a cap (`read_head`, `read_text`, `copy_out(limit=)`)
  that counts its apparent size (st_size): a sparse `truncate -s 40G` claims 40 GB and is read as a capped head,
  or refused (`FileTooLarge`), never held whole.
"""

from durable.atomic import PRIVATE, move_file, write_bytes, write_json, write_stream, write_text
from durable.errors import (
    DurableError,
    FileTooLarge,
    JournalDamaged,
    JSONMalformed,
    JSONNotFinite,
    JSONNumberTooLong,
    JSONTooDeep,
    JSONTooLarge,
    JSONUnwritable,
    LinkInTheWay,
    NotAFolder,
    NotARegularFile,
    OutsideTheRoot,
    UnsafePath,
    UntrustedJSON,
)
from durable.folder import (
    ANSWER_KEYS,
    IfExists,
    new_staging,
    publish_folder,
    publishing,
    staged_folder,
    sweep_leftovers,
)
from durable.journal import Journal
from durable.jsonio import JsonLimits, dumps, loads, loads_prefix, read_json
from durable.nofollow import FileHead, TrustedRoot

__all__ = [
    "ANSWER_KEYS", "PRIVATE", "DurableError", "FileHead", "FileTooLarge", "IfExists", "JSONMalformed",
    "JSONNotFinite", "JSONNumberTooLong", "JSONTooDeep", "JSONTooLarge", "JSONUnwritable", "Journal", "JournalDamaged",
    "JsonLimits", "LinkInTheWay", "NotAFolder", "NotARegularFile", "OutsideTheRoot", "TrustedRoot", "UnsafePath",
    "UntrustedJSON", "dumps", "loads", "loads_prefix", "move_file", "new_staging", "publish_folder", "publishing", "read_json",
    "staged_folder", "sweep_leftovers", "write_bytes", "write_json", "write_stream", "write_text",
]
