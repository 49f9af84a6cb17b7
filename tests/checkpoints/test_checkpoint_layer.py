"""pi_cli.checkpoints is a parts-layer package: it must not reach up into sessions or modes."""

from __future__ import annotations

import json
import subprocess
import sys


def test_checkpoints_import_nothing_above_them() -> None:
    probe = "import sys, json, pi_cli.checkpoints\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    above = {m for m in loaded if m.startswith(("pi_cli.session", "pi_cli.modes", "pi_cli.extensions"))}
    assert not above, above
    assert not loaded & {"textual", "prompt_toolkit", "httpx", "pydantic"}
