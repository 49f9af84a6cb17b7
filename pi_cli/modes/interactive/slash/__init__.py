"""The TUI's slash commands: the runner that parses ``/name args`` and dispatches, and one
module per group (sessions, login, MCP, permissions, rewind).
"""
