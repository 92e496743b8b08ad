"""Attaching to a kernel started elsewhere: its connection file, an SSH tunnel to it, its name.

The tunnel is jupyter_client's ``tunnel_to_kernel``, the mechanism of ``jupyter
qtconsole --existing FILE --ssh HOST``: one ``ssh -L`` per kernel port, so the
user's own ssh configuration, keys and agent apply. As qtconsole does, the
tunnelled ports are written to a second connection file (``*-ssh.json``, here
in a private folder) that the console attaches through too. The tunnels are made
by a fresh Python (``tunnel_child``), so that this process, which runs threads,
never forks.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import ipaddress
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
MAX_CONNECTION_FILE_BYTES = 64 * 1024  # a connection file is a few hundred bytes
SSH_PROBE_TIMEOUT_S = 15
TUNNEL_CHILD = Path(__file__).with_name("tunnel_child.py")
_HOST_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                        r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")


class AttachError(Exception):
    """A connection file or an SSH host the workbench cannot attach through; ``str`` is one line."""


def find_connection_file(name: str | os.PathLike[str]) -> Path:
    """The file ``name`` names: a path, or, as ``jupyter console --existing`` takes, the name of
    a file in Jupyter's runtime folder (``kernel-1234.json``)."""
    path = Path(name)
    if path.exists() or os.sep in str(name):
        return path
    try:
        from jupyter_client.connect import find_connection_file as find

        return Path(find(str(name)))
    except OSError:
        return path


def read_connection_file(name: str | os.PathLike[str]) -> dict[str, Any]:
    """The connection info in ``name``, checked: AttachError says in one line what is wrong."""
    path = find_connection_file(name)
    if not path.exists():
        raise AttachError(f"no such connection file: {name}")
    if not path.is_file():  # a folder, or a FIFO that would block the read
        raise AttachError(f"{name} is not a connection file (not a regular file)")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_CONNECTION_FILE_BYTES + 1)
    except OSError as exc:
        raise AttachError(f"cannot read the connection file {name}: "
                          f"{exc.strerror or exc}") from None
    if len(data) > MAX_CONNECTION_FILE_BYTES:
        raise AttachError(f"{name} is not a connection file (over "
                          f"{MAX_CONNECTION_FILE_BYTES // 1024} KB)")
    try:
        info = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        why = f"{exc.msg} at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) \
            else "not UTF-8 text"
        raise AttachError(f"{name} is not a connection file (not JSON: {why})") from None
    if not isinstance(info, dict):
        raise AttachError(f"{name} is not a connection file (JSON, but not an object)")
    missing = [key for key in (*PORTS, "ip", "key") if key not in info]
    if missing:
        raise AttachError(f"{name} is not a connection file (it has no {', '.join(missing)})")
    transport = info.get("transport", "tcp")
    if transport not in ("tcp", "ipc"):
        raise AttachError(f"{name}: unknown transport {str(transport)[:20]!r} (tcp or ipc)")
    for key in PORTS:
        port = info[key]
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise AttachError(f"{name}: {key} is not a port number: {str(port)[:20]!r}")
    if not isinstance(info["ip"], str) or not isinstance(info["key"], str):
        raise AttachError(f"{name} is not a connection file (ip and key must be text)")
    if not info["key"]:
        raise AttachError(f"{name}: the key is empty, so messages would go unsigned and anyone "
                          "who reaches the kernel's ports could run code there; use the file "
                          "the kernel wrote (it has a key)")
    scheme = info.get("signature_scheme", "hmac-sha256")
    if not _known_scheme(scheme):
        raise AttachError(f"{name}: unknown signature_scheme {str(scheme)[:20]!r} "
                          "(kernels write hmac-sha256)")
    if transport == "tcp" and not _is_address(info["ip"]):
        raise AttachError(f"{name}: ip is not an address: {info['ip'][:40]!r}")
    if transport == "ipc" and not info["ip"]:
        raise AttachError(f"{name}: ip is empty (an ipc kernel's ip is the path of its sockets)")
    return info


