"""The model catalogue: built-in models plus models.json, their credentials, pattern
resolution, the start-up model choice and the local-server probe.
"""
