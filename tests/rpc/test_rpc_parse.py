"""Commands with no field but ``id`` and ``type`` are checked without pydantic, and come out as
pydantic would have made them: the same id (or the same one-line error) whatever the id is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_cli.modes.rpc import commands
from pi_cli.modes.rpc.protocol import COMMAND_MODELS, Command, CommandError, parse_command

ROOT = Path(__file__).resolve().parents[2]
PLAIN = sorted(kind for kind, model in COMMAND_MODELS.items() if model is None)
IDS: list[Any] = ["m1", "", "ünï\u2028", 0, -7, 10**30, 1.5, float("inf"), None, True, False, [1], {"a": 1}]


def _pydantic_says(obj: dict[str, Any]) -> Any:
    try:
        validated = commands.FieldCommand.model_validate(obj)
    except Exception:
        return "invalid"
    return (type(validated.id), validated.id)


@pytest.mark.parametrize("kind", PLAIN)
def test_plain_commands_keep_what_pydantic_makes_of_the_id(kind: str) -> None:
    for request_id in IDS:
        obj = {"type": kind, "id": request_id, "extra": 1}
        try:
            parsed = parse_command(obj)
        except CommandError as exc:
            assert _pydantic_says(obj) == "invalid"
            assert exc.message.startswith(f"Invalid {kind} command: id.")
            continue
        assert isinstance(parsed, Command) and parsed.type == kind
        assert (type(parsed.id), parsed.id) == _pydantic_says(obj), request_id
    assert parse_command({"type": kind}) == Command(kind, None)


def test_every_named_model_exists() -> None:
    for kind, model in COMMAND_MODELS.items():
        if model is not None:
            assert issubclass(getattr(commands, model), commands.FieldCommand), kind


def test_a_plain_command_is_answered_without_importing_pydantic() -> None:
    code = (
        "import sys\n"
        "from pi_cli.modes.rpc import server\n"
        "from pi_cli.modes.rpc.protocol import parse_command\n"
        "parse_command({'type': 'get_messages', 'id': 'm'})\n"
        "assert 'pydantic' not in sys.modules, 'pydantic imported'\n"
        "parse_command({'type': 'prompt', 'message': 'hi'})\n"
        "assert 'pydantic' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)})
