"""Huge session files kept slim: loading one without its message bodies (:mod:`.lazy_entries`,
with :mod:`.message_index` picking the few facts kept of each message), its index cached for the
next open of the unchanged file (:mod:`.index_cache`), and the resumed context whose messages stay
in the file until needed (:mod:`.lazy_context`).
"""
