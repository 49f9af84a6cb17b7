"""Every one of pi 1.6's 33 RPC commands, driven through one ``pi --mode rpc`` process per test."""

from __future__ import annotations

import json
from pathlib import Path

from cli.pi_harness import PiEnv, RpcClient, user_texts

ALL_COMMANDS = {
    "prompt", "steer", "follow_up", "abort", "new_session", "get_state", "get_messages", "set_model",
    "cycle_model", "get_available_models", "set_thinking_level", "cycle_thinking_level", "set_steering_mode",
    "set_follow_up_mode", "compact", "set_auto_compaction", "set_auto_retry", "abort_retry", "bash",
    "abort_bash", "get_session_stats", "export_html", "switch_session", "fork", "clone", "get_fork_messages",
    "get_last_assistant_text", "set_session_name", "get_commands",
    # new in pi 1.6
    "get_available_thinking_levels", "clear_queue", "get_entries", "get_tree",
}  # fmt: skip


def test_protocol_lists_all_33_commands() -> None:
    from pi_cli.modes.rpc.handlers import HANDLERS
    from pi_cli.modes.rpc.protocol import COMMAND_MODELS

    assert len(ALL_COMMANDS) == 33
    pi_cli_only = {"rewind", "get_checkpoints"}  # issue 18: not pi's, tested in tests/checkpoints
    assert set(COMMAND_MODELS) - pi_cli_only == ALL_COMMANDS == set(HANDLERS) - pi_cli_only


def _prompt(client: RpcClient, text: str) -> dict:
    assert client.request({"type": "prompt", "message": text})["success"]
    return client.event("agent_end")


def test_state_model_and_thinking_commands(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "on other model"}])
    client = RpcClient(pi)
    try:
        state = client.request({"type": "get_state"})["data"]
        assert state["model"]["id"] == "fake-model" and state["thinkingLevel"] == "off"
        assert state["isStreaming"] is False and state["isCompacting"] is False
        assert state["steeringMode"] == "one-at-a-time" and state["followUpMode"] == "one-at-a-time"
        assert state["sessionId"] and state["autoCompactionEnabled"] is True
        assert state["messageCount"] == 0 and state["pendingMessageCount"] == 0
        # Beyond pi (issue 26): what confines bash, as /sandbox shows it.
        assert set(state["sandbox"]) >= {"mode", "network", "writable", "denyRead", "landlockAbi"}

        models = client.request({"type": "get_available_models"})["data"]["models"]
        ids = {(m["provider"], m["id"]) for m in models}
        assert {("fake", "fake-model"), ("fake", "fake-other"), ("fake", "fake-think")} <= ids
        assert all("apiKey" not in m for m in models)

        missing = client.request({"type": "set_model", "provider": "fake", "modelId": "nope"})
        assert missing["success"] is False and missing["error"] == "Model not found: fake/nope"
        chosen = client.request({"type": "set_model", "provider": "fake", "modelId": "fake-think"})
        assert chosen["data"]["id"] == "fake-think"

        assert client.request({"type": "set_thinking_level", "level": "high"})["success"]
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "high"
        cycled = client.request({"type": "cycle_thinking_level"})["data"]
        assert cycled["level"] != "high"

        client.request({"type": "set_model", "provider": "fake", "modelId": "fake-other"})
        assert client.request({"type": "cycle_thinking_level"})["data"] is None
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "off"

        cycle = client.request({"type": "cycle_model"})["data"]
        assert cycle["isScoped"] is False and cycle["model"]["id"] != "fake-other"
        assert set(cycle) == {"model", "thinkingLevel", "isScoped"}

        client.request({"type": "set_model", "provider": "fake", "modelId": "fake-other"})
        _prompt(client, "hi")
        assert pi.bodies()[-1]["model"] == "fake-other"

        assert client.request({"type": "set_steering_mode", "mode": "all"})["success"]
        assert client.request({"type": "set_follow_up_mode", "mode": "all"})["success"]
        state = client.request({"type": "get_state"})["data"]
        assert state["steeringMode"] == "all" and state["followUpMode"] == "all"
        bad = client.request({"type": "set_steering_mode", "mode": "sometimes"})
        assert bad["success"] is False
    finally:
        assert client.close() == 0
    saved = json.loads((pi.agent_dir / "settings.json").read_text())
    # As pi 1.6.0's RPC: model and thinking commands switch the session only; the queue modes are saved.
    assert "defaultModel" not in saved and "defaultThinkingLevel" not in saved
    assert saved["steeringMode"] == "all"


