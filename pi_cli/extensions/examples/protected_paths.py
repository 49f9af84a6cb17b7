"""Protected paths: the agent may read ``.env*`` files and ``.git/``, never write them.

``pi -e example:protected_paths``. ``write`` and ``edit`` calls on a protected path are blocked,
and so are ``bash`` commands that obviously write one (a ``>``/``>>`` redirection, ``tee``, ``cp``,
``mv``, ``rm``, ``touch``, ``sed -i`` … naming it). The block reason goes back to the model as the
tool result, so it can choose another way. This is a guard against slips, not a sandbox: a
determined command (``python -c …``, a variable holding the path) is not recognised.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath
from typing import Any

from pi_cli.extensions import ExtensionAPI

# Commands that change the files named in their arguments (sed only with -i, dd only via of=).
WRITERS = frozenset(
    {"tee", "cp", "mv", "rm", "touch", "truncate", "ln", "install", "unlink", "shred", "chmod", "chown", "rmdir"}
)
_SEGMENT = re.compile(r"\|\||&&|[;|&\n]")
_REDIRECT = re.compile(r"(?<![<&0-9])[0-9]?>>?\|?\s*([^\s;&|<>]+)")
_COPIERS = frozenset({"cp", "ln", "install"})
_PREFIXES = frozenset({"sudo", "command", "env", "nohup", "time", "xargs"})


def is_protected(path: str) -> bool:
    """``.env``, ``.env.local``, ``x/.env.prod``; ``.git`` itself and anything inside a ``.git`` folder."""
    parts = PurePath(path.strip().strip("'\"")).parts
    if not parts:
        return False
    return parts[-1].startswith(".env") or ".git" in parts


def bash_target(command: str) -> str | None:
    """The protected path an obviously writing ``command`` names, if any."""
    for match in _REDIRECT.finditer(command):
        if is_protected(match.group(1)):
            return match.group(1)
    for segment in _SEGMENT.split(command):
        try:
            words = shlex.split(segment)
        except ValueError:  # unbalanced quotes: fall back to plain words
            words = segment.split()
        while words and ("=" in words[0] or words[0] in _PREFIXES):
            words = words[1:]  # FOO=1 sudo cp … → cp …
        if not words:
            continue
        program = PurePath(words[0]).name
        args = words[1:]
        if program == "sed" and not any(a.startswith("-i") or a == "--in-place" for a in args):
            continue
        if program == "dd":
            args = [a[3:] for a in args if a.startswith("of=")]
        elif program not in WRITERS and program != "sed":
            continue
        operands = [a for a in args if not a.startswith("-")]
        if program in _COPIERS:
            operands = operands[-1:]  # the source is only read; the destination is written
        for arg in operands:
            if is_protected(arg):
                return arg
    return None


def reason_for(path: str) -> str:
    return (
        f"Path '{path}' is protected by the protected_paths extension: .env* files and .git/ may be read "
        "but not written. Leave it unchanged or ask the user to edit it."
    )


def register(pi: ExtensionAPI) -> None:
    def on_tool_call(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        tool, args = event["toolName"], event["input"]
        if tool in ("write", "edit"):
            path = str(args.get("path") or args.get("file_path") or "")
            if path and is_protected(path):
                return {"block": True, "reason": reason_for(path)}
        elif tool == "bash":
            target = bash_target(str(args.get("command", "")))
            if target is not None:
                return {"block": True, "reason": reason_for(target)}
        return None

    pi.on("tool_call", on_tool_call)
