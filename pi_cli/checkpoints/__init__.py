"""Checkpoints of the project's files (issue 18): a shadow git store per project under the agent
dir, so rewind can restore files whatever changed them. Parts layer: knows nothing of sessions."""

from pi_cli.checkpoints.store import CheckpointError, CheckpointStore, shadow_dir_for

__all__ = ["CheckpointError", "CheckpointStore", "shadow_dir_for"]
