"""Extensions end to end in print/json mode: loading from each place, tools, events, failures."""

from __future__ import annotations

import json
from pathlib import Path

from cli.pi_harness import PiEnv, json_lines

TRACE = """
import json, os
from pathlib import Path

LOG = Path(os.environ["EXT_LOG"])

def register(pi):
    def record(event, ctx):
        with LOG.open("a") as f:
            f.write(json.dumps({"type": event["type"], "has_ui": ctx.has_ui}) + "\\n")
    for name in ("session_start", "agent_start", "agent_end", "turn_start", "turn_end", "message_start",
                 "message_end", "tool_execution_start", "tool_execution_end", "before_agent_start", "input",
                 "context"):
        pi.on(name, record)
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def tool_turns(pi: PiEnv, name: str, args: dict[str, object], answer: str = "done") -> None:
    assert pi.server is not None
    pi.server.add_turns([{"tool_calls": [{"name": name, "arguments": args, "id": "c1"}]}, {"text": answer}])


def tool_result_text(pi: PiEnv) -> str:
    """The text of the tool result the model received in the second request."""
    messages = pi.bodies()[-1]["messages"]
    tool = [m for m in messages if m["role"] == "tool"][-1]
    content = tool["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_example_tool_runs_and_events_fire(pi: PiEnv) -> None:
    log = pi.root / "events.jsonl"
    pi.env["EXT_LOG"] = str(log)
    write(pi.agent_dir / "extensions" / "trace.py", TRACE)
    tool_turns(pi, "word_count", {"text": "one two three"})
    done = pi.run("-p", "-e", "example:word_count", "count")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert tool_result_text(pi) == "1 lines, 3 words, 13 characters"
    kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    assert kinds[0] == "session_start"
    for kind in ("input", "before_agent_start", "agent_start", "turn_start", "context", "message_start",
                 "tool_execution_start", "tool_execution_end", "turn_end", "agent_end"):  # fmt: skip
        assert kind in kinds, kind
    assert kinds.index("input") < kinds.index("before_agent_start") < kinds.index("agent_start")
    assert all(json.loads(line)["has_ui"] is False for line in log.read_text().splitlines())


def test_project_extensions_need_trust(pi: PiEnv) -> None:
    marker = pi.root / "loaded"
    write(pi.cwd / ".pi" / "extensions" / "mark.py", f"def register(pi):\n    open({str(marker)!r}, 'w').close()\n")
    pi.server.add_turns([{"text": "a"}, {"text": "b"}])  # type: ignore[union-attr]
    assert pi.run("-p", "--no-approve", "hi").returncode == 0
    assert not marker.exists()
    assert pi.run("-p", "--approve", "hi").returncode == 0
    assert marker.exists()


def test_settings_entries_and_no_extensions(pi: PiEnv) -> None:
    marker = pi.root / "from-settings"
    ext = write(pi.root / "elsewhere" / "s.py", f"def register(pi):\n    open({str(marker)!r}, 'a').write('x')\n")
    settings = json.loads((pi.agent_dir / "settings.json").read_text())
    settings["extensions"] = [str(ext)]
    (pi.agent_dir / "settings.json").write_text(json.dumps(settings))
    pi.server.add_turns([{"text": "a"}, {"text": "b"}])  # type: ignore[union-attr]
    assert pi.run("-p", "--no-extensions", "hi").returncode == 0
    assert not marker.exists()
    assert pi.run("-p", "hi").returncode == 0
    assert marker.read_text() == "x"


def test_broken_extensions_are_one_line_each_and_others_load(pi: PiEnv) -> None:
    write(pi.agent_dir / "extensions" / "a_syntax.py", "def register(pi):\n    return (\n")
    write(pi.agent_dir / "extensions" / "b_raises.py", "def register(pi):\n    x = 1\n    raise ValueError('nope')\n")
    good = "def register(pi):\n    pi.register_command('hey', lambda a, c: c.ui.notify('hey ' + a))\n"
    write(pi.agent_dir / "extensions" / "c_good.py", good)
    done = pi.run("-p", "/hey you")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    syntax = [line for line in lines if "a_syntax.py" in line]
    raises = [line for line in lines if "b_raises.py" in line]
    assert len(syntax) == 1 and "a_syntax.py:" in syntax[0] and "SyntaxError" in syntax[0]
    assert len(raises) == 1 and "b_raises.py:3" in raises[0] and "ValueError: nope" in raises[0]
    assert "hey you" in lines
    assert "Traceback" not in done.stderr
    assert pi.bodies() == []  # the command was handled, nothing went to the model


def test_tool_call_block_mutate_and_fail_closed(pi: PiEnv) -> None:
    write(
        pi.agent_dir / "extensions" / "gate.py",
        """
