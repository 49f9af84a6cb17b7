"""``/share``: the session's HTML page uploaded as a secret GitHub gist through ``gh``.

The page is the one ``/export`` writes (theme colours, secrets redacted), made in a temporary
folder and uploaded with ``gh gist create`` (secret unless made public on GitHub later); the
link is the gist's. Without ``gh``, or when ``gh`` is not signed in, the answer says so in one
line and nothing is uploaded.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

NO_GH = "/share needs the GitHub CLI: install gh and run `gh auth login` (or save the page with /export FILE)"
UPLOAD_TIMEOUT_S = 60.0


async def share_session(session: AgentSession) -> str:
    """Upload the session's page; returns the gist's URL. Raises ValueError with a one-line
    reason (no ``gh``, not signed in, no session file yet, a failed upload)."""
    gh = shutil.which("gh")
    if gh is None:
        raise ValueError(NO_GH)
    with tempfile.TemporaryDirectory(prefix="pi-share-") as folder:
        name = f"pi-session-{session.store.manager.session_id if session.store.manager else 'export'}.html"
        path = await session.export_html(str(Path(folder) / name))
        description = f"pi session: {session.session_name or name}"
        process = await asyncio.create_subprocess_exec(
            gh, "gist", "create", "--desc", description, path,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            out, err = await asyncio.wait_for(process.communicate(), UPLOAD_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise ValueError(f"gh gist create did not finish in {UPLOAD_TIMEOUT_S:g} s") from None
    links = [line for line in out.decode(errors="replace").split() if line.startswith("https://")]
    if process.returncode != 0 or not links:
        reason = next((line for line in err.decode(errors="replace").splitlines() if line.strip()), "no link")
        raise ValueError(f"gh gist create failed: {reason.strip()}")
    return links[-1]
