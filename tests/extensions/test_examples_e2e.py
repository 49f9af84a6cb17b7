"""The new examples through the real CLI in print mode (``pi -p -e example:NAME``): what the model
receives when a path is protected, and that UI-only calls (statuses, shortcuts) are harmless there."""

from __future__ import annotations

from cli.pi_harness import PiEnv

from extensions.test_print_e2e import tool_result_text, tool_turns, write


def test_protected_paths_reason_reaches_the_model(pi: PiEnv) -> None:
    (pi.cwd / ".env").write_text("TOKEN=keep\n")
    tool_turns(pi, "bash", {"command": "echo TOKEN=leak > .env"})
    done = pi.run("-p", "-e", "example:protected_paths", "go")
    assert done.returncode == 0, done.stderr
    assert (pi.cwd / ".env").read_text() == "TOKEN=keep\n"
    assert "Path '.env' is protected by the protected_paths extension" in tool_result_text(pi)


def test_stats_and_shortcuts_in_print_mode(pi: PiEnv) -> None:
    assert pi.server is not None
    pi.server.add_turns([{"text": "hello there"}])
    keys = write(pi.root / "keys.py", "def register(pi):\n    pi.register_shortcut('ctrl+k', lambda ctx: None)\n")
    done = pi.run("-p", "-e", "example:stats", "-e", str(keys), "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello there"
    assert "shortcut" not in done.stderr.lower()  # no keyboard: nothing bound, nothing reported
    slash = pi.run("-p", "-e", "example:stats", "/stats")
    assert slash.returncode == 0
    assert "Session stats: 0 turns, 0 prompts" in slash.stderr  # notify → stderr without a UI
