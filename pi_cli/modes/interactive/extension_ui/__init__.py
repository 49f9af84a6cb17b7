"""The TUI side of extensions' ``ctx.ui``: footer statuses, widgets above the editor, extension
keyboard shortcuts, ``custom`` components (modal sheets and overlays) and an extension's footer.
Mounted only when the session has extensions."""
