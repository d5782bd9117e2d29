"""A real HTTP server on loopback that streams given bodies, for the endpoint tests."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Server:
    """A loopback server whose routes are (status, body, chunk size, pause per chunk)."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes, int, float, dict[str, str]]] = {}
        self.posted: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.disconnected = threading.Event()  # a client left while we were writing
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                server.posted.append(json.loads(self.rfile.read(length)))
                server.headers.append(dict(self.headers))
                status, body, size, pause, extra = server.routes[self.path]
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream")
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    for start in range(0, len(body), size):
                        self.wfile.write(body[start : start + size])
                        self.wfile.flush()
                        time.sleep(pause)
                except (BrokenPipeError, ConnectionResetError):
                    server.disconnected.set()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # A short poll: shutdown() waits for the loop to look, after every test.
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def route(
        self,
        path: str,
        body: bytes,
        status: int = 200,
        size: int = 1 << 16,
        pause: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> str:
        self.routes[path] = (status, body, size, pause, headers or {})
        return self.url + path
