"""pi 0.73.1 side by side: the same figures for the reference pi and for pi_cli, with ratios.

Not a registered benchmark (it has no ``run``); ``python tools/bench.py all --reference-pi PATH``
calls :func:`reference_rows`. PATH is an npm install dir (``/tmp/pi-ref`` after
``npm install @mariozechner/pi-coding-agent@0.73.1``), the package dir, its ``dist/cli.js`` or a
``pi`` executable. Both programs run through one harness, in this process's fake server, each with
its own agent dir holding a models.json for the fake provider, ``PI_OFFLINE=1`` and no session
written (``--no-session``):

* ``--version``: wall time of the whole process (median of ``repeat``);
* ``-p`` on a 20,000-token answer (80,000 characters in 4-character SSE deltas): wall and peak RSS;
* ``--mode rpc``: prompt sent → ``agent_end`` read, with every event read off the pipe.

The ratio column is pi's figure divided by pi_cli's (above 1: pi_cli is faster / smaller).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_print import CHARS_PER_TOKEN, answer_turn, make_env, run_child  # noqa: E402
from fake_llm_server import FakeLLMServer  # noqa: E402

Row = tuple[str, str, str, bool]
Command = Callable[..., list[str]]
TOKENS = 20_000


def reference_command(path: str) -> list[str]:
    """The argv prefix that starts the reference pi found at ``path``."""
    p = Path(path).expanduser().resolve()
    candidates = [
        p,
        p / "node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
        p / "dist/cli.js",
        p / "node_modules/.bin/pi",
    ]
    for candidate in candidates:
        if candidate.is_file():
            if candidate.suffix == ".js":
                node = shutil.which("node")
                if node is None:
                    raise RuntimeError("node is not on PATH")
                return [node, str(candidate)]
            return [str(candidate)]
    raise RuntimeError(f"no pi found at {path} (tried dist/cli.js and node_modules/.bin/pi)")


def _ours() -> list[str]:
    return [sys.executable, "-m", "pi_cli"]


def _model_args(*args: str) -> list[str]:
    return ["--model", "fake/fake-model", "--no-session", *args]


def _version_wall(prefix: list[str], env: dict[str, str], cwd: Path, repeat: int) -> float:
    run_child([*prefix, "--version"], env, cwd)  # warm caches
    return statistics.median(run_child([*prefix, "--version"], env, cwd)[0] for _ in range(repeat))


def _print_run(
    prefix: list[str], env: dict[str, str], cwd: Path, server: FakeLLMServer, repeat: int
) -> tuple[float, float]:
    server.add_turns([{"text": "warm-up"}])
    run_child([*prefix, *_model_args("-p", "warm up")], env, cwd)
    walls: list[float] = []
    peaks: list[float] = []
    for _ in range(repeat):
        server.add_turns([answer_turn(TOKENS)])
        wall, peak, out = run_child([*prefix, *_model_args("-p", "write a long answer")], env, cwd)
        if len(out.strip()) != TOKENS * CHARS_PER_TOKEN:
            raise RuntimeError(f"{prefix[-1]}: unexpected answer length {len(out.strip())}")
        walls.append(wall)
        peaks.append(peak)
    return statistics.median(walls), max(peaks)


class _Lines:
    """JSON lines off a child's stdout, read in big raw chunks.

    pi 0.73.1 writes every ``message_update`` with the whole growing partial (about 3 GB for a
    20k-token answer); a reader that falls behind makes node's stdout writev fail with ENOBUFS and
    pi die. So reads are large ``os.read`` calls and update lines are skipped unparsed.
    """

    def __init__(self, proc: subprocess.Popen[bytes], fd: int | None = None) -> None:
        """Read ``proc``'s stdout pipe, or follow ``fd`` (a file the child writes its stdout to)."""
        self.proc = proc
        self.follow = fd is not None
        if fd is None:
            assert proc.stdout is not None
            fd = proc.stdout.fileno()
        self.fd = fd
        self.pending = b""
        self.ready: list[bytes] = []

    def next(self) -> bytes:
        while not self.ready:
            chunk = os.read(self.fd, 1 << 22)
            if not chunk and self.follow and self.proc.poll() is None:
                time.sleep(0.002)  # a file at its current end: the child is still writing
                continue
            if not chunk:
                raise RuntimeError("the rpc process exited early")
            lines = (self.pending + chunk).split(b"\n")
            self.pending = lines.pop()
            self.ready = [
                line for line in lines if line.startswith(b"{") and not line.startswith(b'{"type":"message_update"')
            ]
            self.ready.reverse()
        return self.ready.pop()

    def until(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            obj: dict[str, Any] = json.loads(self.next())
            if predicate(obj):
                return obj


def _stderr_sink() -> Any:
    """Where the rpc child's stderr goes: a file named by BENCH_RPC_STDERR (debugging), else nowhere."""
    target = os.environ.get("BENCH_RPC_STDERR")
    return open(target, "ab") if target else subprocess.DEVNULL


def _rpc_run(
    prefix: list[str], env: dict[str, str], cwd: Path, server: FakeLLMServer, repeat: int, to_file: bool = False
) -> float:
    """Seconds from sending a prompt to reading its ``agent_end`` (median of ``repeat``).

    ``to_file``: the child's stdout is a regular file that is followed as it grows (pi 0.73.1 dies
    with ENOBUFS writing ~3 GB of updates into a pipe on this machine; a file never refuses).
    """
    out_path = cwd / f"rpc-out-{time.monotonic_ns()}.jsonl"
    sink = open(out_path, "wb") if to_file else subprocess.PIPE  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [*prefix, *_model_args("--mode", "rpc")],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=sink,
        stderr=_stderr_sink(),
    )
    assert proc.stdin is not None
    reader_fd = os.open(out_path, os.O_RDONLY) if to_file else None
    lines = _Lines(proc, reader_fd)
    times: list[float] = []
    try:
        proc.stdin.write(b'{"type":"get_state","id":"warm"}\n')
        proc.stdin.flush()
        lines.until(lambda o: o.get("id") == "warm")
        for index in range(repeat):
            server.add_turns([answer_turn(TOKENS)])
            start = time.perf_counter()
            proc.stdin.write(json.dumps({"type": "prompt", "id": f"p{index}", "message": "long"}).encode() + b"\n")
            proc.stdin.flush()
            end = lines.until(lambda o: o.get("type") == "agent_end")
            times.append(time.perf_counter() - start)
            text = "".join(b.get("text", "") for b in end["messages"][-1]["content"] if b.get("type") == "text")
            if len(text) != TOKENS * CHARS_PER_TOKEN:
                raise RuntimeError(f"rpc: unexpected answer length {len(text)}")
            proc.stdin.write(b'{"type":"new_session","id":"n"}\n')
            proc.stdin.flush()
            lines.until(lambda o: o.get("id") == "n")
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if reader_fd is not None:
            os.close(reader_fd)
        if not isinstance(sink, int):
            sink.close()
        out_path.unlink(missing_ok=True)
    return statistics.median(times)


