"""Modal screens of the interactive mode."""
