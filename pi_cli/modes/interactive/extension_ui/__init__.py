"""The TUI side of extensions' ``ctx.ui``: footer statuses, widgets above the editor, and
extension keyboard shortcuts. Mounted only when the session has extensions."""
