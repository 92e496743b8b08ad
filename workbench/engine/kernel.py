"""The engine's kernel: ipykernel with the workbench comm target, and no TCP port of its own.

Run as ``python -m workbench.engine.kernel -f CONNECTION_FILE [options]``; every
option ipykernel knows (``--transport``, ``--ip``, ...) passes through. The
client starts it with an ``ipc`` connection file. On a GPU host, started by
hand for ``workbench --existing FILE --ssh HOST``, it listens on TCP (``--ip
127.0.0.1``: loopback only, reached through the SSH tunnel) and writes FILE if
it does not exist. Requests arrive as comm messages on ``messages.COMM_TARGET``
and run on the kernel's main thread in the console's user namespace, so Stop
(SIGINT, or an ``interrupt_request`` from another machine) reaches them.

A ``shutdown_request`` with ``restart: true`` (what an attached window sends
when the user asks to restart a kernel that Stop could not stop) makes the
process start afresh with its own command line, on the same ports and key:
nothing else on that host would restart it.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import glob
import logging
import os
import re
import resource
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from workbench.api import codec
from workbench.api import messages as p
from workbench.api.limits import MAX_OUTPUT_CHARS
from workbench.api.printed import truncation_note
from workbench.api.process_env import malloc_free_bytes, trim_malloc
from workbench.engine import source_info
from workbench.engine.cells.shell import kernel_matplotlib
from workbench.engine.printed import TextSink, routed
from workbench.engine.service import Context, Service

if TYPE_CHECKING:
    from ipykernel.kernelapp import IPKernelApp

DEFAULT_OUTPUT_LIMIT = MAX_OUTPUT_CHARS  # characters of user output forwarded per request
MIN_MEMORY_LIMIT = 4 * 2**30  # below this JAX itself cannot start (it maps ~1.5 GB)


# --------------------------------------------------------------------------- memory limit


def accelerator_present() -> bool:
    """A GPU/TPU device node exists and JAX is not pinned to the CPU (no jax import: cheap)."""
    platforms = os.environ.get("JAX_PLATFORMS", "").strip().lower()
    if platforms and set(platforms.split(",")) <= {"cpu"}:
        return False
    patterns = ("/dev/nvidia[0-9]*", "/dev/kfd", "/dev/accel[0-9]*", "/dev/vfio/[0-9]*")
    return any(glob.glob(pattern) for pattern in patterns)


def total_memory() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def parse_memory_limit(text: str) -> int | None:
    """``auto`` (75% of RAM unless an accelerator is present), ``off``, ``0.5`` (of RAM), ``8G``."""
    text = text.strip().lower()
    if text in ("off", "none", "0"):
        return None
    if text == "auto":
        return None if accelerator_present() else max(int(total_memory() * 0.75),
                                                       MIN_MEMORY_LIMIT)
    units = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
    try:
        if text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        value = float(text)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"bad memory limit {text!r}") from None
    return int(value * total_memory()) if value <= 1 else int(value)


def apply_memory_limit(limit: int | None) -> int | None:
    """Cap this process's address space so a huge allocation fails instead of the machine."""
    if limit is None:
        return None
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit


# --------------------------------------------------------------------------- memory back

TRIM_AFTER_FREE = 128 * 2**20  # free heap bytes, beyond those of the last trim


class HeapTrimmer:
    """Hands freed memory back to the system after a request that left much of it free.

    glibc keeps freed heap blocks for reuse (its mmap threshold grows to 32 MB as big
    blocks come and go), so ``del`` of big arrays can leave RSS where it was.
    ``malloc_trim`` returns the free pages (measured: 0.1-1 ms on a small heap, 10 ms
    after a k-means run of 1e6 points);
    reading the heap's free total costs 4 us. So it trims only when the heap holds
    ``threshold`` more free bytes than after the last trim: a ping or a trace never
    pays, and a k-means run reuses the blocks the previous run left below it.
    """

    def __init__(self, threshold: int = TRIM_AFTER_FREE):
        self.threshold = threshold
        self._floor = malloc_free_bytes() or 0

    def __call__(self, *_: object) -> bool:
        """Trim if due; True if it did (the arguments of IPython's events are ignored)."""
        free = malloc_free_bytes()
        if free is None:
            return False
        # Free bytes counted here may already be trimmed; reuse brings them back in.
        self._floor = min(self._floor, free)
        if free - self._floor < self.threshold:
            return False
        trim_malloc()
        self._floor = malloc_free_bytes() or 0
        return True


