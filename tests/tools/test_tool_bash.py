"""The bash tool and run_bash: output, errors, truncation, streaming, timeout and abort."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import time

import pytest
from tool_helpers import has_content, read_bytes, text_of

from pi_cli.agent.types import AgentTool, AgentToolResult
from pi_cli.ai.abort import AbortController
from pi_cli.tools.shell.bash import BashToolError, run_bash


def live_group_members(pgid: int) -> list[int]:
    """Pids of non-zombie processes whose process group is ``pgid`` (read from /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry))
    return members


async def bash(tool: AgentTool, command: str, **extra: object) -> str:
    return text_of(await tool.execute("t", {"command": command, **extra}, None, None))


async def test_runs_in_cwd_with_merged_streams(tools: dict[str, AgentTool], cwd: str) -> None:
    assert await bash(tools["bash"], "pwd") == cwd + "\n"  # the output exactly, as pi 1.6
    out = await bash(tools["bash"], "echo out; echo err >&2; echo out2")
    assert out == "out\nerr\nout2\n"


async def test_no_output_and_stdin_is_devnull(tools: dict[str, AgentTool]) -> None:
    assert await bash(tools["bash"], "true") == "(no output)"
    assert await bash(tools["bash"], "cat") == "(no output)"  # would hang if stdin were inherited


async def test_own_process_group(tools: dict[str, AgentTool]) -> None:
    out = await bash(tools["bash"], "echo $$; cut -d' ' -f5 /proc/$$/stat")
    pid, pgid = out.rstrip("\n").split("\n")
    assert pid == pgid and int(pgid) != os.getpgrp()


async def test_nonzero_exit_is_an_error_result_with_output(tools: dict[str, AgentTool]) -> None:
    # pi 1.6 returns it (is_error, structured content) rather than throwing it
    result = await tools["bash"].execute("t", {"command": "echo partial; exit 3"}, None, None)
    assert result.is_error is True and result.details is None
    assert result.content == [{"type": "text", "text": "partial\n\n\nCommand exited with code 3"}]
    structured = result.structured_content
    assert isinstance(structured["wall_time_seconds"], float)
    assert {**structured, "wall_time_seconds": 0} == {
        "output": "partial\n",
        "truncated": False,
        "exit_code": 3,
        "wall_time_seconds": 0,
    }
    result = await tools["bash"].execute("t", {"command": "false"}, None, None)
    assert result.is_error and result.content[0]["text"] == "(no output)\n\nCommand exited with code 1"


async def test_invalid_utf8_is_replaced(tools: dict[str, AgentTool]) -> None:
    assert await bash(tools["bash"], r"printf 'a\377\376b'") == "a\ufffd\ufffdb"


async def test_line_truncation_keeps_tail_and_full_output_file(tools: dict[str, AgentTool]) -> None:
    result = await tools["bash"].execute("t", {"command": "seq 3001"}, None, None)
    text = text_of(result)
    body, notice = text.rsplit("\n\n", 1)
    # pi 1.6.0 (measured): a truncated tail has no final newline, then "\n\n[Showing …]"; totalBytes
    # counts the whole stream, final newline included.
    assert body.split("\n")[0] == "1002" and body.endswith("\n3001")
    assert result.details["truncation"]["totalBytes"] == len("".join(f"{i}\n" for i in range(1, 3002)))
    assert result.details["truncation"]["totalLines"] == 3001
    match = re.fullmatch(r"\[Showing lines 1002-3001 of 3001\. Full output: (.+/pi-bash-[0-9a-f]{16}\.log)\]", notice)
    assert match, notice
    assert result.details["fullOutputPath"] == match.group(1)
    assert result.details["truncation"]["truncatedBy"] == "lines"
    assert read_bytes(match.group(1)) == "".join(f"{i}\n" for i in range(1, 3002)).encode()
    os.unlink(match.group(1))


async def test_byte_truncation_notice(tools: dict[str, AgentTool]) -> None:
    text = await bash(tools["bash"], "for i in $(seq 1 1000); do printf '%099d\\n' $i; done")
    notice = text.rsplit("\n\n", 1)[1]
    assert re.fullmatch(r"\[Showing lines 489-1000 of 1000 \(50\.0KB limit\)\. Full output: .+\.log\]", notice)
    os.unlink(notice.split("Full output: ")[1][:-1])


async def test_single_huge_line(tools: dict[str, AgentTool]) -> None:
    text = await bash(tools["bash"], "head -c 200000 /dev/zero | tr '\\0' a")
    body, notice = text.rsplit("\n\n", 1)
    assert body == "a" * 51200
    assert notice.startswith("[Showing last 50.0KB of line 1 (line is 195.3KB). Full output: ")
    os.unlink(notice.split("Full output: ")[1][:-1])


async def test_updates_are_accumulated_and_throttled(tools: dict[str, AgentTool]) -> None:
    updates: list[AgentToolResult] = []
    started = time.monotonic()
    command = "for i in $(seq 1 40); do echo line $i; sleep 0.01; done"
    final = await tools["bash"].execute("t", {"command": command}, None, updates.append)
    elapsed = time.monotonic() - started
    assert updates[0].content == [] and updates[0].details is None  # pi's initial empty update
    texts = [text_of(u) for u in updates[1:]]
    assert len(updates) <= elapsed / 0.1 + 3  # at most ~10 per second
    assert len(updates) >= 2
    for earlier, later in itertools.pairwise(texts):
        assert later.startswith(earlier)  # accumulated, never deltas
    assert text_of(final).endswith("line 40\n")


