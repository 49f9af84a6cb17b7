"""Path resolution, the mutation lock table, atomic writes and control-sequence stripping."""

from __future__ import annotations

import os

import pytest

from pi_cli.tools.files.atomic import atomic_write_bytes
from pi_cli.tools.files.paths import expand_path, resolve_read_path, resolve_to_cwd
from pi_cli.tools.sanitize import strip_control_sequences


def test_relative_absolute_at_and_tilde(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/tester")
    assert resolve_to_cwd("src/a.py", "/proj") == "/proj/src/a.py"
    assert resolve_to_cwd("@src/a.py", "/proj") == "/proj/src/a.py"
    assert resolve_to_cwd("/etc/hosts", "/proj") == "/etc/hosts"
    assert resolve_to_cwd("../x", "/proj/sub") == "/proj/x"
    assert resolve_to_cwd("~/notes.md", "/proj") == "/home/tester/notes.md"
    assert resolve_to_cwd("@~/notes.md", "/proj") == "/home/tester/notes.md"
    assert expand_path("~") == "/home/tester"
    assert expand_path("a\u00a0b") == "a b"


def test_read_path_tries_macos_variants(tmp_path: os.PathLike[str]) -> None:
    base = os.fspath(tmp_path)
    real = os.path.join(base, "Screenshot 2024 at 10.00.00\u202fAM.png")
    open(real, "wb").close()
    assert resolve_read_path("Screenshot 2024 at 10.00.00 AM.png", base) == real
    curly = os.path.join(base, "Capture d\u2019ecran.png")
    open(curly, "wb").close()
    assert resolve_read_path("Capture d'ecran.png", base) == curly
    assert resolve_read_path("missing.txt", base) == os.path.join(base, "missing.txt")


def test_atomic_write_replaces_and_keeps_mode(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(os.fspath(tmp_path), "f.sh")
    with open(path, "w") as handle:
        handle.write("old")
    os.chmod(path, 0o755)
    atomic_write_bytes(path, b"new content")
    with open(path, "rb") as handle:
        assert handle.read() == b"new content"
    assert os.stat(path).st_mode & 0o777 == 0o755
    assert os.listdir(os.fspath(tmp_path)) == ["f.sh"]  # no temp file left behind


def test_atomic_write_failure_leaves_old_file(tmp_path: os.PathLike[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.path.join(os.fspath(tmp_path), "keep.txt")
    with open(path, "w") as handle:
        handle.write("original")

    def boom(src: str, dst: str) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write_bytes(path, b"partial")
    with open(path) as handle:
        assert handle.read() == "original"
    assert os.listdir(os.fspath(tmp_path)) == ["keep.txt"]


def test_atomic_write_follows_symlink(tmp_path: os.PathLike[str]) -> None:
    base = os.fspath(tmp_path)
    target = os.path.join(base, "target.txt")
    link = os.path.join(base, "link.txt")
    with open(target, "w") as handle:
        handle.write("a")
    os.symlink(target, link)
    atomic_write_bytes(link, b"b")
    assert os.path.islink(link)
    with open(target) as handle:
        assert handle.read() == "b"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[1;31mred\x1b[0m plain", "red plain"),
        ("\x1b]0;window title\x07after", "after"),
        ("\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("tab\there\nnext", "tab\there\nnext"),
        ("crlf\r\nline", "crlf\nline"),
        ("progress 10%\rprogress 100%\ndone", "progress 100%\ndone"),
        ("trailing cr\r", "trailing cr"),
        ("bell\x07 back\x08 nul\x00", "bell back nul"),
        ("\x1b(Bcharset \x1b7saved\x1b8", "charset saved"),
        ("\x9b31mc1 csi", "c1 csi"),
        ("\x1bPq#0;2;0;0;0\x1b\\sixel gone", "sixel gone"),
        ("unicode \u00e9\u4e2d\U0001f600 stays", "unicode \u00e9\u4e2d\U0001f600 stays"),
    ],
)
def test_strip_control_sequences(raw: str, clean: str) -> None:
    assert strip_control_sequences(raw) == clean
