"""pi_cli: an interactive terminal coding agent. Imports nothing, so ``pi --version`` stays fast."""

__version__ = "0.1.0"
