"""Bad command lines and configuration: one line on stderr naming the fix, exit 1, no traceback."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from .pi_harness import PiEnv


def _one_line_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0]


def test_version_and_help(pi: PiEnv) -> None:
    from pi_cli import __version__

    version = pi.run("--version", model=False)
    assert version.returncode == 0 and version.stdout.strip() == __version__
    helped = pi.run("--help", model=False)
    assert helped.returncode == 0
    for flag in ("--model", "--mode", "--no-session", "--list-models", "--append-system-prompt", "--fork"):
        assert flag in helped.stdout


def test_unknown_option(pi: PiEnv) -> None:
    _one_line_error(pi.run("--bogus", "hi", model=False), "Unknown option: --bogus", "--help")
    _one_line_error(pi.run("-x", model=False), "Unknown option: -x")


def test_unknown_model_and_provider(pi: PiEnv) -> None:
    _one_line_error(pi.run("-p", "--model", "definitely-not-a-model-xyz", "hi", model=False), "--list-models")
    _one_line_error(pi.run("-p", "--provider", "nope", "--model", "x", "hi", model=False), 'Unknown provider "nope"')


def test_unknown_id_on_known_provider_is_used_as_custom_id(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "ok"}])
    result = pi.run("-p", "--model", "fake/zz-custom", "hi", model=False)
    assert result.returncode == 0, result.stderr
    assert 'Model "zz-custom" not found for provider "fake". Using custom model id.' in result.stderr
    assert pi.bodies()[0]["model"] == "zz-custom"


def test_missing_api_key_names_the_variable(pi: PiEnv) -> None:
    result = pi.run("-p", "--model", "anthropic/claude-opus-4-7", "hi", model=False)
    _one_line_error(result, "anthropic", "ANTHROPIC_API_KEY")


def test_api_key_without_model(pi: PiEnv) -> None:
    _one_line_error(pi.run("-p", "--api-key", "k", "hi", model=False), "--api-key")


def test_missing_file_argument(pi: PiEnv) -> None:
    _one_line_error(pi.run("-p", "@nope.txt", "hi"), "File not found", str(pi.cwd / "nope.txt"))


def test_file_args_rejected_in_rpc_mode(pi: PiEnv) -> None:
    (pi.cwd / "a.txt").write_text("x")
    _one_line_error(pi.run("--mode", "rpc", "@a.txt"), "@file arguments are not supported in RPC mode")


def test_session_not_found_and_fork_conflict(pi: PiEnv) -> None:
    _one_line_error(pi.run("-p", "--session", "abcdef123", "hi"), "No session found matching 'abcdef123'")
    _one_line_error(pi.run("-p", "--fork", "abc", "-c", "hi"), "--fork", "--continue")


def test_bad_settings_file_is_a_warning_not_a_failure(pi: PiEnv) -> None:
    (pi.agent_dir / "settings.json").write_text("{not json")
    pi.server.add_turns([{"text": "still works"}])
    result = pi.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "still works\n"
    assert "settings.json" in result.stderr


def test_invalid_thinking_level_warns(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "ok"}])
    result = pi.run("-p", "--thinking", "huge", "hi")
    assert result.returncode == 0
    assert 'Invalid thinking level "huge"' in result.stderr


def test_list_models(pi: PiEnv) -> None:
    result = pi.run("--list-models", "fake", model=False)
    assert result.returncode == 0, result.stderr
    assert "fake-model" in result.stdout and "provider" in result.stdout


def test_demo_model_when_nothing_is_configured(tmp_path: Path) -> None:
    env = PiEnv(tmp_path, None)
    result = env.run("-p", "hello", model=False)
    assert result.returncode == 0, result.stderr
    assert "demo" in result.stdout.lower()
    assert "API key" in result.stderr and "models.json" in result.stderr


def test_sigterm_during_a_run_exits_143(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "x" * 200, "chunk_size": 1, "delay_chunk": 0.05}])
    proc = pi.popen("-p", "hi")
    assert proc.stdin is not None
    proc.stdin.close()  # print mode reads piped stdin to EOF first, as pi does
    deadline = time.monotonic() + 10
    while not pi.server.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pi.server.requests, "request never arrived"
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert code == 143


@pytest.mark.parametrize("flag", ["-c", "--no-session", "--session-dir"])
def test_session_flags_are_accepted(pi: PiEnv, flag: str) -> None:
    pi.server.add_turns([{"text": "ok"}])
    args = [flag, str(pi.root / "sessions")] if flag == "--session-dir" else [flag]
    result = pi.run("-p", *args, "hi")
    assert result.returncode == 0, result.stderr
    if flag == "--session-dir":
        assert list((pi.root / "sessions").glob("*.jsonl"))
