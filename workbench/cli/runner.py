"""Where a headless command's requests run: in this process, or in a kernel started elsewhere.

Each command builds ``workbench.api`` requests and formats their results once;
``open_engine(args)`` gives the engine that answers them: an in-process
``Service`` by default, or, with ``--existing FILE [--ssh HOST]``, the kernel of
that connection file through ``EngineClient`` (the window's own client). The
same request gives the same result either way, so the output is the same.
"""

from __future__ import annotations

import argparse
import queue
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar

from workbench.api import messages as p
from workbench.api.state import Notice, NoticeKind
from workbench.cli.common import UserOutput
from workbench.engine.errors import UsageError, UserCodeError, WorkbenchError

if TYPE_CHECKING:
    from workbench.client.engine_client import EngineClient

V = TypeVar("V")
ProgressHandler = Callable[[p.Progress], None]
STOP_WAIT_S = 5.0  # after Ctrl+C, for the attached kernel's "stopped" before giving up on it
PROGRESS_AFTER_S = 2.0  # what the client waits for, said once it has taken this long


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--existing FILE`` and ``--ssh HOST``; also read when given before the sub-command."""
    group = parser.add_argument_group("engine")
    group.add_argument("--existing", metavar="FILE", default=argparse.SUPPRESS,
                       help="run in the kernel of this connection file (one started with "
                       "python -m workbench.engine.kernel) instead of in this process")
    group.add_argument("--ssh", metavar="[USER@]HOST", default=argparse.SUPPRESS,
                       help="reach that kernel through an SSH tunnel to HOST")
    group.add_argument("--server", metavar="URL", default=argparse.SUPPRESS,
                       help="run in a kernel of this Jupyter Server (a JupyterHub user URL "
                       "too), started from its workbench kernelspec")
    group.add_argument("--token", metavar="TOKEN", default=argparse.SUPPRESS,
                       help="the server's token (better: JUPYTER_TOKEN or "
                       "JUPYTERHUB_API_TOKEN in the environment)")
    group.add_argument("--kernel-name", metavar="NAME", default=argparse.SUPPRESS,
                       help="the server's kernelspec to start (default: workbench)")
    group.add_argument("--kernel-id", metavar="ID", default=argparse.SUPPRESS,
                       help="an existing kernel of the server instead of a new one")


class EngineError(WorkbenchError):
    """The engine could not answer (it died, or cannot be reached); ``fault`` its last words."""

    def __init__(self, message: str, fault: str = ""):
        super().__init__(message)
        self.fault = fault


def raise_failure(reply: p.Reply) -> None:
    """The exception the in-process engine would have raised for this failure reply."""
    if isinstance(reply, p.UserCodeFailure):
        raise UserCodeError(reply.explanation, reply.outputs)
    if isinstance(reply, p.UsageFailure):
        error = UsageError(reply.message)
        error.field = reply.field
        error.exit_code = reply.exit_code  # 1 for a device the machine lacks
        raise error
    if isinstance(reply, p.Cancelled):
        raise KeyboardInterrupt
    if isinstance(reply, p.EngineFailure):
        raise EngineError(reply.message, reply.fault)
    raise EngineError(p.reply_text(reply))


class Engine:
    """Answers requests; ``call`` returns the result's value or raises what its failure means."""

    def call(self, request: p.Request, kind: type[V], *, output: UserOutput | None = None,
             on_progress: ProgressHandler | None = None) -> V:
        """The ``kind`` value of the reply to ``request``.

        What the user's code prints goes into ``output`` (else on stderr); progress
        events to ``on_progress``. On a failure the printed text goes on stderr first.
        """
        def on_event(event: p.Event) -> None:
            if isinstance(event, p.Progress):
                if on_progress is not None:
                    on_progress(event)
            elif isinstance(event, p.Output):
                _printed(event, output)

        reply = self._reply(request, on_event, output)
        value = p.result_value(reply, kind)
        if value is None:
            if output is not None:
                output.to_stderr()
            raise_failure(reply)
            raise EngineError(f"unexpected reply {p.reply_text(reply)}")
        return value

    def _reply(self, request: p.Request, on_event: Callable[[p.Event], None],
               output: UserOutput | None) -> p.Reply:
        raise NotImplementedError

    def close(self) -> None:
        """Let go of the engine (an attached kernel keeps running)."""


def _printed(event: p.Output, output: UserOutput | None) -> None:
    """An attached kernel's report of what the code printed, where the in-process one puts it."""
    if output is None:
        if not event.truncated:
            sys.stderr.write(event.text)
    elif event.truncated:
        output.add_dropped(event.dropped)  # the note is written once, from the total
    else:
        output.write(event.text)


class LocalEngine(Engine):
    """The engine in this process: a fresh ``Service`` (no kernel).

    With ``namespace`` every source runs in that one dict, so names stay from one load to
    the next as a notebook's cells (and a kernel's console) keep them.
    """

    def __init__(self, namespace: dict[str, Any] | None = None) -> None:
        from workbench.engine.service import Service

        self.service = Service(namespace)

    def _reply(self, request: p.Request, on_event: Callable[[p.Event], None],
               output: UserOutput | None) -> p.Reply:
        from workbench.engine.service import Context

        context = Context(request.id, on_event)
        if output is None:
            return self.service.handle(request, context)
        with output.running():
            return self.service.handle(request, context)


