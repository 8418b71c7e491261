"""The result-folder lock: one writer per folder at a time.

An advisory ``fcntl.flock`` on ``DIR/.lgbench.lock``, held for a whole ``lgbench run`` (and by each
study of ``lgbench reproduce``). The holder writes its pid, host and start time into the file, so a
second writer fails at once with one line naming it, or waits with ``--wait``. The kernel releases
the lock when the holder exits, however it exits; the file itself stays. Readers (check, plot, report)
do not take the lock; ``folder_in_use`` tells them that a last line cut short is a row being written.
"""
from __future__ import annotations

import datetime
import fcntl
import os
import socket
from collections.abc import Callable
from pathlib import Path

from lgbench.exceptions import InputError

LOCK_FILE = ".lgbench.lock"


class FolderBusy(InputError):
    """Another process holds the folder's lock."""


class FolderLock:
    """``with FolderLock(directory): ...`` holds the lock of ``directory`` (created if needed)."""

    def __init__(self, directory: str | Path, wait: bool = False, say: Callable[[str], object] | None = None):
        self.directory = Path(directory)
        self.path = self.directory / LOCK_FILE
        self.wait = wait
        self.say = say
        self._handle = None

    def __enter__(self) -> FolderLock:
        self.directory.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self._holder(handle)
            if not self.wait:
                handle.close()
                raise FolderBusy(f"in use by another lgbench process ({holder}); wait for it to finish "
                                 "or run again with --wait", file=str(self.directory)) from None
            if self.say:
                self.say(f"waiting for {self.directory}: in use by {holder}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        handle.write(f"pid {os.getpid()} on host {socket.gethostname()} since {started}\n")
        handle.flush()
        self._handle = handle
        return self

    @staticmethod
    def _holder(handle) -> str:
        handle.seek(0)
        text = handle.read(200).strip()
        return text.splitlines()[0] if text else "holder unknown"

    def __exit__(self, *exc) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def folder_in_use(directory: str | Path) -> bool:
    """True while a writer holds the lock of ``directory`` (in this process or another); a probe that
    never waits and never creates the lock file."""
    path = Path(directory) / LOCK_FILE
    try:
        handle = open(path, encoding="utf-8")
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False
