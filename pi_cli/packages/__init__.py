"""pi packages for pi_cli: ``pi install|remove|list|update`` and loading what installed packages hold.

A package bundles extensions, skills, prompt templates and themes. Sources (pi's forms, with pip in
place of npm): ``pip:NAME[==V]``, ``git:URL[@REF]`` / ``https://…`` and a local path. Declarations
live in the ``packages`` array of ``<agentDir>/settings.json`` (``-l``: ``<cwd>/.pi/settings.json``,
read only in a trusted project); git and pip sources install under the agent dir, local paths are
used where they are.

Layer: "parts" (beside extensions and resources). Kept out of :mod:`pi_cli.extensions` so that
resolving packages at start-up, or running ``pi list``, never imports the extension runtime; only
:mod:`pi_cli.packages.extensions` does, when a package holds an extension.
"""
