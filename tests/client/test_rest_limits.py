"""Every REST call to a Jupyter Server ends, within its time and its size, with one line
that says what it waited for; and the URLs that once gave misleading lines say what is wrong.

The servers here are real HTTP servers on loopback, each misbehaving one way.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from workbench.client import server as rest
from workbench.client.server import JupyterServer, ServerError, ServerTarget, server_target


class _Misbehaving(http.server.BaseHTTPRequestHandler):
    """Answers ``/api`` and ``/api/kernelspecs`` as Jupyter does, except in the way the
    server's ``mode`` asks."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _json(self, value: object) -> None:
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        mode = self.server.mode
        if mode == "drip":
            body = json.dumps({"version": "2.0"}).encode() + b" " * 200
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for byte in body:  # a byte every 0.3 s: each read gets something, none times out
                if self.server.done.wait(0.3):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        elif mode == "endless":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b" " * 65536
            while not self.server.done.is_set():
                try:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except OSError:
                    return
        elif mode == "claims-huge":
            self.send_response(200)
            self.send_header("Content-Length", str(1_500_000_000))
            self.end_headers()
            self.wfile.write(b"{")
        elif self.path.endswith("/api"):
            self._json({"version": "2.0"})
        else:
            self._json({"default": "workbench", "kernelspecs": {"workbench": {}}})

    def do_POST(self) -> None:  # noqa: N802
        self.server.done.wait(60)  # a hung POST /api/kernels: never answered


@contextmanager
def misbehaving(mode: str) -> Iterator[str]:
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Misbehaving)
    site.daemon_threads = True
    site.mode = mode
    site.done = threading.Event()
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}/"
    finally:
        site.done.set()
        site.shutdown()
        site.server_close()


def _fails(call, within: float) -> str:
    start = time.monotonic()
    with pytest.raises(ServerError) as caught:
        call()
    took = time.monotonic() - start
    assert took < within, f"took {took:.1f} s"
    return str(caught.value)


def test_a_reply_dripped_a_byte_at_a_time_is_cut_off_at_the_calls_deadline():
    # Before: each byte reset the socket's timeout, and the reply took 60 s (the CLI was
    # still waiting after 300 s for a server dripping a byte every 8 s).
    with misbehaving("drip") as url:
        message = _fails(JupyterServer(ServerTarget(url), timeout=2).check, 10)
    assert message.startswith("127.0.0.1:")
    assert "(GET api) did not finish its reply within 2 s (it sent " in message


def test_a_reply_without_end_is_cut_off_at_its_size_cap(monkeypatch):
    monkeypatch.setattr(rest, "MAX_REPLY_BYTES", 4 << 20)
    with misbehaving("endless") as url:
        message = _fails(JupyterServer(ServerTarget(url), timeout=30).check, 25)
    assert "(GET api) sent more than 4 MB: a Jupyter Server's replies are far smaller" \
        in message


def test_a_reply_that_says_it_is_huge_is_refused_before_it_is_read():
    with misbehaving("claims-huge") as url:
        message = _fails(JupyterServer(ServerTarget(url)).check, 5)
    assert "sent a reply of 1,500,000,000 bytes" in message


def test_a_hung_kernel_start_is_said_as_such(monkeypatch):
    monkeypatch.setattr(rest, "START_TIMEOUT_S", 2.0)
    with misbehaving("hung-post") as url:
        message = _fails(JupyterServer(ServerTarget(url)).start_kernel, 10)
    assert message.startswith("the server at 127.0.0.1:")
    assert "did not start a 'workbench' kernel within 2 s (its answer to POST api/kernels " \
        "never came)" in message


def test_https_to_a_plain_http_server_says_to_use_http():
    # Before: "nothing answers ... (no answer within 10 s)": the TLS hello waited for ever.
    with misbehaving("jupyter") as url:
        port = url.rsplit(":", 1)[1].rstrip("/")
        target = server_target(f"https://127.0.0.1:{port}/")
        message = _fails(JupyterServer(target, timeout=3).check, 12)
    assert message == (f"the server at 127.0.0.1:{port} speaks plain http, not https: use "
                       f"http://127.0.0.1:{port}/")


def test_credentials_in_the_url_are_refused_naming_the_token_instead():
    # Before: "Name or service not known", about a host name with the password in it.
    with pytest.raises(ServerError) as caught:
        server_target("http://ada:s3cret@gpu.example:8888/")
    message = str(caught.value)
    assert "a user name or password in the URL is not supported" in message
    assert "--token" in message and "s3cret" not in message
