"""``auth.json``: stored credentials, pi's format ``{"<provider>": {"type": "api_key", "key": "..."}}``.

The file holds secrets, so it is created with mode 0600 inside a 0700 directory and every write goes
through a temp file and an atomic rename. Key values may be ``!command`` (its stdout), the name of an
environment variable, or the key itself: :func:`resolve_config_value` implements that rule for
``auth.json`` and ``models.json`` alike. OAuth records written by pi are kept intact, but pi_cli
resolves and refreshes them through :mod:`pi_cli.oauth` (the model registry asks it), so here
they resolve to no key.

Nothing here ever puts a key into an error message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pi_cli.config import paths
from pi_cli.config.json_file import write_json_atomic

_command_cache: dict[str, str | None] = {}
_COMMAND_TIMEOUT_S = 10.0


def _run_key_command(command: str) -> str | None:
    """stdout of ``command`` in the shell, stripped; ``None`` on failure, timeout or empty output."""
    import subprocess  # only when a "!command" value is used: keeps start-up imports small

    try:
        result = subprocess.run(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=_COMMAND_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    value = result.stdout.decode("utf-8", errors="replace").strip()
    return value or None


def resolve_config_value(value: str) -> str | None:
    """pi's rule for key and header values.

    ``"!cmd"`` runs ``cmd`` in the shell once per process and uses its trimmed stdout (``None`` if it
    fails or prints nothing); otherwise an environment variable of that name wins if set and
    non-empty; otherwise the value is used literally.
    """
    if value.startswith("!"):
        if value not in _command_cache:
            _command_cache[value] = _run_key_command(value[1:])
        return _command_cache[value]
    return os.environ.get(value) or value


def clear_config_value_cache() -> None:
    """Forget cached ``!command`` results (tests, ``/reload``)."""
    _command_cache.clear()


class AuthError(ValueError):
    """auth.json could not be written; one line naming the file, never a key."""


class AuthStore:
    """Credentials in ``auth.json`` (``PI_CODING_AGENT_DIR`` or ``~/.pi/agent``).

    Reads are lazy and cached; :meth:`reload` re-reads. A file that is not valid JSON yields no
    credentials and one line in :attr:`errors`, and is never overwritten by :meth:`set_api_key`.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else paths.auth_json_path()
        self.errors: list[str] = []
        self._data: dict[str, Any] | None = None

    # --- reading ----------------------------------------------------------------------------

    def _load(self) -> dict[str, Any]:
        if self._data is not None:
            return self._data
        self.errors = []
        data: dict[str, Any] = {}
        try:
            text = self.path.read_text(encoding="utf-8").removeprefix("\ufeff")
        except FileNotFoundError:
            text = ""
        except (OSError, UnicodeDecodeError) as exc:
            self.errors.append(f"Could not read {self.path}: {exc.__class__.__name__}; no stored credentials used")
            text = ""
        if text.strip():
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as exc:
                # exc.msg/line/column only: the document (and any key in it) stays out of the message.
                self.errors.append(
                    f"Invalid JSON in {self.path}: line {exc.lineno}, column {exc.colno}: {exc.msg}; "
                    "no stored credentials used"
                )
            except RecursionError:  # absurdly deep nesting; json raises this instead of a decode error
                self.errors.append(f"Invalid JSON in {self.path}: nested too deeply; no stored credentials used")
            else:
                if isinstance(parsed, dict):
                    data = parsed
                else:
                    self.errors.append(f"Invalid {self.path}: expected a JSON object; no stored credentials used")
        self._data = data
        return data

    def reload(self) -> None:
        self._data = None
        self._load()

    def get(self, provider: str) -> dict[str, Any] | None:
        """The stored record for ``provider`` (``{"type": "api_key", "key": ...}`` or pi's OAuth record)."""
        record = self._load().get(provider)
        return dict(record) if isinstance(record, dict) else None

    def providers(self) -> list[str]:
        return [name for name, record in self._load().items() if isinstance(record, dict)]

    def has(self, provider: str) -> bool:
        """Whether a usable API-key or OAuth record exists (without running any ``!command``)."""
        record = self.get(provider)
        if record and record.get("type") == "oauth":
            return isinstance(record.get("refresh"), str) and bool(record["refresh"])
        return bool(record and record.get("type") == "api_key" and isinstance(record.get("key"), str) and record["key"])

    def api_key(self, provider: str) -> str | None:
        """The resolved API key for ``provider`` from an ``api_key`` record, else ``None``."""
        record = self.get(provider)
        if not record or record.get("type") != "api_key":
            return None
        key = record.get("key")
        if not isinstance(key, str) or not key:
            return None
        return resolve_config_value(key)

    # --- writing ----------------------------------------------------------------------------

    def set_api_key(self, provider: str, key: str) -> None:
        """Store ``key`` for ``provider`` (other records untouched)."""
        self.set_record(provider, {"type": "api_key", "key": key})

    def set_record(self, provider: str, record: dict[str, Any]) -> None:
        """Store ``record`` for ``provider``, re-reading the file first (other records untouched)."""
        data = self._writable()
        data[provider] = record
        self._write(data)

    def remove(self, provider: str) -> bool:
        """Delete ``provider``'s record; True if there was one."""
        data = self._writable()
        if provider not in data:
            return False
        del data[provider]
        self._write(data)
        return True

    def ensure_file(self) -> None:
        """Create an empty ``{}`` auth.json (0600) if none exists, as pi does on first run."""
        if not self.path.exists():
            self._write({})

    def _writable(self) -> dict[str, Any]:
        self.reload()
        if self.errors:
            raise AuthError(f"Not changing {self.path}: it could not be read as a JSON object; fix or remove it")
        return dict(self._load())

    def _write(self, data: dict[str, Any]) -> None:
        directory = self.path.parent
        try:
            if not directory.exists():
                directory.mkdir(parents=True, mode=0o700)
            write_json_atomic(self.path, data, ensure_ascii=True)
        except OSError as exc:
            raise AuthError(f"Could not write {self.path}: {exc.strerror or exc.__class__.__name__}") from exc
        self._data = data