# --------------------------------------------------------------------------- user output


class OutputCapture:
    """User stdout/stderr of one request, sent as batched ``Output`` events, capped in total.

    Past ``limit`` characters the text is only counted; the last event says how
    much was dropped, so a print in a loop of a million iterations costs the GUI
    one small message per batch. A flush (``print(..., flush=True)``) sends at
    most once per ``interval``; a timer sends what is left, so the last line
    before a long computation still shows. Text from a thread other than the
    request's own is sent apart, marked ``background``.
    """

    def __init__(self, request_id: str, send: Callable[[p.Event], None],
                 limit: int = DEFAULT_OUTPUT_LIMIT, interval: float = 0.05, batch: int = 16_384):
        self.request_id = request_id
        self._send = send
        self.limit = limit
        self.interval = interval
        self.batch = batch
        self.kept = 0
        self.dropped = 0
        self.sent = 0
        self._owner = threading.get_ident()
        self._pending: list[tuple[str, bool, str]] = []
        self._pending_size = 0
        self._last_flush = time.monotonic()
        self._timer: threading.Timer | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._sending = threading.RLock()

    def write(self, stream: str, text: str) -> None:
        background = threading.get_ident() != self._owner
        with self._lock:
            room = self.limit - self.kept
            if room <= 0:
                self.dropped += len(text)
                return
            if len(text) > room:
                self.dropped += len(text) - room
                text = text[:room]
            self.kept += len(text)
            self._pending.append((stream, background, text))
            self._pending_size += len(text)
        if self._pending_size >= self.batch:
            self.flush()
        else:
            self.flush_soon()

    def flush_soon(self) -> None:
        """Send now if the last send is ``interval`` old, else once that much has passed."""
        with self._lock:
            if not self._pending or self._closed:
                return
            wait = self._last_flush + self.interval - time.monotonic()
            if wait > 0:
                if self._timer is None:
                    self._timer = threading.Timer(wait, self.flush)
                    self._timer.daemon = True
                    self._timer.start()
                return
        self.flush()

    def flush(self) -> None:
        # Held while sending too: ``close`` (then the reply) waits for a batch a timer
        # thread is still sending, so no output arrives after its request's reply.
        with self._sending:
            with self._lock:
                pending, self._pending, self._pending_size = self._pending, [], 0
                self._last_flush = time.monotonic()
                self._timer = None
            merged: list[list[Any]] = []
            for stream, background, text in pending:
                if merged and merged[-1][0] == stream and merged[-1][1] == background:
                    merged[-1][2] += text
                else:
                    merged.append([stream, background, text])
            for stream, background, text in merged:
                self.sent += 1
                self._send(p.Output(self.request_id, stream, text, background=background))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            if timer is not threading.current_thread():
                timer.join(1.0)  # one already firing sends before the reply, not after
        self.flush()
        if self.dropped:
            note = f"\n{truncation_note(self.dropped)}\n"
            self._send(p.Output(self.request_id, "stderr", note, True, self.dropped))


# --------------------------------------------------------------------------- comm endpoint


