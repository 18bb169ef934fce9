"""Serve a built site on 127.0.0.1 at a free port (used by the PDF printer and the browser tests)."""
from __future__ import annotations

import contextlib
import functools
import http.server
import pathlib
import threading


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the console readable
        pass


@contextlib.contextmanager
def serve(folder: pathlib.Path):
    """Serve ``folder`` on 127.0.0.1 at a free port; yield the base URL (no slash)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