def _known_scheme(scheme: object) -> bool:
    """``hmac-<a hashlib digest>``, the form jupyter_client's Session accepts."""
    if not isinstance(scheme, str) or not scheme.startswith("hmac-"):
        return False
    digest = scheme.removeprefix("hmac-")
    return digest.isidentifier() and callable(getattr(hashlib, digest, None)) \
        and digest in hashlib.algorithms_available


def _is_address(ip: str) -> bool:
    """An IP address or a host name (what a TCP connect can reach)."""
    try:
        ipaddress.ip_address(ip)
        return True
    except ValueError:
        return _HOST_NAME.fullmatch(ip) is not None and len(ip) <= 253


def attach_warnings(name: str | os.PathLike[str], info: dict[str, Any],
                    ssh: str | None) -> list[str]:
    """What is unsafe about attaching through ``name`` (one line each): a file other users can
    read (its key lets them run code in the kernel), a kernel that listens on every address,
    or one reached over the network without ssh."""
    warnings = []
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(find_connection_file(name).stat().st_mode)
        if mode & 0o044:
            warnings.append(f"{name} can be read by other users (mode {mode:04o}): anyone who "
                            "can read it can run code in the kernel; chmod 600 it")
    ip = info.get("ip", "")
    if info.get("transport", "tcp") != "tcp":
        return warnings
    if ip in ("0.0.0.0", "::"):
        warnings.append(f"the kernel listens on all addresses ({ip}): anyone on the network "
                        "who gets its key can run code there; start it with --ip 127.0.0.1 "
                        "and attach with --ssh HOST")
    elif not ssh and not _loopback(ip):
        warnings.append(f"the kernel at {ip} is reached over the network without ssh: your "
                        "code and its results travel unencrypted; attach with --ssh HOST")
    return warnings


def _loopback(ip: str) -> bool:
    if ip == "localhost":
        return True
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def port_mismatch(given: dict[str, Any], kernel: dict[str, Any]) -> str:
    """How the ports of a connection file are the kernel's own ports (its ``connect_reply``)
    given to the wrong channels, in words ("" when they match or are not the kernel's at all:
    a forwarded port may differ)."""
    own = {kernel.get(key): key for key in PORTS if isinstance(kernel.get(key), int)}
    wrong = [(key, own[given[key]]) for key in PORTS
             if given.get(key) in own and own[given[key]] != key]
    if len(own) < len(PORTS) or not wrong:
        return ""
    names = ", ".join(f"{key} is its {theirs}" for key, theirs in wrong)
    return f"the ports do not match the kernel's ({names}): were they swapped?"


def split_ssh_host(server: str) -> str:
    """The host of ``[USER@]HOST[:PORT]``."""
    host = server.rpartition("@")[2]
    if host.startswith("["):  # [::1]:2222
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def host_label(connection_file: str | os.PathLike[str] | None, ssh: str | None = None) -> str:
    """How the status bar names an attached kernel's host: the SSH host, ``localhost`` for a
    kernel on this machine, else the address in the connection file."""
    if ssh:
        return split_ssh_host(ssh)
    if connection_file is None:
        return "localhost"
    try:
        info = read_connection_file(connection_file)
    except AttachError:
        return Path(connection_file).name
    if info.get("transport", "tcp") == "ipc":
        return "localhost"
    ip = info["ip"]
    if ip in ("", "localhost", "0.0.0.0", "::"):
        return "localhost"
    try:
        return "localhost" if ipaddress.ip_address(ip).is_loopback else ip
    except ValueError:
        return ip


