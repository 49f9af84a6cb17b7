"""The read tool: paging, truncation notices, images and errors."""

from __future__ import annotations

import base64
import os
import struct
import zlib

import pytest
from tool_helpers import text_of, write_file

from pi_cli.agent.types import AgentTool
from pi_cli.ai.abort import AbortController


async def read(tool: AgentTool, **args: object) -> str:
    return text_of(await tool.execute("t", dict(args), None, None))


async def test_2500_line_file_in_two_calls(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "big.txt", "\n".join(f"line {i}" for i in range(1, 2501)))
    first = await read(tools["read"], path="big.txt")
    body, notice = first.split("\n\n")
    assert body.split("\n")[0] == "line 1" and body.split("\n")[-1] == "line 2000"
    assert notice == "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    second = await read(tools["read"], path="big.txt", offset=2001)
    assert second.split("\n")[0] == "line 2001" and second.endswith("line 2500")
    assert "Showing" not in second


async def test_no_line_numbers_and_small_file_verbatim(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "a.py", "print(1)\nprint(2)\n")
    assert await read(tools["read"], path="a.py") == "print(1)\nprint(2)\n"


async def test_byte_limit_notice(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "wide.txt", "\n".join("w" * 199 for _ in range(600)))  # 120 KB
    text = await read(tools["read"], path="wide.txt")
    assert text.endswith("[Showing lines 1-256 of 600 (50.0KB limit). Use offset=257 to continue.]")


async def test_limit_notice_and_offset(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "n.txt", "\n".join(str(i) for i in range(1, 11)))
    text = await read(tools["read"], path="n.txt", offset=3, limit=2)
    assert text == "3\n4\n\n[6 more lines in file. Use offset=5 to continue.]"
    assert await read(tools["read"], path="n.txt", offset=9.0, limit=5) == "9\n10"


async def test_first_line_too_long(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "min.js", "x" * 61440 + "\nsecond")
    text = await read(tools["read"], path="min.js")
    assert text == "[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"


async def test_offset_beyond_end(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "five.txt", "1\n2\n3\n4\n5")
    with pytest.raises(ValueError, match=r"^Offset 99 is beyond end of file \(5 lines total\)$"):
        await tools["read"].execute("t", {"path": "five.txt", "offset": 99}, None, None)


async def test_missing_directory_and_binary_errors(tools: dict[str, AgentTool], cwd: str) -> None:
    missing = os.path.join(cwd, "nope.txt")
    with pytest.raises(FileNotFoundError) as info:
        await tools["read"].execute("t", {"path": "nope.txt"}, None, None)
    assert str(info.value) == f"ENOENT: no such file or directory, access '{missing}'"
    os.mkdir(os.path.join(cwd, "sub"))
    with pytest.raises(IsADirectoryError, match="sub: it is a directory"):
        await tools["read"].execute("t", {"path": "sub"}, None, None)
    write_file(cwd, "blob.bin", b"\x00\x01\x02binary")
    with pytest.raises(ValueError, match=r"blob\.bin: it is a binary file"):
        await tools["read"].execute("t", {"path": "blob.bin"}, None, None)


async def test_device_files_are_refused(tools: dict[str, AgentTool]) -> None:
    with pytest.raises(ValueError, match="not a regular file"):
        await tools["read"].execute("t", {"path": "/dev/zero"}, None, None)


async def test_invalid_utf8_is_replaced_and_at_prefix_stripped(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "latin.txt", b"caf\xe9 ok")
    assert await read(tools["read"], path="@latin.txt") == "caf\ufffd ok"


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\x00" * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


async def test_image_is_sent_as_image_content(tools: dict[str, AgentTool], cwd: str) -> None:
    data = _png(4, 3)
    write_file(cwd, "pic.dat", data)  # detected by content, not extension
    result = await tools["read"].execute("t", {"path": "pic.dat"}, None, None)
    assert result.content[0] == {"type": "text", "text": "Read image file [image/png]"}
    image = result.content[1]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"]) == data


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\xff\xd8\xff\xe0" + b"\x00" * 20, "image/jpeg"),
        (b"GIF89a\x02\x00\x02\x00" + b"\x00" * 10, "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 20, "image/webp"),
    ],
)
async def test_other_image_types(tools: dict[str, AgentTool], cwd: str, head: bytes, mime: str) -> None:
    write_file(cwd, "img", head)
    result = await tools["read"].execute("t", {"path": "img"}, None, None)
    assert text_of(result) == f"Read image file [{mime}]" and result.content[1]["type"] == "image"


async def test_oversized_image_is_reported_not_sent(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "huge.png", _png(4000, 2))
    result = await tools["read"].execute("t", {"path": "huge.png"}, None, None)
    assert len(result.content) == 1
    text = text_of(result)
    assert text.startswith("Read image file [image/png]\n[Image is too large to attach (4000x2")
    assert "omitted" in text


async def test_aborted_before_start(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "a.txt", "a")
    controller = AbortController()
    controller.abort()
    with pytest.raises(Exception, match="Operation aborted"):
        await tools["read"].execute("t", {"path": "a.txt"}, controller.signal, None)
