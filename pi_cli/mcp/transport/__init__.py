"""The wire under an MCP client: JSON-RPC 2.0 framing and dispatch, and the stdio and
streamable HTTP transports.
"""
