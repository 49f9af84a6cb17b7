"""Session files: pi's JSONL format on disk, the entry tree manager, migration of old files,
the catalogue of sessions, entry → message conversion, the recorder and HTML export; huge files
are loaded slim (:mod:`pi_cli.store.slim`).
Knows nothing of the running session; the runtime (pi_cli.session) drives it.
"""
