"""What a caller asks of a new AgentSession (the CLI fills it from its flags).

Plain data, standard library only, so the CLI can build it before anything heavy is imported.
Session flags (``continue_``, ``resume``, ``session``, ``fork``, ``session_dir``, ``no_session``)
are consumed by the session manager; the rest choose model, tools, prompt resources and the
optional parts (extensions, MCP servers, the approval gate).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class SessionOptions:
    """Options for :func:`pi_cli.session.assembly.create_agent_session`; ``None`` leaves it to
    settings. Fields shared with :class:`pi_cli.cli_args.CliArgs` are copied from it by name."""

    cwd: Path
    mode: str = "interactive"  # interactive | inline | print | json | rpc
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    models: list[str] | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    tools: list[str] | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    no_context_files: bool = False
    no_skills: bool = False
    skills: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    continue_: bool = False
    resume: bool = False
    session: str | None = None
    fork: str | None = None
    session_dir: str | None = None
    no_session: bool = False
    offline: bool = False
    verbose: bool = False
    extensions: list[str] = field(default_factory=list)  # -e entries
    no_extensions: bool = False
    extension_flags: dict[str, str | bool] = field(default_factory=dict)  # --name[=value] for them
    no_mcp: bool = False
    permissions: str | None = None  # --permissions auto|ask|read-only (beats settings)
    sandbox: str | None = None  # --sandbox off|workspace|read-only (beats settings)
    themes: list[str] = field(default_factory=list)  # --theme paths (files or folders)
    no_themes: bool = False
    use_theme: str | None = None  # --use-theme NAME: this run's theme (beats settings, not saved)
    # Tests and embedders: a stream function replacing pi_cli.ai.stream.stream.
    stream_fn: Any = None
    # MCP server configs from elsewhere (an ACP client's), beside mcp.json's.
    mcp_servers: list[Any] = field(default_factory=list)
    # Extensions an earlier pass loaded before project trust was decided: (runner, error lines).
    preloaded_extensions: Any = None

    @property
    def interactive(self) -> bool:
        return self.mode in ("interactive", "inline")
