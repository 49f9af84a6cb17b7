"""Errors of the MCP client; every message names the server it concerns."""

from __future__ import annotations


class McpError(Exception):
    """A failure talking to one MCP server (connect, timeout, crash, protocol, JSON-RPC error)."""


class McpTimeout(McpError):
    """A request got no answer within the server's ``timeout``."""


class McpClosed(McpError):
    """The server went away (process exited, stream closed) while a request was pending."""
