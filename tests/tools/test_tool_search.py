"""grep, find and ls: output formats, limits, .gitignore and errors."""

from __future__ import annotations

import os

import pytest
from tool_helpers import text_of, write_file

from pi_cli.agent.types import AgentTool
from pi_cli.ai.abort import AbortController
from pi_cli.tools.files import rg
from pi_cli.tools.files.globs import compile_glob


async def run(tool: AgentTool, **args: object) -> str:
    return text_of(await tool.execute("t", dict(args), None, None))


@pytest.fixture
def project(cwd: str) -> str:
    write_file(cwd, "src/app.py", "import os\n\ndef main():\n    return os.getcwd()\n")
    write_file(cwd, "src/util/helpers.py", "def helper():\n    return 'Main'\n")
    write_file(cwd, "README.md", "# Main project\n")
    write_file(cwd, ".hidden/conf.py", "main = 1\n")
    write_file(cwd, ".gitignore", "build/\n*.log\n")
    write_file(cwd, "build/out.py", "def main(): pass\n")
    write_file(cwd, "debug.log", "main failed\n")
    write_file(cwd, ".git/config", "main\n")
    return cwd


async def test_grep_format_and_gitignore(tools: dict[str, AgentTool], project: str) -> None:
    out = await run(tools["grep"], pattern="main")
    # ripgrep searches in parallel, so files come in no fixed order (as in pi).
    assert sorted(out.split("\n")) == [".hidden/conf.py:1: main = 1", "src/app.py:3: def main():"]


async def test_grep_context_ignore_case_glob_literal(tools: dict[str, AgentTool], project: str) -> None:
    out = await run(tools["grep"], pattern="def main", context=1, path="src")
    assert out.split("\n") == ["app.py-2- ", "app.py:3: def main():", "app.py-4-     return os.getcwd()"]
    out = await run(tools["grep"], pattern="MAIN", ignoreCase=True, glob="*.md")
    assert out == "README.md:1: # Main project"
    assert await run(tools["grep"], pattern="os.getcwd()", literal=True) == "src/app.py:4:     return os.getcwd()"
    assert await run(tools["grep"], pattern="-pattern-with-dash") == "No matches found"


async def test_grep_single_file_uses_basename(tools: dict[str, AgentTool], project: str) -> None:
    assert await run(tools["grep"], pattern="helper", path="src/util/helpers.py") == "helpers.py:1: def helper():"


