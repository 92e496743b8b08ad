"""A Jupyter Server's REST API: its kernelspecs, and the kernels it starts, interrupts,
restarts and shuts down for us (JupyterHub's single-user servers and gateways speak it too).

A class on one GPU server gets a URL and a token, not SSH to the machine: the
engine then runs in a kernel the server launches from the workbench kernelspec
(``workbench kernelspec install``), and its messages travel over the server's
WebSocket (``ws_transport``). Every way this can go wrong is one readable line
(``ServerError``); the token is sent in a header and never written anywhere.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

KERNEL_NAME = "workbench"  # what `workbench kernelspec install` names its kernelspec
TOKEN_VARIABLES = ("JUPYTER_TOKEN", "JUPYTERHUB_API_TOKEN")
REST_TIMEOUT_S = 10.0  # for a whole REST call: connecting, the reply's every byte
START_TIMEOUT_S = 120.0  # a kernel's start (JAX's import) on a busy server
MAX_REPLY_BYTES = 16 << 20  # a Jupyter Server's replies are kilobytes: more is not one
MAX_FILE_BYTES = 12 << 20  # a file through the contents API: base64 in JSON fits the above
PLAIN_HTTP_PROBE_S = 2.0  # an https:// URL that gets nowhere: does the port speak http?
_BROWSER_PAGES = ("lab", "tree", "notebooks", "doc", "api")


class ServerError(Exception):
    """What went wrong with the server, as one line."""


@dataclass(frozen=True)
class ServerTarget:
    """Where the server is and how to prove who we are; the token is never in its repr."""

    url: str  # the server's base URL, ending in "/" (a JupyterHub user URL included)
    token: str = field(default="", repr=False)

    @property
    def label(self) -> str:
        """How messages and the window name the server: its host and path, no token."""
        parts = urllib.parse.urlsplit(self.url)
        path = parts.path.rstrip("/")
        return f"{parts.hostname}{f':{parts.port}' if parts.port else ''}{path}"


def server_target(url: str, token: str | None = None) -> ServerTarget:
    """A target from what the user typed: ``http(s)://host[:port][/base/]`` (a hub's
    ``https://hub/user/NAME/`` too, a ``?token=`` or ``/lab`` left over from a browser
    link taken off); the token from ``--token`` or else the environment."""
    text = url.strip()
    parts = urllib.parse.urlsplit(text if "://" in text else "//" + text)
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        raise ServerError(f"{_safe(text)!r} is not a server URL (http://host:port/ or "
                          "https://...)")
    if parts.username is not None or parts.password is not None:
        raise ServerError(f"{_safe(text)!r}: a user name or password in the URL is not "
                          "supported (Jupyter takes a token): give it with --token or "
                          "JUPYTER_TOKEN")
    query = urllib.parse.parse_qs(parts.query)
    from_link = (query.get("token") or [""])[0]
    segments = parts.path.split("/")
    for i, segment in enumerate(segments):
        if segment in _BROWSER_PAGES:  # what a link copied from the browser goes on with
            segments = segments[:i]
            break
    path = "/".join(segments).rstrip("/") + "/"
    base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    chosen = token or from_link or next(
        (os.environ[name] for name in TOKEN_VARIABLES if os.environ.get(name)), "")
    return ServerTarget(base, chosen)


def _safe(url: str) -> str:
    """``url`` without a query (where a browser link carries its token) or a password."""
    head = url.split("?", 1)[0].split("#", 1)[0]
    scheme, _, rest = head.rpartition("://")
    netloc, slash, path = rest.partition("/")
    host = netloc.rpartition("@")[2]
    return f"{scheme}{'://' if scheme else ''}{host}{slash}{path}"


class JupyterServer:
    """The REST calls the workbench makes, each answering or raising ``ServerError``."""

    def __init__(self, target: ServerTarget, timeout: float = REST_TIMEOUT_S) -> None:
        self.target = target
        self.timeout = timeout

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.target.token}"} if self.target.token else {}

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None,
              timeout: float | None = None) -> Any:
        """One REST call, all of it (connecting, every byte of the reply) within ``timeout``
        and its reply within ``MAX_REPLY_BYTES``."""
        url = self.target.url + path
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers={
            **self.headers(), "Content-Type": "application/json"})
        where = self.target.label
        limit = timeout or self.timeout
        deadline = time.monotonic() + limit
        try:
            with _OPENER.open(request, timeout=limit) as response:
                raw = _read_reply(response, deadline, f"{where} ({method} {path})", limit)
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                given = "the token given was refused" if self.target.token else (
                    "it needs a token: pass --token or set JUPYTER_TOKEN")
                raise ServerError(f"the server at {where} refused us ({exc.code}): {given}")\
                    from None
            raise _HttpError(exc.code, f"the server at {where} answered {exc.code} "
                             f"{exc.reason} to {method} {path}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            timed_out = isinstance(reason, socket.timeout | TimeoutError)
            if (timed_out or isinstance(reason, ssl.SSLError)) and self._plain_http_instead():
                plain = "http://" + self.target.url.split("://", 1)[1]
                raise ServerError(f"the server at {where} speaks plain http, not https: use "
                                  f"{_safe(plain)}") from None
            if timed_out:
                raise TimedOut(f"nothing answers at {where} (no answer within {limit:g} s)")\
                    from None
            raise ServerError(f"nothing answers at {where} ({reason})") from None
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ServerError(f"{where} answers, but not as a Jupyter Server (its reply to "
                              f"{path} is not JSON)") from None

    def _plain_http_instead(self) -> bool:
        """An https:// URL that got nowhere: whether its port answers plain http (a TLS
        handshake sent to an http server waits for ever, or fails with an SSL error)."""
        parts = urllib.parse.urlsplit(self.target.url)
        if parts.scheme != "https" or parts.hostname is None:
            return False
        try:
            with socket.create_connection((parts.hostname, parts.port or 443),
                                          timeout=PLAIN_HTTP_PROBE_S) as sock:
                sock.sendall(b"HEAD / HTTP/1.0\r\nHost: " + parts.hostname.encode("idna")
                             + b"\r\n\r\n")
                return sock.recv(5) == b"HTTP/"
        except (OSError, UnicodeError):
            return False

    def check(self) -> str:
        """The server's version: proof that it speaks Jupyter's REST API (a Jupyter Server,
        a JupyterHub user's server, a Kernel Gateway). The token is proved by the next call."""
        try:
            version = self._call("GET", "api")
        except _HttpError as exc:
            raise ServerError(f"{self.target.label} answers, but not as a Jupyter Server "
                              f"({exc.code} for /api; a JupyterHub's is your own server's "
                              "URL, https://HUB/user/NAME/)") from None
        if not isinstance(version, dict) or "version" not in version:
            raise ServerError(f"{self.target.label} answers, but not as a Jupyter Server")
        return str(version["version"])

    def kernelspecs(self) -> list[str]:
        reply = self._call("GET", "api/kernelspecs")
        specs = reply.get("kernelspecs") if isinstance(reply, dict) else None
        return sorted(specs) if isinstance(specs, dict) else []

    def start_kernel(self, name: str = KERNEL_NAME) -> str:
        """A new kernel of kernelspec ``name``; its id. Checks the kernelspec is there."""
        names = self.kernelspecs()
        if name not in names:
            install = ("; install it in the server's environment with `workbench kernelspec "
                       "install --sys-prefix` (or --user)") if name == KERNEL_NAME else ""
            raise ServerError(f"the server at {self.target.label} has no {name!r} kernelspec "
                              f"(it has: {', '.join(names) or 'none'}){install}")
        try:
            reply = self._call("POST", "api/kernels", {"name": name}, timeout=START_TIMEOUT_S)
        except TimedOut:
            raise ServerError(f"the server at {self.target.label} did not start a {name!r} "
                              f"kernel within {START_TIMEOUT_S:g} s (its answer to POST "
                              "api/kernels never came): is it overloaded? Try again, or start "
                              "one in JupyterLab and give its id with --kernel-id") from None
        if not isinstance(reply, dict) or not isinstance(reply.get("id"), str):
            raise ServerError(f"the server at {self.target.label} started no kernel")
        return str(reply["id"])

    def kernel(self, kernel_id: str) -> dict[str, Any]:
        """The kernel's model (its name, execution state); ``KernelGone`` if there is none."""
        try:
            reply = self._call("GET", f"api/kernels/{_quoted(kernel_id)}")
        except _HttpError as exc:
            if exc.code == 404:
                raise KernelGone(f"the server at {self.target.label} has no kernel "
                                 f"{kernel_id!r} (shut down, culled, or never started)") from None
            raise
        if not isinstance(reply, dict):
            raise ServerError(f"the server at {self.target.label} sent no kernel model")
        return reply

    def interrupt(self, kernel_id: str) -> None:
        self._call("POST", f"api/kernels/{_quoted(kernel_id)}/interrupt")

    def restart(self, kernel_id: str) -> None:
        self._call("POST", f"api/kernels/{_quoted(kernel_id)}/restart", timeout=START_TIMEOUT_S)

    def shutdown(self, kernel_id: str) -> None:
        self._call("DELETE", f"api/kernels/{_quoted(kernel_id)}")

    def read_file(self, path: str) -> bytes:
        """The file's bytes, exactly (the contents API's base64, not its decoded text)."""
        where = f"the server at {self.target.label}"
        try:
            reply = self._call("GET", f"api/contents/{_quoted_path(path)}?type=file&"
                               "format=base64&content=1")
        except _HttpError as exc:
            if exc.code == 404:
                raise ServerError(f"{where} has no file {path!r}") from None
            raise
        content = reply.get("content") if isinstance(reply, dict) else None
        if not isinstance(content, str):
            raise ServerError(f"{where} sent no content for {path!r}")
        try:
            return base64.b64decode("".join(content.split()), validate=True)  # it wraps lines
        except ValueError:
            raise ServerError(f"{where} sent {path!r} in a form that is not base64") from None

    def write_file(self, path: str, data: bytes) -> None:
        """Put ``data`` at ``path`` (its folders made first), byte for byte."""
        if len(data) > MAX_FILE_BYTES:
            raise ServerError(f"{path!r} is {len(data) >> 20} MB: a file shared through the "
                              f"server is at most {MAX_FILE_BYTES >> 20} MB")
        folders = [part for part in path.split("/")[:-1] if part]
        for i in range(len(folders)):
            folder = "/".join(folders[:i + 1])
            try:
                self._call("GET", f"api/contents/{_quoted_path(folder)}?content=0")
            except _HttpError as exc:
                if exc.code != 404:
                    raise
                self._call("PUT", f"api/contents/{_quoted_path(folder)}",
                           {"type": "directory"})
        self._call("PUT", f"api/contents/{_quoted_path(path)}", {
            "type": "file", "format": "base64", "content": base64.b64encode(data).decode()})

    def channels_url(self, kernel_id: str, session_id: str) -> str:
        """The kernel's WebSocket; the session id lets the server replay what we missed."""
        parts = urllib.parse.urlsplit(self.target.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        query = urllib.parse.urlencode({"session_id": session_id})
        return urllib.parse.urlunsplit((scheme, parts.netloc, parts.path
                                        + f"api/kernels/{_quoted(kernel_id)}/channels", query, ""))


def _read_reply(response: Any, deadline: float, what: str, limit: float) -> bytes:
    """The reply's body, read as it comes: a server that drips it (a byte every few
    seconds never trips the socket's timeout) or sends without end is cut off."""
    length = response.headers.get("Content-Length")
    if length is not None and length.isdigit() and int(length) > MAX_REPLY_BYTES:
        raise ServerError(f"{what} sent a reply of {int(length):,} bytes: a Jupyter Server's "
                          f"are far smaller (read up to {MAX_REPLY_BYTES >> 20} MB)")
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimedOut(f"{what} did not finish its reply within {limit:g} s (it sent "
                              f"{size:,} bytes)")
        chunk = response.read1(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise ServerError(f"{what} sent more than {MAX_REPLY_BYTES >> 20} MB: a Jupyter "
                              "Server's replies are far smaller")
        chunks.append(chunk)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect would carry the token's header to wherever it points: refused."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


class TimedOut(ServerError):
    """A REST call that did not finish in its time."""


class KernelGone(ServerError):
    """The server has no such kernel (any more)."""


class _HttpError(ServerError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _quoted_path(path: str) -> str:
    return urllib.parse.quote(path.strip("/"), safe="/")


def _quoted(kernel_id: str) -> str:
    return urllib.parse.quote(kernel_id, safe="")