def test_model_switch_reads_the_thinking_settings_as_pi(pi: PiEnv) -> None:
    # Recorded with pi 1.6.0 (same commands, same settings): the switch takes the model's
    # modelThinkingLevels entry, else defaultThinkingLevel, never a level an RPC command chose,
    # and settings.json is left as it was.
    settings = {**json.loads((pi.agent_dir / "settings.json").read_text()), "defaultThinkingLevel": "low"}
    settings["modelThinkingLevels"] = {"fake/fake-think": "minimal"}
    (pi.agent_dir / "settings.json").write_text(json.dumps(settings))
    models = json.loads((pi.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"].append({"id": "think-two", "reasoning": True})
    (pi.agent_dir / "models.json").write_text(json.dumps(models))
    client = RpcClient(pi)
    try:
        client.request({"type": "set_model", "provider": "fake", "modelId": "think-two"})
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "low"
        client.request({"type": "set_thinking_level", "level": "high"})
        client.request({"type": "cycle_thinking_level"})
        client.request({"type": "set_model", "provider": "fake", "modelId": "fake-model"})
        client.request({"type": "set_model", "provider": "fake", "modelId": "think-two"})
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "low"
        client.request({"type": "set_model", "provider": "fake", "modelId": "fake-think"})
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "minimal"
    finally:
        assert client.close() == 0
    assert json.loads((pi.agent_dir / "settings.json").read_text()) == settings
    # At startup too (pi 1.6.0 measured: "minimal" for --model fake/fake-think with these settings).
    client = RpcClient(pi, "--model", "fake/fake-think")
    try:
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "minimal"
    finally:
        assert client.close() == 0


def test_message_queue_and_toggle_commands(pi: PiEnv) -> None:
    # pi's getLastAssistantText trims the text: the blank lines around the answer are not sent.
    pi.server.add_turns([{"text": "\n  answer one \n\n"}])
    client = RpcClient(pi)
    try:
        assert client.request({"type": "get_last_assistant_text"})["data"] == {}  # pi 1.6.0: text left out
        _prompt(client, "question")
        messages = client.request({"type": "get_messages"})["data"]["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant"]
        assert client.request({"type": "get_last_assistant_text"})["data"] == {"text": "answer one"}

        stats = client.request({"type": "get_session_stats"})["data"]
        assert stats["userMessages"] == 1 and stats["assistantMessages"] == 1 and stats["totalMessages"] == 2
        assert stats["toolCalls"] == 0 and stats["toolResults"] == 0
        assert stats["tokens"]["total"] == sum(
            stats["tokens"][k] for k in ("input", "output", "cacheRead", "cacheWrite")
        )
        assert stats["tokens"]["output"] > 0
        assert stats["contextUsage"]["contextWindow"] == 128000
        assert stats["sessionId"] == client.request({"type": "get_state"})["data"]["sessionId"]

        # steer / follow_up / abort / abort_retry while idle: accepted, nothing runs.
        assert client.request({"type": "abort"})["success"]
        assert client.request({"type": "abort_retry"})["success"]
        assert client.request({"type": "abort_bash"})["success"]
        assert client.request({"type": "set_auto_retry", "enabled": False})["success"]
        assert client.request({"type": "set_auto_compaction", "enabled": False})["success"]
        assert client.request({"type": "get_state"})["data"]["autoCompactionEnabled"] is False

        empty = client.request({"type": "set_session_name", "name": "   "})
        assert empty["success"] is False and empty["error"] == "Session name cannot be empty"
        assert client.request({"type": "set_session_name", "name": "  My work "})["success"]
        assert any(e == {"type": "session_info_changed", "name": "My work"} for e in client.seen)
        assert client.request({"type": "get_state"})["data"]["sessionName"] == "My work"

        commands = client.request({"type": "get_commands"})["data"]["commands"]
        assert commands == []
    finally:
        assert client.close() == 0
    settings = json.loads((pi.agent_dir / "settings.json").read_text())
    assert settings["retry"]["enabled"] is False and settings["compaction"]["enabled"] is False


def test_get_commands_lists_templates_and_skills(pi: PiEnv) -> None:
    prompts = pi.agent_dir / "prompts"
    prompts.mkdir()
    (prompts / "rev.md").write_text("---\ndescription: Review a file\n---\nReview $1 with focus on ${@:2}\n")
    skill = pi.agent_dir / "skills" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy the code\n---\nTidy body\n")
    pi.server.add_turns([{"text": "ok"}])
    client = RpcClient(pi)
    try:
        commands = client.request({"type": "get_commands"})["data"]["commands"]
        by_name = {c["name"]: c for c in commands}
        assert by_name["rev"]["source"] == "prompt" and by_name["rev"]["description"] == "Review a file"
        assert by_name["skill:tidy"]["source"] == "skill"
        assert "path" in by_name["skill:tidy"]["sourceInfo"]
        _prompt(client, "/rev foo.py perf safety")
    finally:
        client.close()
    assert user_texts(pi.bodies()[0]) == ["Review foo.py with focus on perf safety"]


def test_compact_refuses_a_tiny_session_as_pi(pi: PiEnv) -> None:
    # Recorded from pi 1.6.0 (one prompt, then `compact`): compaction_start, a compaction_end with no
    # "result" key, and the error response with pi's text.
    pi.server.add_turns([{"text": "Hello."}])
    client = RpcClient(pi)
    try:
        _prompt(client, "hi")
        start = len(client.seen)
        answer = client.request({"type": "compact"})
        assert {k: v for k, v in answer.items() if k != "id"} == {
            "type": "response", "command": "compact", "success": False,
            "error": "Nothing to compact (session too small)",
        }  # fmt: skip
        events = [e for e in client.seen[start:] if e.get("type", "").startswith("compaction_")]
        assert events == [
            {"type": "compaction_start", "reason": "manual"},
            {"type": "compaction_end", "reason": "manual", "aborted": False, "willRetry": False,
             "errorMessage": "Compaction failed: Nothing to compact (session too small)"},
        ]  # fmt: skip
        assert len(pi.server.requests) == 1  # no summary request
    finally:
        client.close()


def test_session_file_commands(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "first reply"}, {"text": "second reply"}, {"text": "summary of it all"}])
    # Keep only the last turn (about 7 tokens) so the first one is summarised: pi refuses to
    # compact a session whose whole context fits in keepRecentTokens.
    settings_file = pi.agent_dir / "settings.json"
    settings_file.write_text(
        json.dumps({**json.loads(settings_file.read_text()), "compaction": {"keepRecentTokens": 5}})
    )
    client = RpcClient(pi)
    try:
        _prompt(client, "first question")
        _prompt(client, "second question")
        state = client.request({"type": "get_state"})["data"]
        original = state["sessionFile"]
        assert original and Path(original).is_file()

        forks = client.request({"type": "get_fork_messages"})["data"]["messages"]
        assert [m["text"] for m in forks] == ["first question", "second question"]

        out = pi.root / "export.html"
        exported = client.request({"type": "export_html", "outputPath": str(out)})
        assert exported["data"] == {"path": str(out)} and "first reply" in out.read_text()

        compacted = client.request({"type": "compact", "customInstructions": "focus"}, timeout=30)
        assert compacted["success"], compacted
        assert compacted["data"]["summary"].startswith("summary of it all")
        # pi 1.6.0's result: the compacted context's estimate and what the summary request cost.
        assert list(compacted["data"]) == [
            "summary", "firstKeptEntryId", "tokensBefore", "estimatedTokensAfter", "usage", "details"
        ]  # fmt: skip
        assert 0 < compacted["data"]["estimatedTokensAfter"] < compacted["data"]["tokensBefore"] + 200
        usage = compacted["data"]["usage"]
        assert usage["input"] > 0 and usage["output"] > 0 and "cost" in usage
        kinds = [e["type"] for e in client.seen if e.get("type", "").startswith("compaction_")]
        assert kinds == ["compaction_start", "compaction_end"]
        end = next(e for e in client.seen if e.get("type") == "compaction_end")
        assert end["result"] == compacted["data"]
        entries = [json.loads(line) for line in Path(original).read_text().splitlines()]
        assert next(e for e in entries if e.get("type") == "compaction")["usage"] == usage
        again = client.request({"type": "compact"})
        assert again["success"] is False

        forked = client.request({"type": "fork", "entryId": forks[1]["entryId"]})
        assert forked["data"] == {"text": "second question", "cancelled": False}
        after_fork = client.request({"type": "get_messages"})["data"]["messages"]
        assert [m["role"] for m in after_fork] == ["user", "assistant"]
        bad_fork = client.request({"type": "fork", "entryId": "zzzzzzzz"})
        assert bad_fork["success"] is False

        assert client.request({"type": "clone"})["data"] == {"cancelled": False}

        switched = client.request({"type": "switch_session", "sessionPath": original})
        assert switched["data"] == {"cancelled": False}
        state = client.request({"type": "get_state"})["data"]
        assert state["sessionFile"] == original
        assert state["messageCount"] >= 2
        missing = client.request({"type": "switch_session", "sessionPath": str(pi.root / "none.jsonl")})
        assert missing["success"] is False

        fresh = client.request({"type": "new_session"})
        assert fresh["data"] == {"cancelled": False}
        state = client.request({"type": "get_state"})["data"]
        assert state["messageCount"] == 0 and state["sessionFile"] != original
    finally:
        assert client.close() == 0
    summary_request = pi.bodies()[2]
    assert "focus" in json.dumps(summary_request)


