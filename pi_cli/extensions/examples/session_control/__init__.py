"""Shipped examples of session and model control (issue 31): names, bookmarks, guards on
``/new``/``/resume``/``/fork``, compaction, shutdown, the command list and model requests. Each
module is loaded like the others as ``pi -e example:NAME`` (no ``session_control.`` prefix)."""
