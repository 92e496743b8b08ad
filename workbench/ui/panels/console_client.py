"""qtconsole's kernel client, with a loop thread that stops when told, not at its next second.

jupyter_client's ``IOLoopThread`` runs ``while not exiting: await asyncio.sleep(1)``, and
``stop_channels()`` joins it: the GUI thread was held up to a second (0.7 s measured) every
time the console changed kernel (each engine restart) and when the window closed. This
thread waits on an event that ``stop()`` sets through the loop (thread-safe), so the join
returns as soon as the loop has run the callback.
"""

from __future__ import annotations

import asyncio

from jupyter_client.client import KernelClient
from jupyter_client.threaded import IOLoopThread, ThreadedKernelClient
from qtconsole.client import QtKernelClient


class WakeableLoopThread(IOLoopThread):
    """An ``IOLoopThread`` that ends when ``stop()`` is called."""

    def __init__(self) -> None:
        super().__init__()
        self._stop_event = asyncio.Event()  # bound to the thread's loop at its first wait

    async def _async_run(self) -> None:
        await self._stop_event.wait()

    def stop(self) -> None:
        if self.ioloop is not None and self.is_alive():
            self.ioloop.add_callback(self._stop_event.set)  # tornado: safe from any thread
        super().stop()


class _WakeableThreadedClient(ThreadedKernelClient):
    def start_channels(self, shell: bool = True, iopub: bool = True, stdin: bool = True,
                       hb: bool = True, control: bool = True) -> None:
        # ThreadedKernelClient.start_channels, with the thread above in place of its own.
        self.ioloop_thread = WakeableLoopThread()
        self.ioloop_thread.start()
        if shell:
            self.shell_channel._inspect = self._check_kernel_info_reply
        KernelClient.start_channels(self, shell, iopub, stdin, hb, control)


class ConsoleKernelClient(QtKernelClient, _WakeableThreadedClient):
    """``qtconsole.client.QtKernelClient`` whose channels stop at once: in the MRO,
    ``_WakeableThreadedClient`` comes right before ``ThreadedKernelClient``, so qtconsole's
    ``start_channels`` reaches the thread above."""