async def test_grep_limit_and_long_lines(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "many.txt", "".join(f"hit {i}\n" for i in range(10)) + "hit " + "z" * 600 + "\n")
    out = await run(tools["grep"], pattern="hit", limit=3)
    assert out == (
        "many.txt:1: hit 0\nmany.txt:2: hit 1\nmany.txt:3: hit 2\n\n"
        "[3 matches limit reached. Use limit=6 for more, or refine pattern]"
    )
    out = await run(tools["grep"], pattern="zzz")
    assert out == (
        "many.txt:11: hit " + "z" * 496 + "... [truncated]\n\n"
        "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )


async def test_grep_errors(tools: dict[str, AgentTool], cwd: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError, match=f"^Path not found: {os.path.join(cwd, 'nope')}$"):
        await run(tools["grep"], pattern="x", path="nope")
    write_file(cwd, "a.txt", "text\n")
    with pytest.raises(RuntimeError, match="regex parse error"):
        await run(tools["grep"], pattern="(unclosed")
    monkeypatch.setattr(rg, "find_rg", lambda: None)
    with pytest.raises(FileNotFoundError, match=r"ripgrep \(rg\) is not available"):
        await run(tools["grep"], pattern="text")


async def test_grep_abort(tools: dict[str, AgentTool], project: str) -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(Exception, match="Operation aborted"):
        await tools["grep"].execute("t", {"pattern": "main"}, controller.signal, None)


async def test_find_by_name_and_path(tools: dict[str, AgentTool], project: str) -> None:
    assert (await run(tools["find"], pattern="*.py")).split("\n") == [
        ".hidden/conf.py",
        "src/app.py",
        "src/util/helpers.py",
    ]
    assert await run(tools["find"], pattern="src/**/*.py") == "src/app.py\nsrc/util/helpers.py"
    assert await run(tools["find"], pattern="util/*.py") == "src/util/helpers.py"
    assert await run(tools["find"], pattern="util") == "src/util/"
    assert await run(tools["find"], pattern="*.{md,log}") == "README.md"  # debug.log is ignored
    assert await run(tools["find"], pattern="readme.md") == "README.md"  # smart case
    assert await run(tools["find"], pattern="Readme.md") == "No files found matching pattern"
    assert await run(tools["find"], pattern="*.py", path="src/util") == "helpers.py"


async def test_find_limit_and_errors(tools: dict[str, AgentTool], cwd: str) -> None:
    for i in range(5):
        write_file(cwd, f"f{i}.txt", "")
    out = await run(tools["find"], pattern="*.txt", limit=2)
    assert out == "f0.txt\nf1.txt\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    with pytest.raises(FileNotFoundError, match=r"^Path not found: "):
        await run(tools["find"], pattern="*", path="missing")
    with pytest.raises(NotADirectoryError, match=r"^Not a directory: "):
        await run(tools["find"], pattern="*", path="f0.txt")


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a/b/c.py", True),
        ("*.py", "a/b/c.pyc", False),
        ("**/*.py", "c.py", True),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/x/a.py", False),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("test_?.py", "test_1.py", True),
        ("[ab]*.txt", "b1.txt", True),
        ("[!ab]*.txt", "b1.txt", False),
        ("*.{js,ts}", "x.ts", True),
    ],
)
def test_glob_rules(pattern: str, path: str, expected: bool) -> None:
    assert compile_glob(pattern).matches(path) is expected


async def test_ls(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "b.txt", "")
    write_file(cwd, "A.txt", "")
    write_file(cwd, ".env", "")
    os.mkdir(os.path.join(cwd, "sub"))
    os.symlink(os.path.join(cwd, "sub"), os.path.join(cwd, "link"))
    assert await run(tools["ls"]) == ".env\nA.txt\nb.txt\nlink/\nsub/"
    assert await run(tools["ls"], path="sub") == "(empty directory)"
    out = await run(tools["ls"], limit=2)
    assert out == ".env\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"


async def test_ls_errors(tools: dict[str, AgentTool], cwd: str) -> None:
    with pytest.raises(FileNotFoundError) as info:
        await run(tools["ls"], path="nope")
    assert str(info.value) == f"Path not found: {os.path.join(cwd, 'nope')}"
    write_file(cwd, "file.txt", "")
    with pytest.raises(NotADirectoryError) as info2:
        await run(tools["ls"], path="file.txt")
    assert str(info2.value) == f"Not a directory: {os.path.join(cwd, 'file.txt')}"


async def test_grep_limit_notice_only_when_more_matches_exist(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "three.txt", "hit\nmiss\nhit\nmiss\nhit\n")
    assert await run(tools["grep"], pattern="hit", limit=3) == "three.txt:1: hit\nthree.txt:3: hit\nthree.txt:5: hit"


async def test_grep_context_merges_and_trails_the_last_match(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "c.txt", "a\nHIT1\nb\nHIT2\nc\nd\ne\nHIT3\nf\n")
    out = await run(tools["grep"], pattern="HIT", context=1, limit=2)
    assert out == (
        "c.txt-1- a\nc.txt:2: HIT1\nc.txt-3- b\nc.txt:4: HIT2\nc.txt-5- c\n\n"
        "[2 matches limit reached. Use limit=4 for more, or refine pattern]"
    )


async def test_grep_crlf_and_invalid_utf8_lines(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "w.txt", b"first\r\nneedle \xff here\r\n")
    assert await run(tools["grep"], pattern="needle") == "w.txt:2: needle \ufffd here"