def register(pi):
    def on_call(event, ctx):
        cmd = event["input"]["command"]
        if "forbidden" in cmd:
            return {"block": True, "reason": "not here"}
        if "explode" in cmd:
            raise RuntimeError("handler bug")
        event["input"]["command"] = cmd.replace("hello", "goodbye")
    pi.on("tool_call", on_call)
""",
    )
    tool_turns(pi, "bash", {"command": "echo hello"})
    assert pi.run("-p", "go").returncode == 0
    assert tool_result_text(pi).strip() == "goodbye"
    tool_turns(pi, "bash", {"command": "echo forbidden"})
    assert pi.run("-p", "go").returncode == 0
    assert tool_result_text(pi) == "not here"
    tool_turns(pi, "bash", {"command": "touch explode"})
    done = pi.run("-p", "go")
    assert not (pi.cwd / "explode").exists()
    assert "handler bug" in tool_result_text(pi)
    assert "gate.py" in done.stderr and "handler bug" in done.stderr


def test_tool_result_replace_and_raising_handler_goes_on(pi: PiEnv) -> None:
    write(
        pi.agent_dir / "extensions" / "res.py",
        """
def register(pi):
    def broken(event, ctx):
        raise KeyError("oops")
    def replace(event, ctx):
        return {"content": [{"type": "text", "text": "replaced " + event["toolName"]}], "isError": False}
    pi.on("tool_result", broken)
    pi.on("tool_result", replace)
""",
    )
    tool_turns(pi, "bash", {"command": "echo original"})
    done = pi.run("--mode", "json", "go")
    assert done.returncode == 0
    assert tool_result_text(pi) == "replaced bash"
    ends = [e for e in json_lines(done.stdout) if e["type"] == "tool_execution_end"]
    assert ends[0]["result"]["content"][0]["text"] == "replaced bash"
    assert "res.py" in done.stderr and "KeyError" in done.stderr


def test_dangerous_bash_example_blocks_without_ui(pi: PiEnv) -> None:
    tool_turns(pi, "bash", {"command": "rm -rf victim"})
    (pi.cwd / "victim").mkdir()
    done = pi.run("-p", "-e", "example:dangerous_bash", "go")
    assert done.returncode == 0
    assert (pi.cwd / "victim").exists()
    assert tool_result_text(pi).startswith("Dangerous command blocked (no UI to confirm)")


def test_extension_flag_and_unknown_example(pi: PiEnv) -> None:
    ext = write(
        pi.root / "flag.py",
        """
def register(pi):
    pi.register_flag("shout", "boolean", False, "upper-case")
    pi.register_command("say", lambda a, c: c.ui.notify(a.upper() if pi.get_flag("shout") else a))
""",
    )
    done = pi.run("-p", "-e", str(ext), "--shout", "/say hi")
    assert "HI" in done.stderr.splitlines(), done.stderr
    bad = pi.run("-p", "-e", str(ext), "--whisper", "/say hi")
    assert bad.returncode == 1 and "Unknown option: --whisper" in bad.stderr
    missing = pi.run("-p", "-e", "example:nope", "/say hi")
    assert "unknown example 'nope'" in missing.stderr


def test_installed_package_entry_point(pi: PiEnv) -> None:
    site = pi.root / "site"
    write(
        site / "demo_ext.py",
        "def register(pi):\n    pi.register_command('demo', lambda a, c: c.ui.notify('from package'))\n",
    )
    write(site / "demo_ext-1.0.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: demo-ext\nVersion: 1.0\n")
    write(site / "demo_ext-1.0.dist-info" / "entry_points.txt", "[pi_cli.extensions]\ndemo = demo_ext\n")
    pi.env["PYTHONPATH"] = str(site)
    done = pi.run("-p", "/demo")
    assert "from package" in done.stderr.splitlines(), done.stderr
    assert "from package" not in pi.run("-p", "--no-extensions", "/demo").stderr


def test_string_flag_takes_the_next_word_or_an_equals_value(pi: PiEnv) -> None:
    ext = write(
        pi.root / "prefix.py",
        """
def register(pi):
    pi.register_flag("prefix", "string", "-", "prefix")
    pi.register_command("say", lambda a, c: c.ui.notify(f"{pi.get_flag('prefix')} {a}"))
""",
    )
    spaced = pi.run("-p", "-e", str(ext), "--prefix", "PRE", "/say hi")
    assert "PRE hi" in spaced.stderr.splitlines(), spaced.stderr
    equals = pi.run("-p", "-e", str(ext), "--prefix=EQ", "/say hi")
    assert "EQ hi" in equals.stderr.splitlines(), equals.stderr
    default = pi.run("-p", "-e", str(ext), "/say hi")
    assert "- hi" in default.stderr.splitlines(), default.stderr
