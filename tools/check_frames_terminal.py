"""``python tools/check_frames_terminal.py [--seeds N]``: the terminal shows what a full repaint
would, after frames written through the compositor's record of the screen.

The TUI writes only what the terminal does not show yet, scrolling a moved band instead of
rewriting it (``pi_cli/modes/interactive/widgets/shown_rows.py``); a mistake there leaves stale
cells that no test of the headless app can see. This runs pi_cli in tmux (120x40) against the
fake LLM server and, per seed, streams a long answer at ~1,000 tokens/s while keys land at random
moments (typing, Backspace, Page Up/Down), then pages, opens a dialog (Ctrl-L) and the slash
completion, and aborts a second answer. After each step, once the screen is quiet, it compares
``capture-pane -e`` (cells with their colours) with the screen after a forced full repaint (the
window resized away and back). Prints one line per check and exits 1 on a difference, with the
rows that differ. Needs tmux; a developer's check, not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import tui_workloads as work  # noqa: E402
from fake_llm_server import FakeLLMServer  # noqa: E402
from tui_terminal import Pane  # noqa: E402


def same_after_full_repaint(pane: Pane, label: str) -> bool:
    """Whether the quiet screen equals itself after a forced full repaint; prints the verdict."""
    time.sleep(0.4)
    before = pane.screen_ansi()
    pane._tmux("resize-window", "-t", pane.name, "-x", "100", "-y", "40")
    time.sleep(0.4)
    pane._tmux("resize-window", "-t", pane.name, "-x", "120", "-y", "40")
    time.sleep(0.6)
    after = pane.screen_ansi()
    print(f"  {label}: {'same' if before == after else 'DIFFERENT'}")
    for row, (shown, repainted) in enumerate(zip(before.splitlines(), after.splitlines(), strict=False)):
        if shown != repainted:
            print(f"    row {row}\n      shown:     {shown[:160]!r}\n      repainted: {repainted[:160]!r}")
    return before == after


def run_seed(server: FakeLLMServer, seed: int) -> bool:
    rng = random.Random(seed)
    home = Path(tempfile.mkdtemp(prefix="pi-frames-"))
    agent, cwd = home / "agent", home / "proj"
    agent.mkdir()
    cwd.mkdir()
    provider = {"baseUrl": server.openai_base_url, "api": "openai-completions", "apiKey": "sk-fake",
                "models": [{"id": "fake-model"}]}  # fmt: skip
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    first = work.prose(24_000) + "\n\n" + work.code(4_000)
    server.add_turns([work.turn(first, rate=1000.0), work.turn(work.prose(3_000), rate=600.0)])
    env = {"TERM": "xterm-256color", "HOME": str(home), "PI_CODING_AGENT_DIR": str(agent), "PI_OFFLINE": "1",
           "PATH": os.environ["PATH"], "LANG": "C.UTF-8", "PYTHONPATH": str(HERE.parent)}  # fmt: skip
    argv = [sys.executable, "-m", "pi_cli", "--model", "fake/fake-model", "--no-session"]
    good = True
    with Pane(argv, env, cwd) as pane:
        pane.wait_text("fake-model", 30)
        pane.type("go")
        pane.key("Enter")
        pane.wait_text("The agent reads", 30)
        until = time.monotonic() + 5
        while time.monotonic() < until:
            time.sleep(rng.uniform(0.05, 0.4))
            action = rng.choice(["type", "BSpace", "PageUp", "PageDown", None])
            if action == "type":
                pane.type(rng.choice("abcxyz"))
            elif action is not None:
                pane.key(action)
        time.sleep(8)  # the rest of the answer
        good &= same_after_full_repaint(pane, "after the first answer")
        for n in range(3):
            pane.key(rng.choice(["PageUp", "PageDown", "PageUp"]))
            good &= same_after_full_repaint(pane, f"after paging ({n + 1})")
        pane.key("C-l")
        time.sleep(0.6)
        pane.key("Escape")
        good &= same_after_full_repaint(pane, "after a dialog")
        pane.type("/mo")
        time.sleep(0.4)
        pane.key("Escape")
        for _ in range(3):
            pane.key("BSpace")
        good &= same_after_full_repaint(pane, "after the slash completion")
        pane.key("End")
        pane.type("again")
        pane.key("Enter")
        time.sleep(rng.uniform(0.5, 3.0))
        pane.key("Escape")
        time.sleep(1)
        good &= same_after_full_repaint(pane, "after an aborted answer")
    return good


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="runs, each with its own random keys")
    args = parser.parse_args()
    server = FakeLLMServer().start_in_thread()
    try:
        results = []
        for seed in range(1, args.seeds + 1):
            print(f"seed {seed}")
            results.append(run_seed(server, seed))
    finally:
        server.stop_thread()
    print("all same" if all(results) else "DIFFERENCES FOUND")
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
