"""What a theme switch costs the TUI: parsed rules kept per theme, repaints asked for once.

Textual restyles the app on a theme switch in ``App.refresh_css``: it parses every CSS source
again with the new variables (about 6 ms here), then sets each node's changed style properties
one at a time. Each changed colour asks its node *and every descendant* for a full repaint, so a
widget deep in the transcript was asked some thirty times per switch (over a thousand asks for
ten question/answer pairs, each working out the widget's region again).

* :class:`ThemeStylesheet` keeps the rules parsed for each set of variables and sources, so a
  switch back to a theme already seen parses nothing.
* :func:`coalesced_repaints` and :class:`CoalescedRepaint`: while the new styles are applied, a
  transcript widget's full-repaint requests are gathered and each widget is asked once at the end
  (or, when out of view, just before it is drawn again).
* :meth:`ThemeStylesheet.visible_first`: the transcript's entries out of view are restyled when
  they are next drawn, not with the switch (Textual's per-node restyle is most of what is left).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode, NoScreen
from textual.screen import Screen
from textual.widget import Widget

if TYPE_CHECKING:
    from typing import Self

    from textual.css.model import RuleSet
    from textual.geometry import Region
    from textual.strip import Strip

PARSED_KEPT = 8  # rule lists kept: a handful of themes, each with the sources of a few moments


class ThemeStylesheet(Stylesheet):
    """A stylesheet whose ``reparse`` reuses the rules it parsed before from the same variables
    and the same sources (rules depend on nothing else). Anything new (a theme not seen yet, a
    widget class whose CSS arrived since) is parsed by Textual as before."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple[tuple[str, str], ...] = tuple((variables or {}).items())
        self._parsed: OrderedDict[tuple[object, ...], list[RuleSet]] = OrderedDict()

    def set_variables(self, variables: dict[str, str]) -> None:
        self._variables_key = tuple(variables.items())
        super().set_variables(variables)

    def reparse(self) -> None:
        key = (self._variables_key, tuple(self.source.items()))
        rules = self._parsed.get(key)
        if rules is None:
            super().reparse()
            self._parsed[key] = self.rules
            while len(self._parsed) > PARSED_KEPT:
                self._parsed.popitem(last=False)
            return
        self._parsed.move_to_end(key)
        use_rules(self, rules)

    _visible_first = False

    @contextmanager
    def visible_first(self) -> Iterator[None]:
        """Within the block (a theme switch), ``update_nodes`` leaves out the transcript's entries
        that are out of view; each is restyled when it is next drawn (:class:`CoalescedRepaint`).

        For restyles that change colours only, which is all a theme does to the transcript (its
        CSS takes sizes from no theme variable): an entry is laid out before it is restyled."""
        self._visible_first = True
        try:
            yield
        finally:
            self._visible_first = False

    def update_nodes(self, nodes: Iterable[DOMNode], animate: bool = False) -> None:
        super().update_nodes(_in_view_first(nodes) if self._visible_first else nodes, animate)


def _in_view_first(nodes: Iterable[DOMNode]) -> Iterator[DOMNode]:
    """``nodes`` (each after its parent) less the subtrees left until they are drawn: those of a
    :class:`CoalescedRepaint` widget styled when drawn, out of view, that holds only such widgets
    (each of which can restyle the subtree when it is drawn first: children are drawn first)."""
    skipped: set[DOMNode] = set()
    for node in nodes:
        if node.parent in skipped:
            skipped.add(node)
            continue
        if isinstance(node, CoalescedRepaint) and node.STYLED_WHEN_DRAWN and not _in_view(node):
            held = list(node.walk_children(with_self=True))
            if all(isinstance(child, CoalescedRepaint) and child.STYLED_WHEN_DRAWN for child in held):
                for child in held:
                    if isinstance(child, CoalescedRepaint):
                        child.styles_missed = True
                skipped.add(node)
                continue
        yield node


def _restyle_held(widget: CoalescedRepaint) -> None:
    """Restyle the subtree ``widget`` was left out in (see ``visible_first``), from its top."""
    top = widget
    for node in widget.ancestors:
        if isinstance(node, CoalescedRepaint) and node.styles_missed:
            top = node
    for node in top.walk_children(with_self=True):
        if isinstance(node, CoalescedRepaint):
            node.styles_missed = False
    with coalesced_repaints():
        widget.app.stylesheet.update(top)


