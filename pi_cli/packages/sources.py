"""Package source strings: what a ``pi install`` argument or a ``packages`` entry names.

* ``pip:SPEC`` — a pip requirement (``name``, ``name==1.2``, ``name>=1``) or anything pip installs
  (a wheel file, a project folder, ``git+https://…``); pinned when it says ``==``.
* ``git:URL[@REF]`` — ``git:github.com/u/r``, ``git:git@host:u/r``, ``git:file:///abs/repo``,
  ``git:/abs/repo``; a bare ``https://``, ``http://``, ``ssh://`` or ``git://`` URL is git too (as
  pi). A ref (tag, branch, commit) pins the checkout.
* ``npm:…`` — pi's Node packages; pi_cli refuses them with one line.
* anything else — a local path, used in place (never copied).

Identity (pi's rule, so one package never loads twice): pip by canonical project name, git by
host/path without the ref, local by resolved absolute path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

SourceKind = Literal["pip", "git", "local"]
_URL_SCHEMES = ("https://", "http://", "ssh://", "git://")
_PIP_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


class SourceError(ValueError):
    """A source string that cannot name a package; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class PackageSource:
    """One parsed source. ``location`` is the pip spec, the git clone URL or the local path as
    written; ``name`` is the pip project name or the git ``host/path``; ``ref`` the git ref."""

    raw: str
    kind: SourceKind
    location: str
    name: str = ""
    ref: str | None = None

    @property
    def pinned(self) -> bool:
        """A git ref or an exact pip version: ``pi update`` keeps it where it is."""
        if self.kind == "git":
            return self.ref is not None
        return self.kind == "pip" and "==" in self.location

    def identity(self, base: Path) -> str:
        """The key that makes two declarations the same package (``base`` resolves local paths)."""
        if self.kind == "pip":
            return f"pip:{canonical_name(self.name)}"
        if self.kind == "git":
            return f"git:{self.name}"
        return f"local:{self.local_path(base)}"

    def local_path(self, base: Path) -> Path:
        """A local source's absolute path: ``~`` expanded, relative ones taken from ``base``."""
        path = Path(os.path.expanduser(self.location.strip()))
        return Path(os.path.normpath(path if path.is_absolute() else base / path))


def canonical_name(name: str) -> str:
    """PEP 503 normalisation: ``My_Pkg`` and ``my-pkg`` are one project."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _safe_parts(text: str) -> bool:
    return bool(text) and all(part not in ("", ".", "..") for part in text.split("/"))


def _split_ref(path: str) -> tuple[str, str | None]:
    """``u/r@v1`` → (``u/r``, ``v1``); the last ``@`` of the path part separates the ref."""
    head, at, ref = path.rpartition("@")
    if at and head and ref and "/" not in ref:
        return head, ref
    return path, None


def parse_git(raw: str, url: str) -> PackageSource:
    """A git source from the URL part of ``raw`` (after any ``git:`` prefix)."""
    url = url.strip()
    if url.startswith("file://") or url.startswith("/"):
        path, ref = _split_ref(url.removeprefix("file://"))
        if not path.startswith("/"):
            raise SourceError(f"Invalid git source: {raw} (a file:// URL needs an absolute path)")
        clean = os.path.normpath(path)
        return PackageSource(raw, "git", clean, "local/" + clean.strip("/").removesuffix(".git"), ref)
    scp = re.match(r"^git@([^:/]+):(.+)$", url)
    if scp:
        host, rest = scp.group(1), scp.group(2)
        path, ref = _split_ref(rest)
        clone = f"git@{host}:{path}"
    elif url.startswith(_URL_SCHEMES):
        parts = urlsplit(url)
        path, ref = _split_ref(parts.path.lstrip("/"))
        host = parts.hostname or ""
        clone = url[: len(url) - len(ref) - 1] if ref else url
    else:  # pi's shorthand: host/user/repo → https://host/user/repo
        host, _, rest = url.partition("/")
        if "." not in host and host != "localhost":
            raise SourceError(f"Invalid git source: {raw} (expected host/user/repo or a URL)")
        path, ref = _split_ref(rest)
        clone = f"https://{host}/{path}"
    path = path.strip("/").removesuffix(".git")
    if not host or path.count("/") < 1 or not _safe_parts(path) or not _safe_parts(host):
        raise SourceError(f"Invalid git source: {raw} (expected host/user/repo)")
    return PackageSource(raw, "git", clone, f"{host}/{path}", ref)


def _pip_name(spec: str, raw: str) -> str:
    """The project name a pip spec installs: from a requirement, a wheel file name or a folder."""
    looks_like_path = spec.startswith((".", "/", "~")) or os.sep in spec or spec.endswith((".whl", ".tar.gz", ".zip"))
    if "://" in spec or spec.startswith("git+"):
        egg = re.search(r"[#&]egg=([A-Za-z0-9._-]+)", spec)
        if egg:
            return egg.group(1)
        tail = urlsplit(spec.removeprefix("git+")).path.rstrip("/").rpartition("/")[2]
        return _split_ref(tail)[0].removesuffix(".git") or spec
    if looks_like_path:
        base = os.path.basename(spec.rstrip("/"))
        if base.endswith(".whl"):
            return base.split("-")[0]
        return re.sub(r"(-\d[^-]*)?(\.tar\.gz|\.zip)$", "", base)
    match = _PIP_NAME.match(spec)
    if not match:
        raise SourceError(f"Invalid pip source: {raw} (expected pip:NAME or pip:NAME==VERSION)")
    return match.group(1)


def parse_source(raw: str) -> PackageSource:
    """Parse ``raw``; raises :class:`SourceError` with a one-line message."""
    text = raw.strip()
    if not text:
        raise SourceError("Missing package source")
    if text.startswith("npm:"):
        raise SourceError(f"Unsupported install source: {text} (npm packages are for pi on Node; use pip: or git:)")
    if text.startswith("pip:"):
        spec = text[4:].strip()
        if not spec:
            raise SourceError(f"Invalid pip source: {raw} (expected pip:NAME)")
        name = _pip_name(spec, text)
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):  # it names the install folder
            raise SourceError(f"Invalid pip source: {raw} (cannot tell the project name)")
        return PackageSource(text, "pip", spec, name)
    if text.startswith("git:"):
        return parse_git(text, text[4:])
    if text.lower().startswith(_URL_SCHEMES):
        return parse_git(text, text)
    return PackageSource(text, "local", text)


def settings_form(source: PackageSource, cwd: Path, base: Path) -> str:
    """How a source is written into a settings file whose folder is ``base``: a local path
    relative to that folder (``.`` for the folder itself), as pi stores it; others verbatim."""
    if source.kind != "local":
        return source.raw
    resolved = source.local_path(cwd)
    return os.path.relpath(resolved, base) if resolved != base else "."
