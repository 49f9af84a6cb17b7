"""Example extensions shipped with pi_cli; load one with ``pi -e example:NAME``."""
