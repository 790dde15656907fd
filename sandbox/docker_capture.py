"""Capturing a command's output without holding it: keep the head, count the rest.

The supervisor ends each stream with a line marked by the execution's nonce
(on stderr it carries the status); `split_status` takes it off again and
corrects the counts so that the caller sees exactly the command's own output.
"""

from __future__ import annotations

from sandbox.supervisor import STATUS_PREFIX

TAIL_BYTES = 4096  # enough for the status line, whatever came before it


class CappedStream:
    """One output stream: the first `cap` bytes kept, every byte counted, the last few remembered."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept = bytearray()
        self.total = 0
        self.tail = bytearray()

    def feed(self, chunk: bytes) -> None:
        room = self.cap - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]
        self.total += len(chunk)
        self.tail += chunk[-TAIL_BYTES:]
        if len(self.tail) > TAIL_BYTES:
            del self.tail[:-TAIL_BYTES]

    @property
    def dropped(self) -> int:
        return self.total - len(self.kept)

    def ends_with_marker(self, nonce: str) -> bool:
        """Has the supervisor's closing line for this execution arrived (cheap: looks at the tail only)?"""
        return self.tail.endswith(b"\n") and (STATUS_PREFIX + nonce.encode() + b" ") in self.tail

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")


def split_status(stream: CappedStream, nonce: str) -> tuple[str | None, str, int]:
    """(status JSON or None, the command's own kept text, the command's own dropped byte count)."""
    marker = STATUS_PREFIX + nonce.encode() + b" "
    at = stream.tail.rfind(marker)
    if at < 0 or not stream.tail.endswith(b"\n"):
        return None, stream.text(), stream.dropped
    status = bytes(stream.tail[at + len(marker):]).decode("utf-8", errors="replace").strip()
    own_total = stream.total - (len(stream.tail) - at)
    own_kept = bytes(stream.kept[: min(len(stream.kept), own_total)])
    return status, own_kept.decode("utf-8", errors="replace"), own_total - len(own_kept)
