"""The sandbox: OS-level confinement of every process a tool starts, and the same policy for the
file tools.

Layer: just below ``tools`` (tools, the parts and the session may import it; it imports only ai,
config and errors). Linux Landlock through ctypes (:mod:`landlock`), no dependency. The pieces:
``policy``/``settings`` (what is allowed, from ``--sandbox`` and settings ``sandbox``), ``fsrules``
(Landlock rules for a policy), ``spawner``/``confinement`` (starting processes inside a domain at
the cost of a normal spawn), ``proxy`` (the network allow list), ``pathcheck`` (the file tools'
check), ``blocked`` (explaining a blocked command), ``controller.Sandbox`` (one session's sandbox)
and ``protocol`` (the seams process starters and tools take at construction). Importing this
package loads nothing heavy; libc is opened on first use.
"""
