"""File-system helpers the tools share: path resolution, atomic writes, per-file locks,
sliced reads, image sniffing, glob rules, running ripgrep, and the seam through which an
editor (ACP) serves file text.
"""
