"""Checkpoint figures on a generated 10,000-file project (issue 18: no-change checkpoint ≤ 50 ms).

    python tools/bench_checkpoints.py [--files 10000] [--runs 15]

Prints the median wall time of: a first snapshot (fresh store, everything hashed), a checkpoint
with nothing changed (the case every user message and tool batch pays), a checkpoint after one
file changed, and a diff against the first checkpoint. Scratch dirs are removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pi_cli.checkpoints import CheckpointStore


def make_project(root: Path, files: int) -> None:
    """``files`` small text files, 100 per directory, two levels deep, plus a .gitignore."""
    (root / ".gitignore").write_text("*.log\nnode_modules/\n")
    for i in range(files):
        folder = root / f"pkg{i // 1000:02d}" / f"mod{(i // 100) % 10:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file{i:05d}.py").write_text(f"# file {i}\nVALUE = {i}\n" + "x = 1\n" * (i % 40))


async def timed(step: object) -> float:
    start = time.perf_counter()
    await step  # type: ignore[misc]
    return (time.perf_counter() - start) * 1000


async def run(files: int, runs: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-checkpoints-"))
    try:
        project = scratch / "proj"
        project.mkdir()
        make_project(project, files)
        first: list[float] = []
        for n in range(min(runs, 3)):
            store = CheckpointStore(project, scratch / f"agent{n}")
            first.append(await timed(store.snapshot("first")))
        store = CheckpointStore(project, scratch / "agent0")
        base = await store.snapshot("warm")  # settles git's racy-timestamp window
        assert base is not None, store.notice
        unchanged = [await timed(store.snapshot("unchanged")) for _ in range(runs)]
        one_change = []
        target = project / "pkg00" / "mod00" / "file00000.py"
        for n in range(runs):
            target.write_text(f"# edit {n}\n")
            one_change.append(await timed(store.snapshot("edit")))
        diff = [await timed(store.diff(base)) for _ in range(runs)]
        print(f"checkpoints, {files:,}-file project, medians (ms); runs={runs}; load {os.getloadavg()[0]:.1f}")
        print(f"  first snapshot      {statistics.median(first):8.1f}")
        print(f"  no-change snapshot  {statistics.median(unchanged):8.1f}   (target <= 50; min {min(unchanged):.1f})")
        print(f"  one file changed    {statistics.median(one_change):8.1f}")
        print(f"  diff vs first       {statistics.median(diff):8.1f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    asyncio.run(run(args.files, args.runs))


if __name__ == "__main__":
    main()
