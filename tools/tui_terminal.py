"""Drive a TUI in a real terminal (a detached tmux session) and read its process tree's costs.

``Pane`` starts one command in its own tmux session of a fixed size (``TERM=xterm-256color``),
types into it, reads what is on screen (``capture-pane``) and measures the command's process tree
from ``/proc``: CPU seconds (user + system, including reaped children) and the sum of every live
process's peak RSS (``VmHWM``). ``Watch`` attaches a control-mode client that sends keys and sees
the program's output the moment it is written (keystroke echo to the millisecond). Linux only;
needs ``tmux`` on PATH.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces; everything after its closing paren is fixed.
    return raw[raw.rindex(")") + 2 :].split()


def tree(root: int) -> list[int]:
    """``root`` and all its live descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def cpu_seconds(root: int) -> float:
    """CPU time of ``root``'s tree so far: every live process, plus children ``root`` reaped."""
    total = 0.0
    for pid in tree(root):
        fields = _stat(pid)
        if fields is None:
            continue
        # After the paren: state ppid ... utime(11) stime(12) cutime(13) cstime(14), 0-based here.
        used = int(fields[11]) + int(fields[12])
        if pid == root:
            used += int(fields[13]) + int(fields[14])
        total += used / TICKS
    return total


def peak_rss_mib(root: int) -> float:
    """Sum of ``VmHWM`` (each process's peak resident set) over ``root``'s live tree, in MiB."""
    total = 0
    for pid in tree(root):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


class Pane:
    """One command running in a detached tmux session of ``width``×``height`` cells."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, width: int = 120, height: int = 40) -> None:
        self.name = f"bench-{uuid.uuid4().hex[:8]}"
        self.width, self.height = width, height
        # ``env -i``: exactly ``env``. Panes otherwise inherit the tmux server's global environment
        # (whatever shell started the server), e.g. PYTHONDONTWRITEBYTECODE=1, with which every
        # launch compiled pi_cli from source (+0.1 s) where an installed copy has its bytecode.
        command = shlex.join(["env", "-i", *(f"{key}={env[key]}" for key in sorted(env)), *argv])
        self.started = time.perf_counter()
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), "-c", str(cwd),
             "exec " + command],
            check=True,
        )  # fmt: skip
        self.pid = int(self._tmux("display-message", "-p", "-t", self.name, "#{pane_pid}").strip())

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout

    def screen(self) -> str:
        """The visible screen as text (trailing blanks trimmed by tmux)."""
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def screen_ansi(self) -> str:
        """The visible screen with its colours and styles (SGR escape codes), for screenshots."""
        return self._tmux("capture-pane", "-e", "-p", "-t", self.name)

    def alive(self) -> bool:
        return _stat(self.pid) is not None

    def wait_for(self, found: Callable[[str], bool], timeout: float, poll: float = 0.02) -> float:
        """Poll the screen until ``found(screen)``; returns when (``perf_counter``). Raises on timeout."""
        deadline = time.perf_counter() + timeout
        while True:
            now = time.perf_counter()
            if found(self.screen()):
                return now
            if now > deadline or not self.alive():
                tail = "\n".join(self.screen().rstrip().splitlines()[-6:])
                raise TimeoutError(f"{self.name}: screen condition not met after {timeout:.0f} s; screen ends:\n{tail}")
            time.sleep(poll)

    def wait_text(self, text: str, timeout: float) -> float:
        return self.wait_for(lambda screen: text in screen, timeout)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.name, "-l", text)

    def key(self, name: str) -> float:
        """Send one named key (``Enter``, ``C-c``); returns when it was sent."""
        self._tmux("send-keys", "-t", self.name, name)
        return time.perf_counter()

    def close(self) -> None:
        self._tmux("kill-session", "-t", self.name)
        deadline = time.perf_counter() + 5
        while self.alive() and time.perf_counter() < deadline:
            time.sleep(0.02)

    def __enter__(self) -> Pane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_ESCAPED = re.compile(rb"\\([0-7]{3})")


class Watch:
    """A tmux control-mode client on a :class:`Pane`'s session: keys go through it, and the pane's
    output comes back as it is written, time-stamped, so a key's echo is timed without polling
    the screen (``capture-pane`` costs a process per look). Close it before the pane."""

    def __init__(self, pane: Pane) -> None:
        self.pane = pane
        self._proc = subprocess.Popen(["tmux", "-C", "attach-session", "-t", pane.name], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)  # fmt: skip
        self._output: list[tuple[float, bytes]] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, name=f"watch-{pane.name}", daemon=True)
        self._reader.start()
        self._command(f"refresh-client -C {pane.width}x{pane.height}")  # a control client has no size of its own

    def _command(self, line: str) -> float:
        assert self._proc.stdin is not None
        sent = time.perf_counter()
        self._proc.stdin.write(line.encode() + b"\n")
        return sent

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            if line.startswith(b"%output "):
                data = _ESCAPED.sub(lambda m: bytes([int(m.group(1), 8)]), line.split(b" ", 2)[2].rstrip(b"\n"))
                with self._changed:
                    self._output.append((time.perf_counter(), data))
                    self._changed.notify_all()

    def type(self, text: str) -> float:
        """Type ``text`` literally; returns when the command was handed to tmux (``perf_counter``)."""
        return self._command(f"send-keys -t {self.pane.name} -l {shlex.quote(text)}")

    def key(self, name: str) -> float:
        return self._command(f"send-keys -t {self.pane.name} {name}")

    def wait_output(self, needle: bytes, since: float, timeout: float = 5.0) -> float:
        """When output holding ``needle`` was first written after ``since`` (``perf_counter``)."""
        deadline = time.perf_counter() + timeout
        with self._changed:
            while True:
                for stamp, data in self._output:
                    if stamp >= since and needle in data:
                        return stamp
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    raise TimeoutError(f"{self.pane.name}: {needle!r} not echoed within {timeout:.0f} s")
                self._changed.wait(remaining)

    def written_since(self, since: float) -> list[tuple[float, bytes]]:
        """The output written after ``since`` so far, as (``perf_counter`` stamp, bytes)."""
        with self._changed:
            return [(stamp, data) for stamp, data in self._output if stamp >= since]

    def forget(self) -> None:
        """Drop the output seen so far (a long stream would make every wait slower)."""
        with self._changed:
            self._output.clear()

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._reader.join(timeout=2)
