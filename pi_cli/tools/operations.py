"""Pluggable operations for the built-in tools (pi's ``ReadOperations``, ``WriteOperations``,
``EditOperations``, ``BashOperations``): where ``read``, ``write``, ``edit`` and ``bash`` do their
work when it is not this machine's disk and shell — a remote host over SSH, a container.

An extension hands a spec to :func:`pi_cli.tools.create_read_tool` (and its siblings) or answers
``user_bash`` with ``{"operations": spec}``. A spec is a dict or an object whose callables carry
pi's names or their snake_case twins, sync or async:

* files: ``read_file(path) -> bytes | str``, ``write_file(path, content: str)``, ``access(path)``
  (raise when the path cannot be used), ``mkdir(path)`` (parents included), optional
  ``detect_image_mime_type(path) -> str | None``;
* shell: ``exec(command, cwd, on_data=, signal=, timeout=, env=) -> {"exitCode": int | None}``
  (or an int); ``on_data`` takes each chunk of output as bytes or str. Raising ``"aborted"`` or
  ``"timeout:<seconds>"`` reports those ends, as pi's contract says; pi_cli also enforces the
  timeout and the abort itself, so an ``exec`` that ignores them still ends.

Paths are absolute and local-looking: mapping them onto the remote side is the spec's business.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable
from typing import Any

from pi_cli.ai.abort import AbortSignal


def _find(spec: Any, name: str) -> Callable[..., Any] | None:
    """The callable named ``name`` (snake_case) or its camelCase twin on a dict or object."""
    camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)
    for key in (name, camel):
        value: Any = spec.get(key) if isinstance(spec, dict) else getattr(spec, key, None)
        if callable(value):
            found: Callable[..., Any] = value
            return found
    return None


async def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    result = fn(*args, **kwargs)
    return await result if inspect.isawaitable(result) else result


class FileOperations:
    """A spec's file calls, checked once: ``read_file``/``access`` are needed to read,
    ``write_file`` (and ``mkdir`` for ``write``) to write. Raises :class:`TypeError` naming the
    missing call when the spec cannot serve ``needs``."""

    def __init__(self, spec: Any, needs: tuple[str, ...]) -> None:
        missing = [name for name in needs if _find(spec, name) is None]
        if missing:
            raise TypeError(f"operations: missing {', '.join(missing)} (pi's names or snake_case)")
        self._spec = spec

    async def read_file(self, path: str) -> bytes:
        fn = _find(self._spec, "read_file")
        assert fn is not None
        data = await _call(fn, path)
        return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)

    async def write_file(self, path: str, content: str) -> None:
        fn = _find(self._spec, "write_file")
        assert fn is not None
        await _call(fn, path, content)

    async def access(self, path: str) -> None:
        fn = _find(self._spec, "access")
        if fn is not None:
            await _call(fn, path)

    async def mkdir(self, path: str) -> None:
        fn = _find(self._spec, "mkdir")
        if fn is not None:
            await _call(fn, path)

    async def image_mime(self, path: str) -> str | bool | None:
        """The spec's ``detect_image_mime_type`` answer, or False when it has none (then the
        caller looks at the bytes)."""
        fn = _find(self._spec, "detect_image_mime_type")
        if fn is None:
            return False
        mime = await _call(fn, path)
        return str(mime) if mime else None


def file_operations(spec: Any, needs: tuple[str, ...]) -> FileOperations | None:
    """``spec`` as :class:`FileOperations` serving ``needs`` (None stays None: the local disk)."""
    return None if spec is None else spec if isinstance(spec, FileOperations) else FileOperations(spec, needs)


class ShellEnded(Exception):
    """How a shell operation ended without an exit code: ``"aborted"`` or ``"timeout"``."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


class ShellOperations:
    """A spec's ``exec``, run with pi_cli's own abort and timeout around it."""

    def __init__(self, spec: Any) -> None:
        fn = _find(spec, "exec")
        if fn is None:
            raise TypeError("operations: missing exec (pi's BashOperations)")
        self._exec = fn

    async def run(
        self,
        command: str,
        cwd: str,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str] | None = None,
    ) -> int | None:
        """The command's exit code (None when the spec reported none); raises :class:`ShellEnded`
        on abort or timeout, and whatever else the spec raises."""

        def feed(chunk: Any) -> None:
            on_data(chunk.encode("utf-8", "replace") if isinstance(chunk, str) else bytes(chunk))

        if signal is not None and signal.aborted:
            raise ShellEnded("aborted")
        task = asyncio.ensure_future(
            _call(self._exec, command, cwd, on_data=feed, signal=signal, timeout=timeout, env=env)
        )

        def stop() -> None:
            task.cancel()

        remove = signal.add_callback(stop) if signal is not None else None
        try:
            answer = await asyncio.wait_for(task, timeout) if timeout is not None and timeout > 0 else await task
        except TimeoutError:
            raise ShellEnded("timeout") from None
        except asyncio.CancelledError:
            if signal is not None and signal.aborted:
                raise ShellEnded("aborted") from None
            raise
        except Exception as exc:
            text = str(exc)
            if text == "aborted" or text.startswith("timeout:"):
                raise ShellEnded("aborted" if text == "aborted" else "timeout") from None
            raise
        finally:
            if remove is not None:
                remove()
        code = answer.get("exitCode", answer.get("exit_code")) if isinstance(answer, dict) else answer
        return None if code is None else int(code)


def shell_operations(spec: Any) -> ShellOperations | None:
    return None if spec is None else spec if isinstance(spec, ShellOperations) else ShellOperations(spec)
