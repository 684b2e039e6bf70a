"""The plumbing of a llama-server stand-in for the door's tests: JSON replies, chunked streams, a free port.

``ModelHandler`` answers ``GET`` with a one-model list and gives ``send_json`` and ``write_chunk``;
a test's own subclass writes ``do_POST``.  ``FakeServer(handler)`` serves it on a free loopback port
(``root``) in a thread until ``stop()``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ModelHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status: int, data: object) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def start_stream(self) -> None:
        """The headers of a server-sent-events reply in chunks, as llama-server streams."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_GET(self):
        self.send_json(200, {"object": "list", "data": [{"id": "m", "object": "model"}]})


class FakeServer:
    """``handler`` (a ``ModelHandler`` subclass) on a free loopback port: ``root``; ``stop()`` ends it."""

    def __init__(self, handler: type[ModelHandler]):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.root = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
