"""Another local user who squats a bakeoff llama-server's port (tests only; run as uid 65534 with the system python).

    python3 -I -c "$(cat port_squatter.py)" WATCH_DIR [PORT]

It looks for the port wherever another local user can: the names in WATCH_DIR (the temporary folder bakeoff
was given) and in any folder below it that it may list (`-PORT-` in a name), and the command lines of processes
that name WATCH_DIR (`--port PORT`), and binds every port it learns of (bakeoff starts its server again on
another port when the last one died). With PORT it binds that one port at once (a guessed port). Where it is
bound it answers /health and every chat completion with SQUATTED, an answer of its own. Each event is a JSON line on
stdout: watching, listing_refused (a folder it may not read), found, bound, served (path and whether a bearer
key came with the request). Standard library only, no bakeoff import: it runs outside the project's venv.
"""

import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SQUATTED = "SQUATTED: this answer is another local user's"
NAMED_PORT = re.compile(r"-(\d{2,5})-")
ARGV_PORT = re.compile(r"--port\x00(\d{2,5})\x00")
WATCH_FOR_S = 600.0  # the test ends it long before


def event(**fields) -> None:
    print(json.dumps(fields), flush=True)


class Squatter(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # quiet: stdout carries the events
        return

    def _answer(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        event(event="served", path=self.path, authorization=bool(self.headers.get("Authorization")))
        self._answer({"status": "ok"} if "health" in self.path else {"data": [{"id": "squatter"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        event(event="served", path=self.path, authorization=bool(self.headers.get("Authorization")))
        self._answer({"model": "squatter", "choices": [{"message": {"role": "assistant", "content": SQUATTED},
                                                        "finish_reason": "stop"}],
                      "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


def names_below(folder: str, refused: set) -> list:
    """Every name in `folder` and in the folders below it this user may list."""
    names = []
    for root, dirs, files in os.walk(folder, onerror=lambda exc: refused.add(exc.filename)):
        names += [os.path.join(root, name) for name in dirs + files]
    return names


def named_ports(folder: str, refused: set) -> list:
    """Ports in the names in `folder` and below it (fast: looked at every millisecond)."""
    return [int(found) for name in names_below(folder, refused) for found in NAMED_PORT.findall(os.path.basename(name))]


def command_line_ports(folder: str) -> list:
    """Ports on the command lines of processes that name `folder` (slower: the whole process table)."""
    ports = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().decode(errors="replace")
        except OSError:
            continue
        if folder in argv:
            ports += [int(found) for found in ARGV_PORT.findall(argv)]
    return ports


def watch(folder: str, ignored: set) -> int | None:
    """The first port announced that is not in `ignored` (each folder it may not list is reported once)."""
    refused: set = set()
    reported: set = set()
    looks = 0
    deadline = time.monotonic() + WATCH_FOR_S
    while time.monotonic() < deadline:
        looks += 1
        ports = named_ports(folder, refused) + (command_line_ports(folder) if looks % 20 == 0 else [])
        port = next((port for port in ports if port not in ignored), None)
        for path in sorted(refused - reported):
            event(event="listing_refused", path=path)
        reported |= refused
        if port is not None:
            event(event="found", port=port)
            return port
        time.sleep(0.001)
    return None


def main(argv: list) -> int:
    folder, guessed = argv[0], argv[1:]
    event(event="watching", uid=os.getuid())
    ignored: set = set()
    port = int(guessed[0]) if guessed else watch(folder, ignored)
    while port is not None:  # every port it learns of: bakeoff starts the server again when the last one died
        ignored.add(port)
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), Squatter)
        except OSError as exc:  # bakeoff's server was there first
            event(event="bind_failed", port=port, error=str(exc))
        else:
            event(event="bound", port=port)
            threading.Thread(target=server.serve_forever, daemon=True).start()
        port = None if guessed else watch(folder, ignored)
    time.sleep(WATCH_FOR_S)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