class AttachedEngine(Engine):
    """The kernel of a connection file, through the window's own client.

    What makes that unsafe (a file other users can read, a kernel on every address) is
    a warning line on stderr once the kernel answers; a file that leads nowhere is one
    error line, nothing more.
    """

    def __init__(self, connection_file: str | None, ssh: str | None = None,
                 prog: str = "workbench", **server: Any):
        from workbench.client.engine_client import EngineClient

        self.prog = prog
        self._warned = 0  # how many of the client's warnings are printed
        self._background: queue.SimpleQueue[p.Output] = queue.SimpleQueue()
        self._progress: queue.SimpleQueue[tuple[float, str]] = queue.SimpleQueue()
        self._unsaid: list[tuple[float, str]] = []
        self.client: EngineClient = EngineClient(connection_file, ssh=ssh,
                                                 on_output=self._background.put,
                                                 on_notice=self._on_notice, **server)

    def _on_notice(self, notice: Notice) -> None:
        """The wait for a kernel still starting, as it goes (the client's thread)."""
        if notice.kind == NoticeKind.WAITING:
            self._progress.put((time.monotonic(), notice.message))

    def _warn(self, answered: bool = False) -> None:
        """Print the warnings the client has said since the last call, and what it waits
        for once that has taken ``PROGRESS_AFTER_S`` (a wait that ended by then is not
        worth a line: ``answered``)."""
        said = self.client.attach_warnings
        for text in said[self._warned:]:
            print(f"{self.prog}: warning: {text}", file=sys.stderr)
        self._warned = len(said)
        while not self._progress.empty():
            self._unsaid.append(self._progress.get())
        now = time.monotonic()
        for at, text in self._unsaid:
            if not answered and now - at >= PROGRESS_AFTER_S:
                print(f"{self.prog}: {text}", file=sys.stderr)
        self._unsaid = [] if answered else [
            (at, text) for at, text in self._unsaid if now - at < PROGRESS_AFTER_S]

    def _reply(self, request: p.Request, on_event: Callable[[p.Event], None],
               output: UserOutput | None) -> p.Reply:
        # Callbacks come on the client's thread: hand them to this one, which runs the
        # progress bar and hears Ctrl+C.
        inbox: queue.SimpleQueue[p.Event | p.Reply] = queue.SimpleQueue()
        self.client.request(request, inbox.put, inbox.put)
        try:
            return self._wait(inbox, on_event)
        except KeyboardInterrupt:
            self.client.stop()  # interrupt it there too, then leave
            with suppress(TimeoutError, KeyboardInterrupt):
                self._wait(inbox, on_event, STOP_WAIT_S)
            raise

    def _wait(self, inbox: queue.SimpleQueue[p.Event | p.Reply],
              on_event: Callable[[p.Event], None], timeout: float | None = None) -> p.Reply:
        waited = 0.0
        while timeout is None or waited < timeout:
            self._warn()
            while not self._background.empty():
                on_event(self._background.get())
            try:
                item = inbox.get(timeout=0.1)
            except queue.Empty:
                waited += 0.1
                continue
            if isinstance(item, p.Event):
                on_event(item)
            else:
                self._warn(answered=True)
                return item
        raise TimeoutError

    def close(self) -> None:
        self.client.close()


@contextmanager
def open_engine(args: argparse.Namespace, *, shared_namespace: bool = False) -> Iterator[Engine]:
    """The engine the command line asks for, closed after the command.

    ``shared_namespace``: in-process, the sources of successive ``LoadSource`` requests
    share one namespace (an attached kernel always has its console's).
    """
    existing = getattr(args, "existing", None)
    ssh = getattr(args, "ssh", None)
    if ssh and not existing:
        raise UsageError("--ssh needs --existing FILE (the kernel's connection file)")
    prog = f"workbench {args.command}" if getattr(args, "command", None) else "workbench"
    server = server_options(args, prog)
    engine: Engine = (AttachedEngine(None, None, prog, **server) if server
                      else AttachedEngine(existing, ssh, prog) if existing
                      else LocalEngine({} if shared_namespace else None))
    try:
        yield engine
    finally:
        engine.close()


def server_options(args: argparse.Namespace, prog: str) -> dict[str, Any]:
    """``EngineClient``'s options for ``--server URL`` (empty without it). ``--token`` on
    the command line is visible to every user of the machine: said, once, on stderr."""
    url = getattr(args, "server", None)
    given = {name: getattr(args, name, None) for name in ("token", "kernel_name", "kernel_id")}
    if url is None:
        for name, value in given.items():
            if value is not None:
                raise UsageError(f"--{name.replace('_', '-')} needs --server URL")
        return {}
    if getattr(args, "existing", None):
        raise UsageError("--server and --existing name two different kernels: give one")
    from workbench.client.server import ServerError, server_target

    if given["token"] is not None or "token=" in url.partition("?")[2]:
        where = "--token" if given["token"] is not None else "the URL's ?token="
        print(f"{prog}: warning: a token on the command line ({where}) can be read by other "
              "users of this machine (ps); set JUPYTER_TOKEN in the environment instead",
              file=sys.stderr)
    try:
        target = server_target(url, given["token"])
    except ServerError as exc:
        raise UsageError(str(exc)) from None
    return {"server": target, "kernel_name": given["kernel_name"],
            "kernel_id": given["kernel_id"]}