def test_session_commands_fail_cleanly_in_memory(pi: PiEnv) -> None:
    client = RpcClient(pi, "--no-session")
    try:
        state = client.request({"type": "get_state"})["data"]
        assert "sessionFile" not in state
        exported = client.request({"type": "export_html"})
        assert exported["success"] is False and "in-memory" in exported["error"]
        assert client.request({"type": "get_fork_messages"})["data"] == {"messages": []}
        compact = client.request({"type": "compact"})
        assert compact["success"] is False
    finally:
        assert client.close() == 0
    assert pi.session_files() == []


def test_model_headers_are_masked_in_responses(pi: PiEnv) -> None:
    models = json.loads((pi.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["headers"] = {"X-Secret": "secret-123"}
    (pi.agent_dir / "models.json").write_text(json.dumps(models))
    client = RpcClient(pi)
    try:
        state = client.request({"type": "get_state"})
        available = client.request({"type": "get_available_models"})
        chosen = client.request({"type": "set_model", "provider": "fake", "modelId": "fake-other"})
    finally:
        client.close()
    for response in (state, available, chosen):
        assert response["success"] and "secret-123" not in json.dumps(response)
    assert state["data"]["model"]["headers"] == {"X-Secret": "***"}


def test_models_scope_drives_cycle_model(pi: PiEnv) -> None:
    client = RpcClient(pi, "--models", "fake/fake-o*,fake-think:high")
    try:
        state = client.request({"type": "get_state"})["data"]
        assert state["model"]["id"] == "fake-model"  # --model wins over the scope for the start
        first = client.request({"type": "cycle_model"})["data"]
        second = client.request({"type": "cycle_model"})["data"]
        assert first["isScoped"] is True
        assert {first["model"]["id"], second["model"]["id"]} == {"fake-other", "fake-think"}
        think = first if first["model"]["id"] == "fake-think" else second
        assert think["thinkingLevel"] == "high"
    finally:
        client.close()
