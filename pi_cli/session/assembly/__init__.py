"""The one place sessions are assembled: options → parts → Agent with its hook chains → AgentSession.

:func:`create_agent_session` builds the session a mode asks for (settings, models, extensions,
session file, tools, prompt resources, MCP runtime, approval gate, subagents); :func:`build_session`
builds one from given parts (embedders, tests, and a subagent's child session, which
:mod:`~pi_cli.session.assembly.children` assembles from its parent's parts). :class:`SessionParts` holds the optional
parts and writes the order of the agent's hook chains.
"""

from __future__ import annotations

from pi_cli.session.assembly.assemble import build_session
from pi_cli.session.assembly.builder import create_agent_session, load_registry, session_themes
from pi_cli.session.assembly.options import SessionOptions
from pi_cli.session.assembly.parts import SessionParts

__all__ = [
    "SessionOptions",
    "SessionParts",
    "build_session",
    "create_agent_session",
    "load_registry",
    "session_themes",
]
