"""Subagents: the ``subagent`` tool and the child sessions it runs.

A session's :class:`~pi_cli.session.subagents.runtime.SubagentRuntime` (the session part
``session.subagents``) holds the agent definitions (:mod:`pi_cli.resources.agents`) and the child
factory the assembly hands it; :class:`~pi_cli.session.subagents.tool.SubagentTool` parses a call
into child requests; :class:`~pi_cli.session.subagents.calls.SubagentCall` runs them (concurrency,
progress, abort); :mod:`~pi_cli.session.subagents.progress` follows one child's events and
:mod:`~pi_cli.session.subagents.display` turns a call's details into text for every front end.
The children themselves are built by :mod:`pi_cli.session.assembly.children`, through the same
``build_session`` as every session.
"""
