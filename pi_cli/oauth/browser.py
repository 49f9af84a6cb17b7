"""Opening a login page in the user's browser — only a graphical one.

Python's ``webbrowser`` falls back to text browsers (lynx, w3m) that would take over the terminal
the TUI is drawing on, so only ``$BROWSER``, macOS ``open`` and, under X11/Wayland, ``xdg-open``
are tried. Whether or not one starts, the caller also shows the URL.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys


def open_url(url: str) -> bool:
    """Start a browser on ``url`` without waiting for it; True if one was started."""
    configured = os.environ.get("BROWSER", "").strip()
    if configured:
        command = [*shlex.split(configured.split(os.pathsep)[0]), url]
    elif sys.platform == "darwin":
        command = ["open", url]
    elif (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and shutil.which("xdg-open"):
        command = ["xdg-open", url]
    else:
        return False
    try:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)  # fmt: skip
    except OSError:
        return False
    return True
