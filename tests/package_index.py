"""A package index that is not there: a listener on the test's own 127.0.0.1 that hangs up on every connection, so
pip on the host meets an offline grader (no traffic leaves the machine)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def index_that_hangs_up(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def hang_up() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connection.close()

    threading.Thread(target=hang_up, daemon=True).start()
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{listener.getsockname()[1]}/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "")
    try:
        yield
    finally:
        listener.close()
