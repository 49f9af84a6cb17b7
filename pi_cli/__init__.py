"""pi_cli: an interactive terminal coding agent. Imports nothing, so ``pi --version`` stays fast."""

# pi_cli's version follows the pi release whose behaviour it matches: clients such as pi-acp read
# ``pi --version`` to decide which protocol features they may use.
__version__ = "1.6.0"
