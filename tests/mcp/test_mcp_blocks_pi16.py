"""MCP content blocks reach the model as pi 1.6.0 gives them (its own ``toModelContent`` run by
tools/record_pi16_mcp_blocks.py into tests/fixtures/pi16/mcp_blocks.json; no Node here): text and
JSON blobs decoded, image blobs as images, other blobs saved to ``<tmp>/pi-mcp-<hex><ext>`` and
named with their size, pi's placeholders for audio, unknown blocks and data-less resources."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest

from pi_cli.mcp.results import map_call_result

RECORDED = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "pi16" / "mcp_blocks.json").read_text())
SAVED = re.compile(r"saved to (\S*/pi-mcp-[0-9a-f]{16}(\.\w+))\]$")


@pytest.mark.parametrize("index", range(len(RECORDED["blocks"])))
def test_block_reaches_the_model_as_pi(index: int) -> None:
    block, expected = RECORDED["blocks"][index], RECORDED["pi"][index]
    content = [dict(b) for b in map_call_result("s", "t", {"content": [block]}).content]
    if content and content[0].get("type") == "text" and (found := SAVED.search(str(content[0]["text"]))):
        path = Path(found.group(1))
        assert path.parent == Path(tempfile.gettempdir()) and path.stat().st_mode & 0o777 == 0o600
        path.unlink()
        content[0]["text"] = str(content[0]["text"]).replace(found.group(1), "<TMP>/pi-mcp-<HEX>" + found.group(2))
    assert content == expected
