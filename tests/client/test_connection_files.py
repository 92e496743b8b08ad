"""A connection file that cannot work is one line and exit 1 within seconds, never a wait: an empty
key, a signature scheme nobody knows, an ip that is no address (checked as the file is read), and
ports given to the wrong channels (the kernel's own ports, from its ``connect_reply``, name
them)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.cli.cli_util import run_cli_process
from workbench.client.attach import AttachError, port_mismatch, read_connection_file

PROG = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n"
GOOD = {"shell_port": 5001, "iopub_port": 5002, "stdin_port": 5003, "control_port": 5004,
        "hb_port": 5005, "ip": "127.0.0.1", "key": "k" * 32, "transport": "tcp",
        "signature_scheme": "hmac-sha256"}
# The 5 s attach timeout at most, and the command's own start: generous enough to run beside
# other workers (the command itself takes 0.3-1.5 s), so these tests are not marked serial.
CLI_LIMIT_S = 8.0


def _write(folder: Path, name: str, info: dict) -> Path:
    """A private file (0600), as a kernel writes its own."""
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(info, fh)
    return path


@pytest.mark.parametrize(("field", "value", "says"), [
    ("key", "", "the key is empty, so messages would go unsigned"),
    ("signature_scheme", "hmac-md7", "unknown signature_scheme 'hmac-md7' (kernels write "
                                     "hmac-sha256)"),
    ("signature_scheme", "hmac-new", "unknown signature_scheme 'hmac-new'"),
    ("signature_scheme", "sha256", "unknown signature_scheme 'sha256'"),
    ("ip", "not an ip", "ip is not an address: 'not an ip'"),
    ("ip", "", "ip is not an address: ''"),
    ("ip", "tcp://127.0.0.1", "ip is not an address: 'tcp://127.0.0.1'"),
])
def test_a_file_that_cannot_work_is_refused_as_it_is_read(tmp_path, field, value, says):
    path = _write(tmp_path, "kernel.json", {**GOOD, field: value})
    with pytest.raises(AttachError) as exc:
        read_connection_file(path)
    assert str(exc.value).startswith(f"{path}: {says}")
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("ip", ["127.0.0.1", "::1", "10.1.2.3", "localhost", "gpu-7.lab.example"])
def test_addresses_and_host_names_are_accepted(tmp_path, ip):
    info = read_connection_file(_write(tmp_path, "kernel.json", {**GOOD, "ip": ip}))
    assert info["ip"] == ip


def test_swapped_ports_are_named_and_other_ports_are_not_judged():
    kernel = {key: GOOD[key] for key in GOOD if key.endswith("_port")}
    swapped = {**GOOD, "shell_port": GOOD["iopub_port"], "iopub_port": GOOD["shell_port"]}
    assert port_mismatch(swapped, kernel) == (
        "the ports do not match the kernel's (shell_port is its iopub_port, iopub_port is its "
        "shell_port): were they swapped?")
    assert port_mismatch(GOOD, kernel) == ""
    # Forwarded ports (a tunnel, a container) are not the kernel's own: nothing to say.
    forwarded = {**GOOD, **{key: port + 1000 for key, port in kernel.items()}}
    assert port_mismatch(forwarded, kernel) == ""
    assert port_mismatch(swapped, {}) == ""  # a kernel that does not say its ports


def test_a_socket_whose_port_is_another_kinds_refuses_a_send_at_once():
    # The client's shell socket on the kernel's iopub port (shell and iopub swapped): zmq
    # drops the peer after the handshake, and a send then waited for ever on the client's
    # I/O thread (a CLI hung 30 s in 1 run of 12 when another run shared the machine).
    import threading

    import zmq

    from tests.kernel_util import wait_until
    from workbench.client.transport import ChannelRefused, Transport

    pub = zmq.Context.instance().socket(zmq.PUB)
    pub.linger = 0
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    transport = Transport()
    transport.use_info({**GOOD, "shell_port": port})
    transport.connect()
    refused: list[ChannelRefused] = []

    def refused_yet() -> bool:
        try:
            transport.send("shell", "kernel_info_request", {})
        except ChannelRefused as exc:
            refused.append(exc)
        return bool(refused)

    # In a thread: without the fix the send never returns, and the test must fail, not hang.
    sender = threading.Thread(target=wait_until, args=(refused_yet, 10, "a refusal"),
                              daemon=True)
    sender.start()
    sender.join(15)
    try:
        assert refused, "the send to a port of another kind of socket never returned"
        assert str(refused[0]).startswith(f"the shell port (tcp://127.0.0.1:{port}) takes no")
    finally:
        if not sender.is_alive():
            transport.close()
        pub.close()


def _one_line_in_time(path: Path) -> tuple[str, float]:
    """``workbench trace`` on ``path``: its one stderr line and seconds from its start."""
    prog = path.parent / "prog.py"
    prog.write_text(PROG)
    start = time.monotonic()
    proc = run_cli_process("trace", str(prog), "f", "--args", "f32[3]", "--existing", str(path),
                           timeout=30)
    took = time.monotonic() - start
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    print(f"{path.name}: exit 1 in {took:.1f} s")
    assert took < CLI_LIMIT_S
    return lines[0], took


@pytest.mark.parametrize(("field", "value", "says"), [
    ("key", "", "the key is empty, so messages would go unsigned"),
    ("signature_scheme", "hmac-md7", "unknown signature_scheme 'hmac-md7'"),
    ("ip", "not an ip", "ip is not an address: 'not an ip'"),
])
def test_the_cli_says_a_broken_file_in_one_line(tcp_kernel, tmp_path, field, value, says):
    path = _write(tmp_path, f"{field}.json", {**tcp_kernel.info, field: value})
    line, _ = _one_line_in_time(path)
    assert line.startswith(f"workbench trace: error: {path}: {says}")


@pytest.mark.parametrize(("one", "other"), [
    ("shell_port", "iopub_port"), ("shell_port", "control_port"), ("iopub_port", "control_port"),
    ("shell_port", "hb_port"), ("iopub_port", "stdin_port"), ("control_port", "hb_port"),
])
def test_the_cli_says_swapped_ports_in_one_line(tcp_kernel, tmp_path, one, other):
    info = tcp_kernel.info
    info[one], info[other] = info[other], info[one]
    path = _write(tmp_path, f"{one}-{other}.json", info)
    line, _ = _one_line_in_time(path)
    first, second = sorted((one, other), key=list(GOOD).index)
    assert line == (f"workbench trace: error: {path}: the ports do not match the kernel's "
                    f"({first} is its {second}, {second} is its {first}): were they swapped?")