def tunnel(info: dict[str, Any], server: str) -> dict[str, Any]:
    """``info`` with its five ports forwarded from 127.0.0.1 through ``ssh server``.

    The ssh processes are jupyter_client's, started by a fresh Python of their own
    (``tunnel_child``: pexpect forks, and this process runs threads): they stay up
    while a connection uses them (at least 60 s), so nothing here needs closing.
    """
    if info.get("transport", "tcp") != "tcp":
        raise AttachError("an ipc kernel can only be attached on its own machine "
                          "(start it with TCP to reach it over ssh)")
    answer = _tunnel_in_child(dict(info), server)
    error = answer.get("error")
    if error is not None or not isinstance(answer.get("ports"), list):
        error = error or {"runtime": False, "text": "", "type": "the ssh helper failed"}
        raise AttachError(f"cannot reach the kernel through ssh {server}: "
                          f"{_ssh_reason(server, error)}")
    shell, iopub, stdin, hb, control = answer["ports"]
    return {**info, "ip": "127.0.0.1", "transport": "tcp", "shell_port": shell,
            "iopub_port": iopub, "stdin_port": stdin, "hb_port": hb, "control_port": control}


_HELPERS: list[subprocess.Popen[str]] = []  # tunnel children, alive until this process ends


def _tunnel_in_child(info: dict[str, Any], server: str) -> dict[str, Any]:
    """Run ``tunnel_child`` (the key goes on its stdin, never its command line); its answer."""
    helper = subprocess.Popen([sys.executable, "-P", str(TUNNEL_CHILD)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)  # a terminal's Ctrl+C is not its
    assert helper.stdin is not None and helper.stdout is not None
    try:
        helper.stdin.write(json.dumps({"info": info, "server": server}) + "\n")
        helper.stdin.flush()
        line = helper.stdout.readline()
    except OSError:
        line = ""
    try:
        answer = json.loads(line)
    except ValueError:
        helper.kill()
        _, err = helper.communicate()
        last = [text.strip() for text in err.splitlines() if text.strip()]
        return {"error": {"runtime": False, "text": last[-1] if last else "",
                          "type": "the ssh helper failed"}}
    if isinstance(answer, dict) and "ports" in answer:
        _HELPERS.append(helper)  # its tunnels may need it at exit (see tunnel_child)
        return answer
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        helper.communicate(timeout=5)
    return answer if isinstance(answer, dict) else {}


@atexit.register
def _end_helpers() -> None:
    """Let each tunnel child end as this process does (jupyter_client's exit handlers run)."""
    for helper in _HELPERS:
        with contextlib.suppress(OSError, ValueError):
            assert helper.stdin is not None
            helper.stdin.close()
    for helper in _HELPERS:
        with contextlib.suppress(subprocess.TimeoutExpired):
            helper.wait(2)


def _ssh_reason(server: str, error: dict[str, Any]) -> str:
    """Why the tunnel failed: ssh's own last words when it gives some (jupyter_client only
    says that it failed, with a RuntimeError)."""
    if not error.get("runtime"):
        text = str(error.get("text", "")).strip().splitlines()
        return text[0] if text else str(error.get("type", "error"))
    user_host, _, port = server.partition(":") if server.count(":") == 1 else (server, "", "")
    cmd = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]
    if port:
        cmd += ["-p", port]
    try:
        probe = subprocess.run([*cmd, user_host, "exit"], capture_output=True, text=True,
                               timeout=SSH_PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"ssh failed ({err})"
    lines = [line.strip() for line in probe.stderr.splitlines() if line.strip()]
    if probe.returncode != 0 and lines:
        return lines[-1]
    return "ssh could not forward the kernel's ports (does the host allow TCP forwarding?)"


def write_tunnel_file(info: dict[str, Any], folder: Path) -> Path:
    """The tunnelled connection info as a private file (0600) for the console to attach by;
    a new name for each tunnel, so that the console sees that it changed."""
    path = folder / f"kernel-ssh-{len(list(folder.glob('kernel-ssh-*.json'))) + 1}.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(info, fh, indent=1)
    return path
