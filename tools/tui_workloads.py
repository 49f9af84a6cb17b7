"""What ``tools/bench_tui.py`` feeds the TUIs: streamed answers and a huge session file.

Every answer ends with a paragraph holding ``END_MARK`` so the benchmark can tell from the screen
(tmux ``capture-pane``) that the last of it is painted. Pure functions; no pi_cli imports, so the
same data drives pi 1.6.0 and pi_cli.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

END_MARK = "END-OF-ANSWER-7Q"
LAST_ENTRY_MARK = "LAST-ENTRY-MARK-7Q"
CHARS_PER_TOKEN = 4

_PROSE = (
    "The agent reads the repository layout, then opens `pyproject.toml` and the test suite. It notes "
    "that the event pump merges deltas per frame, so the cost of a frame depends on what arrived "
    "since the last one and not on the length of the answer. **Finished paragraphs** stay frozen.\n\n"
)
_CODE_LINE = "    total = compute_total(items, tax_rate=0.2, discount=None)  # line {n}\n"
_NO_BLANK_LINE = (
    "Line {n} of a long answer that never leaves a blank line, as models write logs or numbered notes, "
    "each ending here.\n"
)


def _fill(unit: str, chars: int) -> str:
    return unit * max(1, chars // len(unit))


def prose(chars: int) -> str:
    """Markdown paragraphs separated by blank lines, about ``chars`` long."""
    return _fill(_PROSE, chars) + END_MARK + "\n"


def code(chars: int) -> str:
    """One fenced Python block of about ``chars`` characters (never closed before the end)."""
    lines: list[str] = []
    size = 0
    while size < chars:
        line = _CODE_LINE.format(n=len(lines))
        lines.append(line)
        size += len(line)
    return "Here is the code:\n\n```python\ndef main():\n" + "".join(lines) + "```\n\n" + END_MARK + "\n"


def markdown_100k(chars: int = 100_000) -> str:
    """Sections with headings, lists, inline code, tables and code blocks, about ``chars`` long."""
    parts: list[str] = []
    size = 0
    n = 0
    while size < chars:
        section = (
            f"## Section {n}: the module `pkg/mod_{n}.py`\n\n"
            f"The module **{n}** parses input and calls `run()`. It keeps *state* in a dict and "
            "returns a list of results, one per line of input. Errors name the file and line.\n\n"
            f"- item one of section {n}, with `inline code`\n- item two, **bold**\n"
            "  - a nested item that explains a detail at some length so it wraps\n- item three\n\n"
            "| name | value | note |\n|---|---|---|\n"
            f"| alpha | {n} | first |\n| beta | {n + 1} | second |\n\n"
            f"```python\ndef handler_{n}(event):\n    if event.kind == 'x':\n"
            f"        return process(event.payload, retries={n})\n    return None\n```\n\n"
            "> A quoted remark about the design, long enough to wrap on a narrow terminal window.\n\n"
        )
        parts.append(section)
        size += len(section)
        n += 1
    return "".join(parts) + END_MARK + "\n"


def no_blank(tokens: int) -> str:
    """``tokens`` tokens of lines with no blank line anywhere (one giant block)."""
    lines: list[str] = []
    size = 0
    target = tokens * CHARS_PER_TOKEN
    while size < target:
        line = _NO_BLANK_LINE.format(n=len(lines))
        lines.append(line)
        size += len(line)
    return "".join(lines) + END_MARK + "\n"


def turn(text: str, rate: float = 0.0, chunk: int = CHARS_PER_TOKEN, delay_first: float = 0.0) -> dict[str, Any]:
    """A fake-server turn streaming ``text`` in ``chunk``-char deltas (``rate``: deltas/s, 0 = burst)."""
    out: dict[str, Any] = {"text": text, "chunk_size": chunk}
    if rate:
        out["rate"] = rate
    if delay_first:
        out["delay_first"] = delay_first
    return out


def session_dir(agent_dir: Path, cwd: str) -> Path:
    """pi's folder for sessions of ``cwd``: leading separator dropped, ``/\\:`` turned into ``-``."""
    name = cwd.lstrip("/\\")
    for ch in "/\\:":
        name = name.replace(ch, "-")
    return agent_dir / "sessions" / f"--{name}--"


def write_session(agent_dir: Path, cwd: str, entries: int = 20_000, compact_every: int = 0) -> Path:
    """A pi v3 session of ``entries`` entries (~2.9 KB each: ~57 MB at 20,000) under ``agent_dir``.

    Turns of four entries: user → assistant tool call → ~10 KB tool result → assistant text; with
    ``compact_every``, a compaction entry every that many entries (keeping the previous turn). The
    default has none, as issue #15's measurements: the whole file is the context. The last
    assistant text holds ``LAST_ENTRY_MARK``.
    """
    folder = session_dir(agent_dir, cwd)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"2026-12-01T00-00-00-000Z_{uuid.uuid4()}.jsonl"
    output = "\n".join(f"line {i}: some tool output naming src/module_{i}.py and a value {i * 7}" for i in range(152))
    usage = {"input": 1000, "output": 50, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1050,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}  # fmt: skip
    counter = 0
    parent: str | None = None
    last_turn_start: str | None = None

    def entry(kind: str, **fields: Any) -> str:
        nonlocal counter, parent
        counter += 1
        eid = f"{counter:08x}"
        ts = f"2026-12-01T{(counter // 3600) % 24:02d}:{(counter // 60) % 60:02d}:{counter % 60:02d}.000Z"
        line = json.dumps({"type": kind, "id": eid, "parentId": parent, "timestamp": ts, **fields})
        parent = eid
        return line

    with path.open("w") as out:
        out.write(json.dumps({"type": "session", "version": 3, "id": str(uuid.uuid4()),
                              "timestamp": "2026-12-01T00:00:00.000Z", "cwd": cwd}) + "\n")  # fmt: skip
        out.write(entry("model_change", provider="fake", modelId="fake-model") + "\n")
        n = 0
        while counter < entries:
            if compact_every and counter and counter % compact_every < 4 and last_turn_start is not None:
                out.write(entry("compaction", summary=f"Summary of turns up to {n}: modules checked, all fine.",
                                firstKeptEntryId=last_turn_start, tokensBefore=150_000) + "\n")  # fmt: skip
            base = {"api": "openai-completions", "provider": "fake", "model": "fake-model", "usage": usage,
                    "timestamp": 1_764_547_200_000 + counter}  # fmt: skip
            user = {"role": "user", "content": [{"type": "text", "text": f"Please check module {n}"}],
                    "timestamp": base["timestamp"]}  # fmt: skip
            out.write(entry("message", message=user) + "\n")
            last_turn_start = f"{counter:08x}"
            call = {"type": "toolCall", "id": f"call_{n}", "name": "bash", "arguments": {"command": f"cat m{n}.py"}}
            msg = {**base, "role": "assistant", "content": [call], "stopReason": "toolUse"}
            out.write(entry("message", message=msg) + "\n")
            result = {"role": "toolResult", "toolCallId": f"call_{n}", "toolName": "bash", "isError": False,
                      "content": [{"type": "text", "text": output}], "timestamp": base["timestamp"]}  # fmt: skip
            out.write(entry("message", message=result) + "\n")
            last = counter + 1 >= entries
            text = f"Module {n} looks fine. " * 8 + (LAST_ENTRY_MARK if last else "")
            msg = {**base, "role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"}
            out.write(entry("message", message=msg) + "\n")
            n += 1
    return path