class Endpoint:
    """The comm target: decodes requests, runs them through the service, sends replies."""

    def __init__(self, service: Service, output_limit: int = DEFAULT_OUTPUT_LIMIT,
                 after_reply: Callable[[], object] | None = None):
        self.service = service
        self.output_limit = output_limit
        self.after_reply = after_reply
        self.before_request: Callable[[], object] | None = None

    def on_open(self, comm: Any, open_msg: dict[str, Any]) -> None:
        comm.on_msg(lambda msg: self.on_msg(comm, msg))

    def on_msg(self, comm: Any, msg: dict[str, Any]) -> None:
        """Answer every message, whatever it holds or raises: a silent request hangs the GUI."""
        data = msg.get("content", {}).get("data")
        rid = _best_effort_id(data)
        reply: p.Reply
        try:
            try:
                if isinstance(data, dict) and TOO_DEEP in data:
                    raise RecursionError
                request = codec.decode(data, msg.get("buffers") or [])
            except codec.ProtocolError as exc:
                reply = p.UsageFailure(rid, f"malformed request: {exc}")
            except RecursionError:
                reply = p.UsageFailure(rid, "malformed request: nested too deeply")
            except Exception as exc:  # noqa: BLE001 - a decoder bug still gets an answer
                reply = p.EngineFailure(rid, f"internal error decoding a request: "
                                        f"{type(exc).__name__}: {exc}")
            else:
                rid = getattr(request, "id", rid)
                if self.before_request is not None:
                    self.before_request()
                reply = self.run(comm, request)
        except KeyboardInterrupt:
            reply = p.Cancelled(rid, "stopped")
        except BaseException as exc:  # noqa: BLE001 - SystemExit and kin must not end the kernel
            reply = p.EngineFailure(rid, f"internal error: {type(exc).__name__}: {exc}")
        self.send(comm, reply)
        if self.after_reply is not None:
            self.after_reply()

    def run(self, comm: Any, request: Any) -> p.Reply:
        rid = getattr(request, "id", "")
        capture = OutputCapture(rid, lambda event: self.send(comm, event), self.output_limit)
        try:
            with routed(TextSink(partial(capture.write, "stdout"), capture.flush_soon),
                        TextSink(partial(capture.write, "stderr"), capture.flush_soon)):
                return self.service.handle(request, Context(rid, lambda e: self.send(comm, e)))
        finally:
            capture.close()

    def send(self, comm: Any, value: Any) -> None:
        try:
            data, buffers = codec.encode(value)
        except TypeError as exc:
            rid = getattr(value, "id", "")
            data, buffers = codec.encode(
                p.EngineFailure(rid, f"internal error: the result cannot be sent: {exc}")
            )
        comm.send(data=data, buffers=buffers)


TOO_DEEP = "workbench-too-deep"
_COMM_ID = re.compile(rb'"comm_id"\s*:\s*"([^"\\]{1,64})"')
_REQUEST_ID = re.compile(rb'"id"\s*:\s*"([^"\\]{1,64})"')


