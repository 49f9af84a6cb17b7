"""Run git against a shadow repository, isolated from the user's git setup.

Every call is ``git --git-dir=<shadow> --work-tree=<project>`` with its own ``GIT_INDEX_FILE``,
no system or global config (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``), no hooks,
no signing, no line-ending conversion and a fixed author, so a user's aliases, hooks, filters or
``autocrlf`` can neither break a checkpoint nor change the bytes it restores. Any ``GIT_*``
variable inherited from the environment is dropped first (a caller's ``GIT_DIR`` must never point
us at the project's own repository). Processes run on asyncio, never blocking the event loop.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

# ``-c`` options applied to every call: they win over any config file.
_CONFIG = (
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=true",
    "core.quotePath=false",
    "core.symlinks=true",
    "core.fileMode=true",
    "commit.gpgsign=false",
    "gc.auto=0",
    "status.renames=false",
    "diff.renames=false",
    "advice.addEmbeddedRepo=false",
    "maintenance.auto=false",
)


class GitError(RuntimeError):
    """A git call failed; the message is one line naming the command and git's complaint."""


class ShadowGit:
    """Runs git for one (shadow git dir, work tree) pair."""

    def __init__(self, git_dir: Path, work_tree: Path, excludes_file: Path | None = None) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_INDEX_FILE=str(git_dir / "index"),
            GIT_AUTHOR_NAME="pi_cli",
            GIT_AUTHOR_EMAIL="checkpoints@pi-cli.invalid",
            GIT_COMMITTER_NAME="pi_cli",
            GIT_COMMITTER_EMAIL="checkpoints@pi-cli.invalid",
            GIT_TERMINAL_PROMPT="0",
            GIT_OPTIONAL_LOCKS="1",
            LC_ALL="C",
        )
        self.env = env
        config = list(_CONFIG)
        # The project's own .git/info/exclude is part of what its git ignores; honour it too.
        config.append(f"core.excludesFile={excludes_file if excludes_file else os.devnull}")
        self._prefix = ["git", f"--git-dir={git_dir}", f"--work-tree={work_tree}"]
        for item in config:
            self._prefix += ["-c", item]

    async def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        timeout: float = 60.0,
        check: bool = True,
        config: tuple[str, ...] = (),
    ) -> tuple[int, bytes]:
        """Run ``git [-c config...] <args>`` in the work tree; returns (exit code, stdout).

        Raises :class:`GitError` on a non-zero exit when ``check`` is set, and on ``timeout``
        (the process is killed, so a huge tree cannot stall the session)."""
        proc = await asyncio.create_subprocess_exec(
            *self._prefix,
            *[part for item in config for part in ("-c", item)],
            *args,
            cwd=str(self.work_tree),
            env=self.env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise GitError(f"git {args[0]} took longer than {timeout:.0f}s in {self.work_tree}") from None
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            raise
        code = proc.returncode or 0
        if check and code != 0:
            lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
            detail = lines[-1].strip() if lines else f"exit code {code}"
            raise GitError(f"git {args[0]} failed in {self.work_tree}: {detail}")
        return code, out
