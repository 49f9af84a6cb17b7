"""Resolving ``env`` and ``headers`` values of an ``mcp.json`` entry at connect time.

``!command`` (the whole value) goes through the models.json resolver
(:func:`pi_cli.config.auth.resolve_config_value`, cached per process). Any other value is a template
as in pi 1.6: ``${NAME}`` and ``$NAME`` are replaced by that environment variable, ``$$`` is a
literal ``$``. A variable that is unset or empty is an error naming the server, the field and the
variable — never the value.
"""

from __future__ import annotations

import os
import re

from pi_cli.config.auth import resolve_config_value

_REF = re.compile(r"\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


class McpValueError(ValueError):
    """A value could not be resolved; one line naming server, field and variable or command."""


def resolve_value(value: str, where: str) -> str:
    """``value`` resolved; ``where`` (e.g. ``server "gh" env "TOKEN"``) names it in errors."""
    if value.startswith("!"):
        resolved = resolve_config_value(value)
        if resolved is None:
            raise McpValueError(f"{where}: the command printed nothing or failed")
        return resolved

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1) or match.group(2)
        env = os.environ.get(name)
        if not env:
            raise McpValueError(f"{where}: environment variable {name} is not set")
        return env

    return _REF.sub(substitute, value)


def resolve_map(values: dict[str, str], server: str, kind: str) -> dict[str, str]:
    """Every value of ``env`` or ``headers`` resolved (``kind`` names which in errors)."""
    return {key: resolve_value(value, f'MCP server "{server}" {kind} "{key}"') for key, value in values.items()}
