"""A loopback HTTP server that answers JSON, for tests that stand in for a model endpoint (an OpenAI-compatible
server, Ollama, a rate-limited provider): the test gives one route function, the server records every request.

Only 127.0.0.1, a free port, a daemon thread; `close` (or the `with` block) stops it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    body: Any
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: Any  # the parsed JSON body of a POST, None for a GET


Route = Callable[[Request], Reply]


def not_found(_: Request) -> Reply:
    return Reply({"error": {"message": "not found"}}, 404)


class JsonServer:
    """Answers every request with `route(request)`; `requests` holds them in arrival order."""

    def __init__(self, route: Route) -> None:
        self.requests: list[Request] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, method: str) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                request = Request(method, self.path, json.loads(raw) if raw else None)
                server.requests.append(request)
                reply = route(request)
                payload = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for name, value in {"content-type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self._answer("GET")

            def do_POST(self) -> None:
                self._answer("POST")

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def posts(self, path_end: str = "") -> list[Request]:
        return [r for r in self.requests if r.method == "POST" and r.path.endswith(path_end)]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> JsonServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