async def test_timeout_kills_the_group(tools: dict[str, AgentTool], cwd: str) -> None:
    pid_file = os.path.join(cwd, "pid")
    started = time.monotonic()
    with pytest.raises(BashToolError) as info:
        await bash(tools["bash"], f"echo $$ > {pid_file}; echo waiting; sleep 30 & sleep 30", timeout=0.5)
    assert time.monotonic() - started < 5
    assert str(info.value) == "waiting\n\n\nCommand timed out after 0.5 seconds"
    pgid = int(read_bytes(pid_file))
    await _until_gone(pgid)


async def _until_gone(pgid: int) -> None:
    deadline = time.monotonic() + 2
    while live_group_members(pgid) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert live_group_members(pgid) == []


async def _abort_when_started(tool: AgentTool, command: str, pid_file: str) -> tuple[float, BaseException, int]:
    controller = AbortController()
    task = asyncio.ensure_future(tool.execute("t", {"command": command}, controller.signal, None))
    deadline = time.monotonic() + 5
    while not has_content(pid_file):
        assert time.monotonic() < deadline, "command did not start"
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)  # let the background children start too
    aborted_at = time.monotonic()
    controller.abort()
    with pytest.raises(BashToolError) as info:
        await task
    return time.monotonic() - aborted_at, info.value, int(read_bytes(pid_file))


@pytest.mark.parametrize(
    "body",
    [
        "sleep 100",
        "sleep 100 & sleep 100 & wait",
        "trap '' TERM; sleep 100 & while :; do sleep 0.01; done",
    ],
)
async def test_abort_kills_group_within_200ms(tools: dict[str, AgentTool], cwd: str, body: str) -> None:
    pid_file = os.path.join(cwd, "pid")
    command = f"echo started; echo $$ > {pid_file}; {body}"
    elapsed, error, pgid = await _abort_when_started(tools["bash"], command, pid_file)
    print(f"abort of {body!r} returned after {elapsed * 1000:.1f} ms")
    assert elapsed < 1.0  # the requirement is 200 ms; generous margin against a loaded CI machine
    assert str(error) == "started\n\n\nCommand aborted"
    await _until_gone(pgid)


async def test_abort_before_start(tools: dict[str, AgentTool]) -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(BashToolError, match=r"^Command aborted$"):
        await tools["bash"].execute("t", {"command": "echo never"}, controller.signal, None)


async def test_background_job_holding_the_pipe_does_not_hang(tools: dict[str, AgentTool]) -> None:
    started = time.monotonic()
    out = await bash(tools["bash"], "sleep 3 & echo done")
    assert out == "done\n"
    assert time.monotonic() - started < 2.5


async def test_cancellation_kills_the_group(tools: dict[str, AgentTool], cwd: str) -> None:
    pid_file = os.path.join(cwd, "pid")
    task = asyncio.ensure_future(bash(tools["bash"], f"echo $$ > {pid_file}; sleep 100"))
    while not has_content(pid_file):
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _until_gone(int(read_bytes(pid_file)))


async def test_run_bash_for_user_commands(cwd: str) -> None:
    chunks: list[str] = []
    result = await run_bash("printf 'h\\303'; printf '\\251llo\\n'; exit 4", cwd, None, chunks.append)
    assert "".join(chunks) == "héllo\n"  # a character split across writes is decoded whole
    assert result.output == "héllo\n" and result.exit_code == 4
    assert not result.cancelled and not result.timed_out and not result.truncated
    assert result.full_output_path is None and result.notice == ""


async def test_run_bash_reports_signal_deaths_and_bad_cwd(cwd: str) -> None:
    result = await run_bash("kill -9 $$", cwd)
    assert result.exit_code == 137
    with pytest.raises(FileNotFoundError, match="Working directory does not exist"):
        await run_bash("true", os.path.join(cwd, "missing"))


async def test_command_prefix_and_shell(cwd: str) -> None:
    from pi_cli.tools.shell.bash import BashTool

    tool = BashTool(cwd, shell="/bin/sh", command_prefix="GREETING=hi")
    assert text_of(await tool.execute("t", {"command": "echo $GREETING"}, None, None)) == "hi\n"


async def test_running_groups_can_be_killed_on_exit(cwd: str) -> None:
    from pi_cli.tools.shell.bash import kill_tracked_process_groups

    pid_file = os.path.join(cwd, "pid")
    task = asyncio.ensure_future(run_bash(f"echo $$ > {pid_file}; sleep 100 & sleep 100", cwd))
    while not has_content(pid_file):
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)  # the shell can write its pid before run_bash has registered it
    kill_tracked_process_groups()  # what an exit path or a SIGTERM handler calls
    await _until_gone(int(read_bytes(pid_file)))
    result = await asyncio.wait_for(task, 2)
    assert result.exit_code == 137  # the shell died of SIGKILL


async def test_output_written_right_before_exit_is_kept(tools: dict[str, AgentTool]) -> None:
    # The exit can be reported before the last output is read; it must still be collected.
    for _ in range(5):
        assert await bash(tools["bash"], "sleep 0.15; echo late") == "late\n"
