"""MCP servers: configuration, clients (stdio and streamable HTTP) and their tools.

Nothing here is imported unless a server is configured: the session asks
:func:`pi_cli.mcp.probe.has_mcp_config` (two stats, nothing imported) before importing the rest.
This package sits beside ``extensions``: it must not import ``pi_cli.session`` or ``pi_cli.modes``.
"""