def tolerant_unpack(unpack: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """The session's JSON reader, answering what it cannot parse instead of dropping it.

    JSON nested deeper than Python's recursion limit makes ipykernel drop the
    message unanswered; this reads it as a comm message of the same comm and id
    that our endpoint answers with a usage error.
    """

    def read(raw: bytes) -> Any:
        try:
            return unpack(raw)
        except RecursionError:
            data = raw if isinstance(raw, bytes) else str(raw).encode()
            comm = _COMM_ID.search(data)
            rid = _REQUEST_ID.search(data)
            return {"comm_id": comm.group(1).decode() if comm else "",
                    "data": {TOO_DEEP: True, "id": rid.group(1).decode() if rid else ""}}

    return read


def _best_effort_id(data: Any) -> str:
    try:
        rid = data["id"] if TOO_DEEP in data else data["body"]["fields"]["id"]
    except (TypeError, KeyError):
        return ""
    return rid if isinstance(rid, str) else ""


# --------------------------------------------------------------------------- the kernel app


RESTART_FLUSH_S = 0.2  # for the shutdown reply to leave before the process is replaced


def restart_process() -> None:
    """Replace this process with a fresh one of the same command line (same pid, same ports).

    From the control thread, so a main thread stuck in a jitted computation (deaf
    to SIGINT) is replaced too.
    """
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()  # type: ignore[union-attr]
    time.sleep(RESTART_FLUSH_S)
    os.execv(sys.executable, sys.orig_argv)


def _make_app_class() -> type[IPKernelApp]:
    from ipykernel.iostream import IOPubThread
    from ipykernel.ipkernel import IPythonKernel
    from ipykernel.kernelapp import IPKernelApp
    from traitlets import Bool, Type

    class WorkbenchKernel(IPythonKernel):
        """IPythonKernel that restarts itself on ``shutdown_request(restart=True)`` and says
        where the user's code runs on ``messages.WHERE_REQUEST``."""

        control_msg_types = [*IPythonKernel.control_msg_types, p.WHERE_REQUEST]
        where_running: Callable[[], dict[str, Any]] | None = None
        restarts_itself = True  # False under a Jupyter Server's kernel manager: it restarts

        async def workbench_where_request(self, stream: Any, ident: Any, parent: Any) -> None:
            """On the control thread, so it answers while the main thread is deaf to Stop."""
            assert self.session is not None
            where = self.where_running() if self.where_running is not None else {}
            self.session.send(stream, p.WHERE_REPLY, where, parent, ident=ident)

        async def shutdown_request(self, stream: Any, ident: Any, parent: Any) -> None:
            if not (parent.get("content", {}).get("restart") and self.restarts_itself):
                await super().shutdown_request(stream, ident, parent)
                return
            assert self.session is not None
            # On the socket itself: the stream would send from this thread's event loop,
            # which never turns again.
            socket = getattr(stream, "socket", stream)
            self.session.send(socket, "shutdown_reply", {"status": "ok", "restart": True},
                              parent, ident=ident)
            restart_process()

    class WorkbenchKernelApp(IPKernelApp):
        """IPKernelApp that opens no TCP port: no iopub pipe for forked children."""

        name = "workbench-kernel"
        kernel_class = Type(  # type: ignore[assignment]  # a traitlet, as in IPKernelApp
            WorkbenchKernel, klass="ipykernel.kernelbase.Kernel").tag(config=True)
        # fd-level capture would route a fatal error's last words through a pipe
        # that dies with the process; leave fd 2 on the launcher's log file.
        capture_fd_output = Bool(False).tag(config=True)

        def init_iopub(self, context: Any) -> None:
            import zmq

            self.iopub_socket = context.socket(zmq.XPUB)
            self.iopub_socket.linger = 1000
            self._apply_curve_server_options(self.iopub_socket)
            self.iopub_port = self._bind_socket(self.iopub_socket, self.iopub_port)
            self.configure_tornado_logger()
            # pipe=True would bind tcp://127.0.0.1:<random> for output of forked children.
            self.iopub_thread = IOPubThread(self.iopub_socket, pipe=False, session=self.session)
            self.iopub_thread.start()
            self.iopub_socket = self.iopub_thread.background_socket

    return WorkbenchKernelApp


# --------------------------------------------------------------------------- parent watch

# client/launch.py writes it into each runtime folder it makes: only such a folder is removed.
OWNER_FILE = "workbench-owner"
PARENT_POLL_S = 0.5


class ParentWatch(threading.Thread):
    """ipykernel's parent poller (the kernel ends once the process that started it is gone),
    which first removes that process's runtime folder: a window killed with SIGKILL cannot,
    and the folder holds the kernel's key."""

    def __init__(self, parent_pid: int, runtime_dir: str) -> None:
        super().__init__(name="workbench-parent-watch", daemon=True)
        self.parent_pid = parent_pid
        self.runtime_dir = runtime_dir

    def run(self) -> None:
        # As ipykernel's: started through a wrapper that did not exec, the kernel has
        # another parent, and the end shows as being adopted by init.
        parent = self.parent_pid if os.getppid() == self.parent_pid else 0
        while (os.getppid() == parent) if parent else (os.getppid() != 1):
            time.sleep(PARENT_POLL_S)
        remove_runtime_dir(self.runtime_dir)
        os._exit(1)


def remove_runtime_dir(folder: str) -> None:
    """The client's runtime folder (connection files, sockets, logs), if it is one."""
    if os.path.isfile(os.path.join(folder, OWNER_FILE)):
        shutil.rmtree(folder, ignore_errors=True)


def watch_parent(app: IPKernelApp, runtime_dir: str) -> None:
    """Put ``ParentWatch`` in place of the poller ``app.initialize`` made (started by
    ``app.start``); none is made for a kernel started by hand (no ``JPY_PARENT_PID``)."""
    from ipykernel.parentpoller import ParentPollerUnix

    if isinstance(app.poller, ParentPollerUnix):
        app.poller = ParentWatch(app.parent_handle, runtime_dir)


def _warm_up(touch_devices: bool) -> None:
    """Import JAX while the kernel waits for its first request (GUI start-up in parallel)."""
    try:
        import jax
        import jax.numpy  # noqa: F401

        if touch_devices:  # not Stop's probe: compiling it here slows every restart by 0.2 s
            jax.devices()
    except Exception:  # noqa: BLE001 - the first real request reports the problem
        pass


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.engine.kernel",
        description="The workbench engine kernel (ipykernel options pass through, e.g. -f FILE).",
        epilog="On a GPU host, for workbench --existing FILE --ssh HOST: "
        "python -m workbench.engine.kernel -f ~/wb-kernel.json --ip 127.0.0.1 "
        "(-f FILE: the connection file, written if it does not exist; --ip: the address to "
        "listen on over TCP, loopback so that only the SSH tunnel reaches it; "
        "--transport tcp|ipc).",
    )
    parser.add_argument("--memory-limit", default=os.environ.get("WORKBENCH_MEMORY_LIMIT", "auto"),
                        help="address-space limit: auto (75%% of RAM, off with an "
                        "accelerator), off, a fraction of RAM, or a size like 8G")
    parser.add_argument("--fault-file", help="where faulthandler writes a crash's traceback")
    parser.add_argument("--output-limit", type=int, default=DEFAULT_OUTPUT_LIMIT,
                        help="characters of user output forwarded per request")
    parser.add_argument("--no-warm-up", action="store_true", help="do not import JAX early")
    parser.add_argument("--runtime-dir", help="the folder of the client that starts this "
                        "kernel: removed when that process is gone (it holds the key)")
    parser.add_argument("--managed", action="store_true",
                        help="started by a Jupyter Server from the kernelspec: its kernel "
                        "manager restarts the kernel (this process does not replace itself)")
    parser.add_argument("--standby", action="store_true",
                        help="started beside a kernel that may still hold the accelerator: "
                        "warm up without touching it")
    return parser


