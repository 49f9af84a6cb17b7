"""Subprocess for the kill -9 tests: appends a realistic transcript forever, reporting each entry
id on stdout only after ``append_*`` has returned (i.e. after the write was flushed)."""

from __future__ import annotations

import sys

from pi_cli.store.manager import SessionManager


def main() -> None:
    path, big = sys.argv[1], int(sys.argv[2])
    sm = SessionManager.open(path, cwd_override="/proj")
    out = sys.stdout
    turn = 0
    while True:
        turn += 1
        ids = [sm.append_message({"role": "user", "content": [{"type": "text", "text": f"turn {turn}"}],
                                  "timestamp": turn})]  # fmt: skip
        ids.append(sm.append_message({
            "role": "assistant",
            "content": [{"type": "toolCall", "id": f"c{turn}", "name": "bash", "arguments": {"command": "ls"}}],
            "api": "x", "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": turn,
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        }))  # fmt: skip
        ids.append(sm.append_message({"role": "toolResult", "toolCallId": f"c{turn}", "toolName": "bash",
                                      "content": [{"type": "text", "text": "o" * big}], "isError": False,
                                      "timestamp": turn}))  # fmt: skip
        for entry_id in ids:
            out.write(entry_id + "\n")
        out.flush()


if __name__ == "__main__":
    main()
