"""Permissions: project trust (which project resources load) and the tool approval gate.

Layer: "parts" (beside extensions, mcp, resources); imports config and may import extensions,
never session or modes. ``pi_cli.permissions.trust.is_project_trusted`` is the one call other
parts use to decide whether to read protected project files.
"""
