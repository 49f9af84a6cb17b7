"""The gate in a real ``pi`` process: refused calls in print/json mode, rules, and trust."""

from __future__ import annotations

import json

from cli.pi_harness import PiEnv, json_lines


def tool_results(stdout: str) -> list[dict[str, object]]:
    return [e for e in json_lines(stdout) if e.get("type") == "tool_execution_end"]


def result_text(event: dict[str, object]) -> str:
    result = event["result"]
    assert isinstance(result, dict)
    return "".join(part.get("text", "") for part in result["content"])


def script_bash(pi: PiEnv, command: str) -> None:
    pi.server.add_turns(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}, "id": "c1"}]}, {"text": "ok"}]
    )


def test_ask_mode_without_a_ui_refuses_with_a_reason_the_model_reads(pi: PiEnv) -> None:
    script_bash(pi, "touch made")
    result = pi.run("--mode", "json", "--permissions", "ask", "go")
    assert result.returncode == 0, result.stderr
    [end] = tool_results(result.stdout)
    assert end["isError"] is True
    text = result_text(end)
    assert text.startswith("Permission denied: bash needs approval") and '"bash(touch made*)"' in text
    assert not (pi.cwd / "made").exists()
    # The refusal went back to the model as the tool result.
    sent = json.dumps(pi.bodies()[-1]["messages"])
    assert "Permission denied: bash needs approval" in sent


def test_auto_mode_runs_and_read_only_refuses(pi: PiEnv) -> None:
    script_bash(pi, "touch made")
    assert pi.run("-p", "go").returncode == 0
    assert (pi.cwd / "made").exists()
    script_bash(pi, "touch second")
    result = pi.run("--mode", "json", "--permissions", "read-only", "go")
    [end] = tool_results(result.stdout)
    assert result_text(end) == (
        "Permission denied: bash is not allowed in read-only mode; only read, grep, find and ls may run."
    )
    assert not (pi.cwd / "second").exists()


def test_settings_mode_and_deny_rules(pi: PiEnv) -> None:
    settings = json.loads((pi.agent_dir / "settings.json").read_text())
    settings["permissions"] = {"allow": ["bash(touch *)"], "deny": ["bash(touch secret*)"]}
    (pi.agent_dir / "settings.json").write_text(json.dumps(settings))
    script_bash(pi, "touch ok")
    pi.run("--mode", "json", "--permissions", "ask", "go")
    assert (pi.cwd / "ok").exists()  # allowed by rule, no one asked
    script_bash(pi, "touch secret")
    result = pi.run("--mode", "json", "go")
    [end] = tool_results(result.stdout)
    assert result_text(end) == "Permission denied: bash is denied by the permission rule bash(touch secret*)."


def test_project_rules_apply_only_in_a_trusted_project(pi: PiEnv) -> None:
    (pi.cwd / ".pi").mkdir()
    (pi.cwd / ".pi" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["bash(touch*)"]}}))
    script_bash(pi, "touch one")
    pi.run("--mode", "json", "go")  # print/json: untrusted by default, project rules skipped
    assert (pi.cwd / "one").exists()
    script_bash(pi, "touch two")
    result = pi.run("--mode", "json", "--approve", "go")
    assert "denied by the permission rule bash(touch*)" in result_text(tool_results(result.stdout)[0])
    assert not (pi.cwd / "two").exists()


def system_prompt(pi: PiEnv) -> str:
    first = pi.bodies()[-1]["messages"][0]
    assert first["role"] == "system"
    content = first["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def test_protected_resources_load_only_after_trust_but_agents_md_always(pi: PiEnv) -> None:
    pi_dir = pi.cwd / ".pi"
    (pi_dir / "prompts").mkdir(parents=True)
    (pi_dir / "skills" / "deploy").mkdir(parents=True)
    (pi_dir / "SYSTEM.md").write_text("You are PROJECT-SYSTEM.")
    (pi_dir / "APPEND_SYSTEM.md").write_text("PROJECT-APPEND")
    (pi_dir / "prompts" / "tpl.md").write_text("TEMPLATE-BODY $1")
    (pi_dir / "skills" / "deploy" / "SKILL.md").write_text("---\nname: deploy\ndescription: PROJECT-SKILL\n---\nx")
    (pi_dir / "settings.json").write_text(json.dumps({"permissions": {"mode": "read-only"}}))
    (pi.cwd / "AGENTS.md").write_text("AGENTS-CONTEXT")
    for flags, trusted in [((), False), (("--approve",), True), (("--no-approve",), False)]:
        pi.server.add_turns([{"text": "ok"}])
        result = pi.run("--mode", "json", *flags, "/tpl arg")
        assert result.returncode == 0, result.stderr
        prompt = system_prompt(pi)
        sent = json.dumps(pi.bodies()[-1]["messages"][1:])
        assert "AGENTS-CONTEXT" in prompt
        for marker in ("PROJECT-SYSTEM", "PROJECT-APPEND", "PROJECT-SKILL"):
            assert (marker in prompt) is trusted, (flags, marker)
        assert ("TEMPLATE-BODY arg" in sent) is trusted
        assert "This project is not trusted" not in result.stderr  # only interactive modes say so


def test_saved_trust_and_default_project_trust(pi: PiEnv) -> None:
    (pi.cwd / ".pi").mkdir()
    (pi.cwd / ".pi" / "SYSTEM.md").write_text("You are PROJECT-SYSTEM.")
    settings = json.loads((pi.agent_dir / "settings.json").read_text())
    (pi.agent_dir / "settings.json").write_text(json.dumps({**settings, "defaultProjectTrust": "always"}))
    pi.server.add_turns([{"text": "ok"}, {"text": "ok"}])
    pi.run("-p", "hi")
    assert "PROJECT-SYSTEM" in system_prompt(pi)
    (pi.agent_dir / "trust.json").write_text(json.dumps({str(pi.cwd.resolve()): False}))
    pi.run("-p", "hi")  # a saved decision beats the default
    assert "PROJECT-SYSTEM" not in system_prompt(pi)


REWRITE = """
def register(pi):
    def on_tool_call(event, ctx):
        if event["toolName"] == "bash":
            event["input"]["command"] = event["input"]["command"].replace("touch made", "touch rewritten")
    pi.on("tool_call", on_tool_call)
"""


def test_the_gate_decides_on_what_an_extension_rewrote(pi: PiEnv) -> None:
    ext = pi.root / "rewrite.py"
    ext.write_text(REWRITE)
    settings = json.loads((pi.agent_dir / "settings.json").read_text())
    settings["permissions"] = {"allow": ["bash(touch rewritten*)"]}
    (pi.agent_dir / "settings.json").write_text(json.dumps(settings))
    script_bash(pi, "touch made")
    result = pi.run("--mode", "json", "--permissions", "ask", "-e", str(ext), "go")
    assert result.returncode == 0, result.stderr
    [end] = tool_results(result.stdout)
    assert end["isError"] is False  # allowed: the rule matches the command that actually ran
    assert (pi.cwd / "rewritten").exists() and not (pi.cwd / "made").exists()
