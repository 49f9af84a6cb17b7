"""Record how pi 1.6.0 gives MCP content blocks to the model (tests/fixtures/pi16/mcp_blocks.json).

``python tools/record_pi16_mcp_blocks.py``: Node loads pi's own ``toModelContent`` (from its MCP
extension in the npm package, found as tools/stream_stages.py finds pi) and converts each block of
:data:`BLOCKS` (blobs of text, JSON, image and binary types, base64 without padding, a resource
without data, audio, an unknown type, a resource link). Saved files' paths are written as
``<TMP>/pi-mcp-<HEX><ext>``; tests/mcp/test_mcp_blocks_pi16.py replays the blocks against pi_cli.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from stream_stages import reference_pi  # noqa: E402

OUT = HERE.parent / "tests" / "fixtures" / "pi16" / "mcp_blocks.json"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))


def _blob(uri: str, data: bytes, mime: str | None = None) -> dict[str, object]:
    resource: dict[str, object] = {"uri": uri, "blob": base64.b64encode(data).decode()}
    if mime is not None:
        resource["mimeType"] = mime
    return {"type": "resource", "resource": resource}


BLOCKS = [
    _blob("test://plain", "héllo".encode(), "text/plain"),
    _blob("test://pic", PNG, "image/png"),
    _blob("file:///data/archive.zip", bytes(1280), "application/zip"),
    _blob("test://blob", b"abc"),
    _blob("test://j", b'{"a":1}', "application/vnd.api+json; charset=utf-8"),
    {"type": "resource", "resource": {"uri": "test://x", "mimeType": "application/x"}},
    {"type": "resource", "resource": {"uri": "test://t", "text": "inline"}},
    {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
    {"type": "video", "data": "AA=="},
    {"type": "resource_link", "uri": "file:///b", "name": "b"},
    {"type": "resource", "resource": {"uri": "test://nopad", "mimeType": "application/octet-stream", "blob": "YWJjZA"}},
]
SCRIPT = """
const tools = await import(process.argv[2]);
const out = [];
for (const block of JSON.parse(process.argv[3])) out.push(await tools.toModelContent("s", [block], {}));
console.log(JSON.stringify(out));
"""


def main() -> int:
    pi = reference_pi()
    if pi is None:
        print("pi 1.6.0 not found", file=sys.stderr)
        return 1
    node, cli = pi
    tools = Path(cli).parents[1] / "extensions" / "mcp" / "tools.js"
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "blocks.mjs"
        script.write_text(SCRIPT)
        done = subprocess.run(
            [node, str(script), tools.as_uri(), json.dumps(BLOCKS)], capture_output=True, text=True, check=True
        )
    text = re.sub(r"saved to [^\]]*/pi-mcp-[0-9a-f]{16}", "saved to <TMP>/pi-mcp-<HEX>", done.stdout)
    out = {"_about": "pi 1.6.0's toModelContent per block; written by tools/record_pi16_mcp_blocks.py",
           "blocks": BLOCKS, "pi": json.loads(text)}  # fmt: skip
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
