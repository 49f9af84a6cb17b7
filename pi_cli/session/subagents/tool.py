"""The ``subagent`` tool, with pi-subagents' parameters.

* single: ``{"agent": "scout", "task": "..."}``;
* parallel: ``{"tasks": [{"agent": "scout", "task": "..."}, {"agent": "reviewer", "task": "..."}]}``
  (at most :data:`MAX_TASKS`; they run at most ``subagents.maxConcurrency`` at a time);
* optional ``model`` (``provider/id[:thinking]``, beats the agent's) and ``cwd`` (relative to the
  session's); each task may carry its own ``cwd`` and ``model``.

Each child is a fresh session (:class:`~pi_cli.session.subagents.runtime.SubagentRuntime`):
the agent's prompt, the project's context files, the task as its only message. The result is one
labelled section per task holding the child's final answer; ``details`` carry each child's
usage, cost, turns and session file (:mod:`pi_cli.session.subagents.progress`). Bad parameters
(no mode or two, an unknown agent, a missing folder) fail the call with one line naming them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.session.subagents.calls import ChildRequest, SubagentCall
from pi_cli.session.subagents.runtime import SubagentRuntime

MAX_TASKS = 8
SNIPPET = "Delegate a focused task to a subagent with a fresh context (several run in parallel)"

_TASK_ITEM = {
    "type": "object",
    "properties": {
        "agent": {"type": "string", "description": "Name of the agent to invoke"},
        "task": {"type": "string", "description": "Task to delegate to the agent"},
        "cwd": {"type": "string", "description": "Working directory for the agent"},
        "model": {"type": "string", "description": "Model for this agent (provider/id)"},
    },
    "required": ["agent", "task"],
}
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "agent": {"type": "string", "description": "Name of the agent to invoke (for single mode)"},
        "task": {"type": "string", "description": "Task to delegate (for single mode)"},
        "tasks": {"type": "array", "items": _TASK_ITEM, "description": "Array of {agent, task} for parallel execution"},
        "model": {"type": "string", "description": "Model override for the agents (provider/id, optionally :thinking)"},
        "cwd": {"type": "string", "description": "Working directory for the agents (default: the session's)"},
    },
}


def describe(runtime: SubagentRuntime[Any]) -> str:
    """The tool's description: what it does and every agent with its description."""
    agents = "\n".join(f"- {agent.name}: {agent.description}" for agent in runtime.catalog.listed())
    return (
        "Delegate tasks to specialized subagents, each with an isolated context: it sees only its own "
        "instructions, the project's context files and the task, and returns only its final answer.\n"
        "Modes: single ({agent, task}) or parallel ({tasks: [{agent, task}, ...]}, up to "
        f"{MAX_TASKS} tasks, {runtime.max_concurrency} running at once). Write each task so it stands "
        "alone: the subagent does not see this conversation.\n"
        f"Available agents:\n{agents}"
    )


class SubagentTool:
    """The AgentTool over one session's :class:`SubagentRuntime`."""

    name = "subagent"
    label = "Subagent"
    parameters = PARAMETERS
    execution_mode = None

    def __init__(self, runtime: SubagentRuntime[Any]) -> None:
        self._runtime = runtime
        self.description = describe(runtime)

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        runtime = self._runtime
        requests = self._requests(args)
        call = SubagentCall(
            requests,
            runtime.spawn,
            runtime.slots,
            on_update,
            lambda index, child: runtime.child_started(tool_call_id, index, child),
        )
        runtime.remember(tool_call_id, call)
        return await call.run(signal)

    # -- parameters --------------------------------------------------------------------------

    def _available(self) -> str:
        agents = self._runtime.catalog.listed()
        return ", ".join(f"{agent.name} ({agent.source})" for agent in agents) or "none"

    def _requests(self, args: dict[str, Any]) -> list[ChildRequest]:
        """The children the arguments ask for; raises ValueError with pi-subagents' wording."""
        tasks = args.get("tasks") or []
        single = bool(args.get("agent")) and bool(args.get("task"))
        if (len(tasks) > 0) + single != 1:
            raise ValueError(f"Invalid parameters. Provide exactly one mode.\nAvailable agents: {self._available()}")
        if len(tasks) > MAX_TASKS:
            raise ValueError(f"Too many parallel tasks ({len(tasks)}). Max is {MAX_TASKS}.")
        items = tasks if tasks else [{"agent": args["agent"], "task": args["task"]}]
        base = self._runtime.session.cwd
        default_cwd = self._folder(base, args.get("cwd"))
        totals: dict[str, int] = {}
        for item in items:
            totals[str(item["agent"])] = totals.get(str(item["agent"]), 0) + 1
        seen: dict[str, int] = {}
        requests: list[ChildRequest] = []
        for item in items:
            name = str(item["agent"])
            agent = self._runtime.agent_named(name)
            if agent is None:
                raise ValueError(f'Unknown agent: "{name}". Available agents: {self._available()}')
            seen[name] = seen.get(name, 0) + 1
            label = name if totals[name] == 1 else f"{name} #{seen[name]}"  # repeats are numbered
            cwd = self._folder(base, item.get("cwd")) if item.get("cwd") else default_cwd
            model = item.get("model") or args.get("model") or None
            requests.append(ChildRequest(agent, str(item["task"]), cwd, model, label))
        return requests

    @staticmethod
    def _folder(base: Path, value: Any) -> Path:
        if not value:
            return base
        folder = (base / Path(str(value)).expanduser()).resolve()
        if not folder.is_dir():
            raise ValueError(f"cwd is not a directory: {folder}")
        return folder
