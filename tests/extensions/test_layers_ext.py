"""Layer rules for pi_cli.extensions (checked in fresh interpreters, as tests/test_layers.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli.pi_harness import PiEnv


def _modules_after(code: str, env: dict[str, str] | None = None) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True, env=env)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_extensions_sit_below_session_and_modes() -> None:
    loaded = _modules_after(
        "import pi_cli.extensions, pi_cli.extensions.loader, pi_cli.extensions.host, "
        "pi_cli.extensions.examples.word_count, pi_cli.extensions.examples.dangerous_bash"
    )
    above = {m for m in loaded if m.startswith(("pi_cli.session", "pi_cli.modes"))}
    assert not above, above


def test_no_extension_imports_nothing_of_extensions(pi: PiEnv, tmp_path: Path) -> None:
    """Without any extension, start-up only stats folders (and a cached entry-point probe)."""
    code = (
        "import os, pathlib, contextlib, io\n"
        "from pi_cli.session.assembly import SessionOptions, create_agent_session\n"
        f"cwd = pathlib.Path({str(pi.cwd)!r})\n"
        "s = create_agent_session(SessionOptions(cwd=cwd, mode='print', no_session=True))\n"
        "assert s.extensions is None\n"
    )
    loaded = _modules_after(code, env=pi.env)
    assert not {m for m in loaded if m.startswith("pi_cli.extensions")}
