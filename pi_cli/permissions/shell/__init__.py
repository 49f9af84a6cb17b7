"""Reading bash for the approval gate: a parser of our own (``parser``, ``words``) and what a
command would run and write in the terms permission rules use (``analysis``).

Our own because the gate must see exactly what bash runs — heredocs, ``$'…'``, brace expansion,
``case`` patterns — in well under a millisecond, with no dependency: bashlex fails on a third of
the corpus in tools/bench_sandbox.py and tree-sitter-bash needs compiled wheels (figures in the
README's "Sandbox" section).
"""
