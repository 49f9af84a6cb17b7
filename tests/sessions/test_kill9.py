"""kill -9 at arbitrary moments: the file always loads with every completed entry."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from pi_cli.store.manager import SessionManager

DRIVER = Path(__file__).with_name("kill_driver.py")


def run_and_kill(path: Path, big: int, min_lines: int, extra_delay: float) -> list[str]:
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), str(path), str(big)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert proc.stdout is not None
    done: list[str] = []
    while len(done) < min_lines:
        raw = proc.stdout.readline()
        assert raw, "driver exited early"
        done.append(raw.decode().strip())
    time.sleep(extra_delay)
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate(timeout=10)
    done.extend(line for line in rest.decode().split("\n") if line.strip() and len(line.strip()) == 8)
    return done


def test_kill9_keeps_every_completed_entry(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = tmp_path / "crash.jsonl"
    reported: list[str] = []
    for round_no in range(4):
        # Large tool outputs make it likely that the kill lands inside a write.
        reported += run_and_kill(path, big=rng.choice([10, 200_000]), min_lines=3 + round_no,
                                 extra_delay=rng.uniform(0, 0.05))  # fmt: skip
        sm = SessionManager.open(path)
        ids = {e["id"] for e in sm.get_entries()}
        missing = [i for i in reported if i not in ids]
        assert missing == [], f"round {round_no}: completed entries lost: {missing[:5]}"
        assert len(sm.warnings) <= 1
        assert all("incomplete last line" in w for w in sm.warnings)
        # The chain is intact from the leaf back to the first entry.
        assert len(sm.get_branch()) == len(sm.get_entries())
