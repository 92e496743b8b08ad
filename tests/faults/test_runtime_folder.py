"""Our own kernel's runtime folder and keys: a folder a /tmp cleaner removed is made again when the
kernel has to start again; each start has a key of its own, so a message signed for the kernel
before a restart is refused after it; and the folder (the key inside) does not outlive a client
killed with SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import zmq
from jupyter_client.session import Session

from tests.kernel_util import Recorder, process_alive, wait_until
from workbench.api import messages as p
from workbench.api.state import State
from workbench.client.launch import OWNER_FILE, remove_stale_runtime_dirs
from workbench.engine.kernel import remove_runtime_dir


def _restarted(rec: Recorder, seen: int, old_pid: int) -> bool:
    return ("restarted" in rec.kinds()[seen:] and rec.client.state == State.IDLE
            and rec.client.pid != old_pid)


def test_a_removed_runtime_folder_is_made_again_when_the_kernel_restarts():
    rec = Recorder()
    try:
        old_pid = rec.call(p.Ping(), 120).value.pid
        runtime = rec.client.runtime_dir
        assert runtime is not None
        for path in runtime.iterdir():  # as a /tmp cleaner does
            path.unlink()
        runtime.rmdir()
        seen = len(rec.notices)
        os.kill(old_pid, signal.SIGKILL)
        wait_until(lambda: _restarted(rec, seen, old_pid), 60, "the kernel started again")
        assert rec.kinds()[seen:].count("crashed") == 1  # one death, one restart: no loop
        assert isinstance(rec.call(p.Ping(), 30), p.Result)
        assert rec.client.runtime_dir == runtime and runtime.is_dir()
        assert stat.S_IMODE(runtime.stat().st_mode) & 0o777 == 0o700
        assert rec.client.connection_file.parent == runtime
    finally:
        rec.close()
    assert not runtime.exists()


def _url(info: dict, channel: str) -> str:
    return f"ipc://{info['ip']}-{info[f'{channel}_port']}"


def _session(info: dict) -> Session:
    return Session(key=info["key"].encode(), signature_scheme=info["signature_scheme"])


def test_a_message_signed_before_a_restart_is_refused_after_it():
    rec = Recorder()
    try:
        old_pid = rec.call(p.Ping(), 120).value.pid
        before_file = rec.client.connection_file
        before = json.loads(before_file.read_text())
        # Captured: a signed request, as it went over the wire before the restart.
        old = _session(before)
        captured = old.serialize(old.msg("kernel_info_request", {}))
        captured_id = json.loads(captured[2])["msg_id"]
        seen = len(rec.notices)
        rec.client.restart()
        wait_until(lambda: _restarted(rec, seen, old_pid), 60, "the restart")
        after = json.loads(rec.client.connection_file.read_text())
        assert after["key"] != before["key"]
        assert not before_file.exists()  # the old key is not left on disk either

        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.linger = 0
        try:
            sock.connect(_url(after, "shell"))
            sock.send_multipart(captured)  # replayed to the new kernel
            fresh = _session(after)
            asked = fresh.send(sock, "kernel_info_request", {})["header"]["msg_id"]
            # The kernel answers in order: the replay's reply would come before this one's.
            answered: list[str] = []
            while asked not in answered:
                assert sock.poll(30000), "no answer to the request signed with the new key"
                raw = sock.recv_multipart()
                parent = json.loads(raw[raw.index(b"<IDS|MSG>") + 3])
                answered.append(parent.get("msg_id"))
            assert captured_id not in answered
            assert answered == [asked]
        finally:
            sock.close()
            ctx.term()

        # The kernel a Stop starts early has a key of its own too.
        process = rec.client._process
        rec.client._call(process.start_standby)
        wait_until(lambda: process.standby is not None, 30, "the standby")
        standby = json.loads(process.standby.connection_file.read_text())
        assert standby["key"] not in (before["key"], after["key"])
        rec.client._call(process.discard_standby)
        wait_until(lambda: process.standby is None, 30, "the standby gone")
    finally:
        rec.close()


CHILD = textwrap.dedent(
    """
    import sys
    from workbench.api import messages as p
    from workbench.client.engine_client import EngineClient

    client = EngineClient()
    assert isinstance(client.call(p.Ping(), 120), p.Result)
    print(client.runtime_dir, client.pid, flush=True)
    sys.stdin.read()  # until it is killed
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_runtime_folder_goes_when_its_client_is_killed():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()  # the child's own progress, under pytest's timeout
        folder, kernel_pid = Path(line.split()[0]), int(line.split()[1])
        assert (folder / OWNER_FILE).read_text().split()[0] == str(child.pid)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        killed = time.monotonic()
        took = wait_until(lambda: not folder.exists(), 10, "the runtime folder removed")
        print(f"runtime folder gone {took:.1f} s after SIGKILL")
        wait_until(lambda: not process_alive(kernel_pid), 10, "the kernel to end")
        assert time.monotonic() - killed < 10
    finally:
        if child.poll() is None:
            child.kill()


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def test_folders_whose_client_is_gone_are_removed_at_the_next_start(tmp_path):
    def folder(name: str, owner: str | None) -> Path:
        path = tmp_path / name
        path.mkdir(mode=0o700)
        (path / "kernel-1.json").write_text("{}")
        if owner is not None:
            (path / OWNER_FILE).write_text(owner)
        return path

    namespace = os.readlink("/proc/self/ns/pid") if os.path.exists("/proc/self/ns/pid") else ""
    dead = _dead_pid()
    stale = folder("workbench-stale", f"{dead} {namespace}")
    live = folder("workbench-live", f"{os.getppid()} {namespace}")
    mine = folder("workbench-mine", f"{os.getpid()} {namespace}")
    unmarked = folder("workbench-ssh-x", None)  # an ssh tunnel's folder: not ours to judge
    # A client in a container sharing /tmp: its pid means nothing here.
    elsewhere = folder("workbench-container", f"{dead} pid:[4026599999]")
    assert remove_stale_runtime_dirs(tmp_path) == [stale]
    assert not stale.exists()
    assert live.exists() and mine.exists() and unmarked.exists() and elsewhere.exists()


def test_the_kernel_removes_only_a_folder_its_client_marked(tmp_path):
    marked, other = tmp_path / "marked", tmp_path / "other"
    for path in (marked, other):
        path.mkdir()
        (path / "kernel-1.json").write_text("{}")
    (marked / OWNER_FILE).write_text("1")
    remove_runtime_dir(str(marked))
    remove_runtime_dir(str(other))
    assert not marked.exists() and other.exists()
