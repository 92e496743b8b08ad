"""The engine's lifecycle states and the notices the user reads: plain data shared by the client
(which reports them) and the window (which shows them; it compares states as strings)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class State(enum.StrEnum):
    """Where the engine is in its lifecycle: starting -> idle <-> busy, and the ways out."""

    STARTING = "starting"
    IDLE = "idle"
    BUSY = "busy"
    INTERRUPTING = "interrupting"
    RESTARTING = "restarting"
    UNRESPONSIVE = "unresponsive"
    DEAD = "dead"


class NoticeKind(enum.StrEnum):
    """What a notice reports; the window routes notices by kind, never by their text."""

    CRASHED = "crashed"
    RESTARTED = "restarted"
    STOPPED = "stopped"
    STOP_FAILED = "stop-failed"
    RELOAD_FAILED = "reload-failed"
    UNRESPONSIVE = "unresponsive"
    RESPONDING = "responding"
    DEAD = "dead"
    WARNING = "warning"
    WAITING = "waiting"


NOTICE_KINDS = tuple(NoticeKind)
"""Every ``Notice.kind`` the client reports."""


@dataclass(frozen=True)
class Notice:
    """Something the user should read: ``kind`` is crashed, restarted, stopped, stop-failed,
    reload-failed, unresponsive, responding, dead, warning (how an attached kernel is
    reached is unsafe: shown, nothing more) or waiting (for an attached kernel that may still
    be starting: progress); ``fault`` holds the engine's last words
    (faulthandler output). ``offer_restart``: Stop could not stop an attached kernel, and
    ``restart()`` would (the user must choose it: its names are lost)."""

    kind: NoticeKind
    message: str
    fault: str = ""
    offer_restart: bool = False
    reloaded: bool = False
    """A restart that loaded the editor's source again: its definitions are back."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", NoticeKind(self.kind))  # a plain string is checked