def _failure(exc: Exception, stderr_tail: str = "") -> str:
    detail = stderr_tail or f"{type(exc).__name__}: {exc}"
    return f"failed ({detail[:60]})"


def _node_error(path: Path) -> str:
    """The error code of a crashed node process's stderr (e.g. ``ENOBUFS``), if any."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    for line in reversed(text.splitlines()):
        if "code:" in line:
            return line.split("code:", 1)[1].strip().strip("',") + " in stdout write"
    return ""


def measure(prefix: list[str], repeat: int = 3, rpc_repeat: int = 1) -> dict[str, float | str]:
    """All figures for the program started by ``prefix``; a figure that fails reads ``failed (...)``."""
    out: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ref-") as tmp, FakeLLMServer([]) as server:
        root = Path(tmp)
        env = make_env(root, server)
        try:
            out["version_s"] = _version_wall(prefix, env, root, repeat)
        except Exception as exc:
            out["version_s"] = _failure(exc)
        try:
            out["print_s"], out["print_mib"] = _print_run(prefix, env, root, server, repeat)
        except Exception as exc:
            out["print_s"] = out["print_mib"] = _failure(exc)
        stderr_path = root / "rpc-stderr.txt"
        env = {**env, "BENCH_RPC_STDERR": str(stderr_path)}
        os.environ["BENCH_RPC_STDERR"] = str(stderr_path)
        try:
            out["rpc_s"] = _rpc_run(prefix, env, root, server, rpc_repeat)
        except Exception as exc:
            reason = _node_error(stderr_path) or f"{type(exc).__name__}: {exc}"
            try:  # the same run with stdout to a file, so that the figure exists at all
                out["rpc_s"] = _rpc_run(prefix, env, root, server, rpc_repeat, to_file=True)
                out["rpc_note"] = f"stdout to a file; into a pipe it died: {reason[:40]}"
            except Exception as again:
                out["rpc_s"] = _failure(again, reason)
        finally:
            os.environ.pop("BENCH_RPC_STDERR", None)
    return out


def _cell(value: float | str, fmt: str) -> str:
    return fmt.format(value) if isinstance(value, float) else value


def _ratio(theirs: float | str, ours: float | str) -> str:
    if isinstance(theirs, float) and isinstance(ours, float) and ours > 0:
        return f"{theirs / ours:.1f}x"
    return "-"


def reference_rows(path: str, repeat: int = 3) -> list[tuple[str, str, str, str]]:
    """(figure, pi_cli, pi 0.73.1, ratio pi/pi_cli) rows."""
    reference = reference_command(path)
    ours = measure(_ours(), repeat)
    theirs = measure(reference, repeat)
    figures = [
        ("--version, wall", "version_s", "{:.3f} s"),
        ("-p 20k tokens, wall", "print_s", "{:.3f} s"),
        ("-p 20k tokens, peak RSS", "print_mib", "{:.0f} MiB"),
        ("rpc 20k tokens, all events", "rpc_s", "{:.3f} s"),
    ]
    rows = [
        (label, _cell(ours[key], fmt), _cell(theirs[key], fmt), _ratio(theirs[key], ours[key]))
        for label, key, fmt in figures
    ]
    notes = [f"{who}: {side['rpc_note']}" for who, side in (("pi_cli", ours), ("pi", theirs)) if "rpc_note" in side]
    if notes:
        rows.append(("  rpc note", "", "; ".join(str(n) for n in notes), ""))
    return rows


def print_reference_table(rows: list[tuple[str, str, str, str]]) -> None:
    header = ("figure", "pi_cli", "pi 0.73.1", "pi / pi_cli")
    table = [header, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    for position, row in enumerate(table):
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if position == 0:
            print("  ".join("-" * w for w in widths))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python tools/bench_reference.py PATH-TO-PI", file=sys.stderr)
        return 2
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print_reference_table(reference_rows(args[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