def use_rules(stylesheet: Stylesheet, rules: list[RuleSet]) -> None:
    """Make ``rules`` (parsed earlier from ``stylesheet``'s sources) its rules, as the end of
    Textual's ``Stylesheet.reparse`` does with the ones it has just parsed.

    Textual has no public way to hand a stylesheet its rules, so this sets the three private
    attributes ``reparse`` sets (Textual 8.2). tests/ui/test_restyle.py pins it: a stylesheet
    given rules this way must answer ``rules`` and ``rules_map`` with them.
    """
    stylesheet._rules = rules
    stylesheet._rules_map = None
    stylesheet._require_parse = False


class _Pending(threading.local):
    """The widgets waiting for their repaint, while a block is open (per thread, not a context
    variable: a task started inside the block would copy it and never repaint again)."""

    widgets: set[Widget] | None = None


_pending = _Pending()


@contextmanager
def coalesced_repaints() -> Iterator[None]:
    """Within the block, :class:`CoalescedRepaint` widgets note full repaints instead of doing
    them; on leaving, each noted widget is repainted once. Partial repaints, layouts and
    recomposes go through at once. Not re-entrant: an inner block joins the outer one."""
    if _pending.widgets is not None:
        yield
        return
    pending: set[Widget] = set()
    _pending.widgets = pending
    try:
        yield
    finally:
        _pending.widgets = None
        for widget in pending:
            if isinstance(widget, CoalescedRepaint) and not _in_view(widget):
                widget.restyle_missed = True
            else:
                widget.refresh()


def _in_view(widget: Widget) -> bool:
    """Whether ``widget`` may show now: its region (from the last layout) overlaps its screen's;
    for a screen, whether its children leave any of its rows uncovered.

    A screen whose own pixels are all hidden is not repainted at once: its repaint is a full one,
    which Textual paints as soon as the screen is idle, before the widgets' own requests arrive,
    so those came after it as a second paint of everything."""
    if isinstance(widget, Screen):
        return not _covered_by_children(widget)
    try:
        return widget.region.overlaps(widget.screen.region)
    except NoScreen:
        return False


def _covered_by_children(screen: Screen[Any]) -> bool:
    """Whether every row of ``screen`` lies under a child spanning its whole width."""
    area = screen.region
    rows: set[int] = set()
    for child in screen.children:
        region = child.region if isinstance(child, Widget) and child.display else None
        if region is not None and region.x <= area.x and region.right >= area.right:
            rows.update(range(region.y, region.bottom))
    return rows.issuperset(range(area.y, area.bottom))


class CoalescedRepaint(Widget):
    """A widget whose full repaints wait for the end of a :func:`coalesced_repaints` block (the
    transcript's widgets: most of the tree, and the deepest). List it after the widget's own
    base: Textual takes a widget's CSS type names and default CSS along its *first* base only.

    One out of view when the block ends (scrolled off) is repainted when next drawn instead: a
    long transcript's earlier entries cost a switch nothing until they are scrolled back to."""

    STYLED_WHEN_DRAWN: ClassVar[bool] = False
    """A theme switch may leave its styles until it is drawn (``ThemeStylesheet.visible_first``):
    for a transcript entry, whose layout takes nothing from the theme and whose look is all in
    its lines (not for a widget that caches what it draws from its styles, like an option list)."""

    restyle_missed = False
    """Its cached lines predate the last restyle: they are dropped before it is drawn again."""

    styles_missed = False
    """Its styles predate the last theme switch (it was out of view): it is restyled, with the
    subtree it was left out in, before it is drawn again."""

    def render_lines(self, crop: Region) -> list[Strip]:
        if self.styles_missed:
            _restyle_held(self)
        if self.restyle_missed:
            self.restyle_missed = False
            self.refresh()
        return super().render_lines(crop)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        pending = _pending.widgets
        if pending is not None and repaint and not (regions or layout or recompose):
            pending.add(self)
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)
