"""The gate against hostile commands, with the rules of the attack in issue 26.

Rules: allow ``bash(git status*)``, ``bash(ls*)``, ``bash(echo *)``, ``bash(cat *)``,
``bash(find *)``, ``write(src/**)``, ``edit(src/**)``; deny ``write(**/.env)``, ``bash(rm *)``;
mode ``ask``. Nothing below may run unasked; the controls at the end must.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_cli.permissions.policy import RuleSet, decide
from pi_cli.permissions.rules import parse_rule

ALLOW = ["bash(git status*)", "bash(ls*)", "bash(echo *)", "bash(cat *)", "bash(find *)"]
ALLOW += ["write(src/**)", "edit(src/**)"]
DENY = ["write(**/.env)", "bash(rm *)"]

# The tries of the issue that ran unasked before the parser.
ISSUE_TRIES = [
    "git status & touch PWNED",
    "cat <(touch PWNED)",
    "echo hi >(touch PWNED)",
    "echo hi > PWNED",
    "echo hi >> PWNED",
    "ls > PWNED",
    "git status 2> PWNED",
    "find . -maxdepth 0 -exec touch PWNED \\;",
]
# And the ones that held; they must keep holding.
HELD = [
    "git status; touch PWNED",
    "git status && touch PWNED",
    "git status || touch PWNED",
    "git status | touch PWNED",
    "git status\ntouch PWNED",
    "echo $(touch PWNED)",
    "echo `touch PWNED`",
    "cat <<EOF\n$(touch PWNED)\nEOF",
    "(touch PWNED)",
    "{ touch PWNED; }",
    "ls | xargs touch",
    "exec touch PWNED",
    "eval touch PWNED",
    "cat ../../etc/passwd > ../PWNED",
]
# Our own: quoting, escapes, heredocs, unicode, long lines, wrappers, expansions.
OWN = [
    "echo ok; 'touch' PWNED",
    'echo ok; "tou"ch PWNED',
    "echo ok; t\\ouch PWNED",
    "echo ok; $'\\x74ouch' PWNED",
    "echo ok;\\\ntouch PWNED",
    "echo ok &\ttouch PWNED",
    "echo ok |& touch PWNED",
    "echo ok ;; touch PWNED",
    "git status\r\ntouch PWNED",
    "echo {a,b}; {touch,PWNED}",
    "ls $(printf '\\x2e')",
    'cat <<< "$(touch PWNED)"',
    "cat <<EOF\nsafe\nEOF\ntouch PWNED",
    "cat <<'EOF'\nEOF\ntouch PWNED",
    "cat <<-EOF\n\tEOF\ntouch PWNED",
    'echo "${x:-$(touch PWNED)}"',
    "echo \"${x:-'$(touch PWNED)'}\"",
    "echo $(( $(touch PWNED) + 1 ))",
    "[[ $(touch PWNED) ]] && echo",
    "for f in $(touch PWNED); do echo; done",
    "case $(touch PWNED) in *) echo;; esac",
    "f() { touch PWNED; }; echo",
    "echo ok; bash -c 'touch PWNED'",
    "echo ok; sh -ec 'touch PWNED'",
    "echo ok | xargs -I{} touch {}",
    "find . -execdir touch PWNED \\;",
    "find . -ok touch PWNED \\;",
    "find . -okdir touch PWNED \\;",
    "find . -delete",
    "find . -fprint PWNED",
    "echo hi >| PWNED",
    "echo hi &> PWNED",
    "echo hi &>> PWNED",
    "cat <> PWNED",
    "echo hi >& PWNED",
    "exec 3> PWNED",
    "echo hi 1>PWNED",
    "echo hi > $HOME/PWNED",
    "echo hi > ~/PWNED",
    "echo hi > /etc/PWNED",
    "echo hi > .env",
    "echo hi > src/.env",
    "cd /tmp && echo hi > PWNED",
    "echo ok; $CMD PWNED",
    "echo ok; ${CMD} PWNED",
    "echo ok; /usr/bin/tou?h PWNED",
    "PATH=/tmp/evil:$PATH ls",
    "LD_PRELOAD=/tmp/evil.so ls",
    "echo ok; env touch PWNED",
    "echo ok; sudo touch PWNED",
    "echo ok; command touch PWNED",
    "echo ok;\u00a0touch PWNED",
    "echo ök; tøuch PWNED",
    "echo '" + "x" * 5000 + "'; touch PWNED",
    " && ".join(["echo ok"] * 500) + " && touch PWNED",
    "echo 'unterminated; touch PWNED",
    "echo $(unterminated; touch PWNED",
    "echo " + "$(" * 100 + "touch PWNED" + ")" * 100,
]
CONTROLS = [
    "git status",
    "git status --short && ls -la",
    "echo hello world",
    "cat README.md | cat -n",
    "echo hi > src/out.txt",
    "echo hi 2>/dev/null",
    "ls >&2",
    "find . -name '*.py'",
    "echo 'a; touch PWNED'",
    "cat -n <<'EOF'\n$(touch PWNED)\nEOF",
]
RM_DISGUISES = [
    "rm -rf src",
    "\\rm -rf src",
    "'rm' -rf src",
    "/bin/rm -rf src",
    "sudo -u root rm -rf src",
    "env A=1 rm -rf src",
    "nice -n 5 rm -rf src",
    "timeout 10 rm -rf src",
    "xargs rm < list",
    "find . -exec rm {} +",
    'bash -c "rm -rf src"',
    "eval 'rm -rf src'",
    "echo $(rm -rf src)",
    "{rm,-rf,src}",
    "$'\\x72\\x6d' -rf src",
    "r\\\nm -rf src",
    "FOO=1 rm -rf src",
    "X=$(id) /usr/bin/rm -rf src",
]


@pytest.fixture
def rules() -> RuleSet:
    out = RuleSet()
    for pattern in ALLOW:
        out.add("allow", parse_rule(pattern))
    for pattern in DENY:
        out.add("deny", parse_rule(pattern))
    return out


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    (tmp_path / "src").mkdir()
    return str(tmp_path)


def test_there_are_enough_hostile_commands() -> None:
    assert len(OWN) + len(RM_DISGUISES) >= 30


@pytest.mark.parametrize("command", ISSUE_TRIES + HELD + OWN + RM_DISGUISES, ids=lambda c: repr(c[:40]))
def test_hostile_commands_never_run_unasked(command: str, rules: RuleSet, cwd: str) -> None:
    decision = decide("bash", {"command": command}, "ask", rules, cwd)
    assert decision.action in ("ask", "deny"), decision.reason


def test_the_rm_disguises_are_all_there() -> None:
    assert len(RM_DISGUISES) == 18


@pytest.mark.parametrize("command", RM_DISGUISES, ids=lambda c: repr(c[:40]))
def test_the_deny_rule_catches_rm_in_every_disguise(command: str, rules: RuleSet, cwd: str) -> None:
    decision = decide("bash", {"command": command}, "auto", rules, cwd)
    assert decision.action != "allow", decision.reason


@pytest.mark.parametrize("command", CONTROLS, ids=lambda c: repr(c[:40]))
def test_controls_still_run_unasked(command: str, rules: RuleSet, cwd: str) -> None:
    decision = decide("bash", {"command": command}, "ask", rules, cwd)
    assert decision.action == "allow", decision.reason


def test_redirections_are_writes_a_deny_rule_refuses_even_in_auto_mode(rules: RuleSet, cwd: str) -> None:
    decision = decide("bash", {"command": "echo KEY=1 > deploy/.env"}, "auto", rules, cwd)
    assert decision.action == "deny" and "write(**/.env)" in decision.reason


def test_symlinked_paths_are_judged_where_they_lead(
    rules: RuleSet, cwd: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("s")
    os.symlink(outside, os.path.join(cwd, "src", "link"))
    write = decide("write", {"path": "src/link/PWNED", "content": "x"}, "ask", rules, cwd)
    assert write.action == "ask" and "outside the working directory" in write.reason and str(outside) in write.reason
    read = decide("read", {"path": "src/link/secret.txt"}, "ask", rules, cwd)
    assert read.action == "ask"
    bash = decide("bash", {"command": "echo x > src/link/PWNED"}, "ask", rules, cwd)
    assert bash.action == "ask"
    assert decide("write", {"path": "src/ok.py", "content": "x"}, "ask", rules, cwd).action == "allow"


def test_a_computed_command_asks_when_deny_rules_exist_even_in_auto_mode(rules: RuleSet, cwd: str) -> None:
    decision = decide("bash", {"command": "$X -rf src"}, "auto", rules, cwd)
    assert decision.action == "ask" and "run time" in decision.reason
    assert decide("bash", {"command": "$X -rf src"}, "auto", RuleSet(), cwd).action == "allow"  # pi's auto mode


def test_a_rule_that_names_the_construct_allows_it(cwd: str) -> None:
    rules = RuleSet()
    for pattern in ("bash(find * -exec *)", "bash(git commit -m $(*)", "bash(xargs grep*)", "bash(ls*)"):
        rules.add("allow", parse_rule(pattern))
    for command in ("find . -name '*.pyc' -exec rm {} +", "git commit -m $(cat msg)", "ls | xargs grep x"):
        assert decide("bash", {"command": command}, "ask", rules, cwd).action == "allow", command
    assert decide("bash", {"command": "git commit -m `cat msg`"}, "ask", rules, cwd).action == "ask"
