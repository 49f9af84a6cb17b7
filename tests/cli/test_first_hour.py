"""Issue 33's headless trips, each as a newcomer met it: a typo in models.json must not pass for a
demo answer, retries are visible on stderr, MCP leaves no asyncio noise, help answers for every
command, and ``run git status`` works as the demo's hint shows it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli.pi_harness import PI, PiEnv


def test_a_broken_models_json_fails_print_and_json_instead_of_the_demo(pi: PiEnv) -> None:
    assert pi.server is not None
    broken = {"providers": {"fake": {"baseURL": pi.server.openai_base_url, "api": "openai-completions",
                                     "apiKey": "sk", "models": [{"id": "m"}]}}}  # fmt: skip
    (pi.agent_dir / "models.json").write_text(json.dumps(broken))
    for mode in (["-p"], ["--mode", "json"]):
        result = pi.run(*mode, "hi", model=False)
        assert result.returncode == 1, result.stdout
        assert "no usable model" in result.stderr and '"baseUrl" is required' in result.stderr
        assert "[offline demo]" not in result.stdout
    (pi.agent_dir / "models.json").unlink()  # nothing configured at all: the demo is the answer
    result = pi.run("-p", "hi", model=False)
    assert result.returncode == 0 and "[offline demo]" in result.stdout


def test_print_mode_says_it_is_retrying(pi: PiEnv) -> None:
    assert pi.server is not None
    pi.server.add_turns([{"status": 503, "body": {"error": {"message": "overloaded"}}}, {"text": "fine now"}])
    result = pi.run("-p", "hi")
    assert result.returncode == 0 and result.stdout == "fine now\n"
    assert "Retrying (1/3) in 0.02s: " in result.stderr and "overloaded" in result.stderr


def test_json_mode_says_it_is_retrying_on_stderr_and_keeps_stdout_pure(pi: PiEnv) -> None:
    assert pi.server is not None
    pi.server.add_turns([{"status": 503, "body": {"error": {"message": "overloaded"}}}, {"text": "fine now"}])
    result = pi.run("--mode", "json", "hi")
    assert result.returncode == 0
    assert "Retrying (1/3) in 0.02s: " in result.stderr and "Retry 1 succeeded" in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]  # every stdout line is JSON
    assert any(e.get("type") == "auto_retry_start" for e in events)


def test_mcp_in_print_mode_leaves_no_asyncio_noise(pi: PiEnv) -> None:
    assert pi.server is not None
    server = Path(__file__).resolve().parents[1] / "mcp" / "mcp_test_server.py"
    config = {"mcpServers": {"t": {"command": sys.executable, "args": [str(server)]}}}
    (pi.agent_dir / "mcp.json").write_text(json.dumps(config))
    pi.server.add_turns([{"text": "hello"}])
    result = pi.run("-p", "hi")
    assert result.returncode == 0 and result.stdout == "hello\n"
    assert "Task was destroyed" not in result.stderr and "Traceback" not in result.stderr


def test_every_command_answers_help(pi: PiEnv) -> None:
    import subprocess

    for command in (["mcp", "--help"], ["auth", "--help"], ["install", "--help"]):
        result = subprocess.run([*PI, *command], capture_output=True, text=True, env=pi.env, timeout=60)
        assert result.returncode == 0 and "Usage" in result.stdout + result.stderr, command
    help_text = subprocess.run([*PI, "--help"], capture_output=True, text=True, env=pi.env, timeout=60).stdout
    assert "pi mcp add|remove|list" in help_text and "pi auth login|logout" in help_text


def test_the_demo_runs_the_command_its_hint_shows(tmp_path: Path) -> None:
    import asyncio

    from pi_cli.ai.options import StreamOptions
    from pi_cli.ai.providers.faux_demo import DEMO_MODEL
    from pi_cli.ai.stream import stream

    tools = [{"name": "bash", "description": "", "parameters": {"type": "object"}}]
    context = {"systemPrompt": "", "messages": [{"role": "user", "content": "run git status"}], "tools": tools}

    async def ask() -> dict[str, object]:
        result: dict[str, object] = await stream(DEMO_MODEL, context, StreamOptions()).result()  # type: ignore[arg-type]
        return result

    reply = asyncio.run(ask())
    calls = [b for b in reply["content"] if b["type"] == "toolCall"]  # type: ignore[attr-defined,index]
    assert calls and calls[0]["arguments"] == {"command": "git status"}