class _RoutingPeekFilter(logging.Filter):
    """Drop ipykernel 7's spurious "No such comm" from its shell-channel thread.

    That thread peeks at every comm message to route it to a subshell, and may do
    so before the main thread has handled our ``comm_open``; the message is then
    delivered in order anyway. A miss on the main thread is real and still shown
    (it would otherwise print into the user's console).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.getMessage().startswith("No such comm:")
            and threading.current_thread() is not threading.main_thread()
        )


def main(argv: Sequence[str] | None = None) -> None:
    logging.getLogger("Comm").addFilter(_RoutingPeekFilter())
    args, rest = build_parser().parse_known_args(argv)
    fault = open(args.fault_file, "w") if args.fault_file else sys.stderr  # noqa: SIM115
    # Only the crashing thread: that is where the user's line is; the rest is noise.
    faulthandler.enable(file=fault, all_threads=False)
    try:
        limit = apply_memory_limit(parse_memory_limit(args.memory_limit))
    except argparse.ArgumentTypeError as exc:
        build_parser().error(str(exc))

    app = _make_app_class().instance()
    app.initialize(list(rest))
    if args.runtime_dir:
        watch_parent(app, args.runtime_dir)
    app.session.unpack = tolerant_unpack(app.session.unpack)
    app.kernel.restarts_itself = not args.managed
    shell = app.shell
    assert shell is not None  # initialize() made it
    service = Service(shell.user_ns, in_kernel=True, memory_limit=limit)
    source_info.install_thread_notes()  # Stop names the threads the user's code started
    kernel_matplotlib(shell)  # the console's %matplotlib too: one line where it shows nowhere
    shell.user_ns["workbench_service"] = service
    main_thread = threading.get_ident()  # where requests and console cells run
    app.kernel.where_running = partial(service.where_running, main_thread)
    trimmer = HeapTrimmer()  # after every request and every console cell
    shell.events.register("post_run_cell", trimmer)
    endpoint = Endpoint(service, args.output_limit, after_reply=trimmer)
    app.kernel.comm_manager.register_target(p.COMM_TARGET, endpoint.on_open)
    if not args.no_warm_up:
        touch = not (args.standby and accelerator_present())
        warm = threading.Thread(target=_warm_up, args=(touch,), name="workbench-warm-up",
                                daemon=True)
        warm.start()
        # Code that imports jax while the warm-up does could see it half imported (a circular
        # import across threads): requests and console cells wait for the warm-up first.
        endpoint.before_request = warm.join
        shell.events.register("pre_execute", warm.join)
    app.start()


if __name__ == "__main__":
    main()
