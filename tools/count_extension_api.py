"""Count how much of pi's extension API, as pi's own examples use it, pi_cli's Python API has.

Reads every example of pi 1.6.0's npm package (``examples/extensions/``: a ``.ts`` file or a
folder of them), collects the API items each uses — events (``pi.on("name"``), members
(``pi.x``, ``pi.events.x``, ``ctx.x``, ``ctx.ui.x``, ``ctx.sessionManager.x``,
``ctx.modelRegistry.x``) and registration options (``renderCall``, ``overlay``, …) — and looks
each up in pi_cli: members on the Python classes under pi's name in snake_case, events and
options as names the extension code knows. Prints the items pi_cli lacks with how many examples
use each, the share of items present, and each example as ``portable`` (every item present),
``partial`` (one or two missing) or ``missing`` (more).

    python tools/count_extension_api.py [--pi-package DIR] [--examples]

A developer tool (needs pi's npm package, see README "Benchmarks"); CI never runs it.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PACKAGE = Path("/work/ref/node_modules/@earendil-works/pi-coding-agent")

OPTIONS = (
    "renderCall", "renderResult", "renderShell", "promptSnippet", "promptGuidelines", "executionMode",
    "overlay", "overlayOptions", "getArgumentCompletions", "oauth", "operations", "streamSimple",
    "prepareArguments", "terminate",
)  # fmt: skip
"""Registration and dialog options worth counting (the common ones — name, description,
parameters, handler — every port has)."""

# Which pi_cli modules answer for which receiver (pi's object → the classes that implement it).
RECEIVERS = {
    "pi": ("extensions/api.py", ("ExtensionAPI",)),
    "pi.events": ("extensions/event_bus.py", None),
    "ctx": ("extensions/context.py", ("ExtensionContext", "CommandContext")),
    "ctx.ui": ("extensions/ui.py", ("DialogUI", "DialogOptionsUI")),
    "ctx.sessionManager": ("extensions/session_manager.py", ("ReadonlySessionManager",)),
    "ctx.modelRegistry": ("extensions/model_registry.py", ("ModelRegistryView",)),
}
_MEMBER = re.compile(
    r"\b(?:pi\.events|pi|[A-Za-z_]*[cC]tx(?:\.ui|\.sessionManager|\.modelRegistry)?)\.([A-Za-z]+)\b(?!\s*=[^=])"
)
_EVENT = re.compile(r"""\bpi\.on\(\s*["']([a-z_]+)["']""")


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def example_sources(examples: Path) -> dict[str, str]:
    """Example name → the text of its TypeScript files."""
    out: dict[str, str] = {}
    for entry in sorted(examples.iterdir()):
        if entry.suffix == ".ts":
            out[entry.stem] = entry.read_text()
        elif entry.is_dir():
            files = sorted(p for p in entry.rglob("*.ts") if "node_modules" not in p.relative_to(entry).parts)
            if files:
                out[entry.name] = "\n".join(p.read_text() for p in files)
    return out


def items_of(text: str) -> set[str]:
    """The API items one example uses, as ``event:NAME``, ``RECEIVER.member`` or ``option:NAME``."""
    found = {f"event:{name}" for name in _EVENT.findall(text)}
    for match in _MEMBER.finditer(text):
        receiver = match.group(0).rsplit(".", 1)[0]
        receiver = re.sub(r"^[A-Za-z_]*[cC]tx", "ctx", receiver)
        if receiver == "pi" and match.group(1) in ("on", "events"):
            continue
        if receiver == "ctx" and match.group(1) in ("ui", "sessionManager", "modelRegistry"):
            continue
        found.add(f"{receiver}.{match.group(1)}")
    for option in OPTIONS:
        if re.search(rf"(?<![.\w]){option}\s*[:(]", text):
            found.add(f"option:{option}")
    return found


def python_members(path: Path, classes: tuple[str, ...] | None) -> set[str]:
    """Public names defined by ``classes`` of the module (all classes when None): methods,
    properties, class attributes and ``self.x`` assigned in their methods."""
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or (classes is not None and node.name not in classes):
            continue
        for item in ast.walk(node):
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(item.name)
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                names.add(item.target.id)
            elif isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == "self":
                names.add(item.attr)
    return {name for name in names if not name.startswith("_")}


def present(item: str, members: dict[str, set[str]], source: str) -> bool:
    kind, _, name = item.partition(":")
    if kind == "event":
        return f'"{name}"' in source
    if kind == "option":  # read from a registration dict under pi's name or its snake_case twin
        return f'"{name}"' in source or f'"{snake(name)}"' in source
    receiver, _, member = item.rpartition(".")
    if receiver == "ctx.model":  # fields of the model dict
        return True
    return snake(member) in members.get(receiver, set()) or member in members.get(receiver, set())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pi-package", type=Path, default=DEFAULT_PACKAGE)
    parser.add_argument("--examples", action="store_true", help="list every example with what it lacks")
    args = parser.parse_args()
    examples = args.pi_package / "examples" / "extensions"
    if not examples.is_dir():
        print(f"count_extension_api: {examples} not found (install pi 1.6.0's npm package)", file=sys.stderr)
        return 2
    package = ROOT / "pi_cli"
    members = {key: python_members(package / path, classes) for key, (path, classes) in RECEIVERS.items()}
    source = "\n".join(p.read_text() for p in sorted(package.rglob("*.py")))
    uses = {name: items_of(text) for name, text in example_sources(examples).items()}
    counts = Counter(item for found in uses.values() for item in found)
    missing = {item for item in counts if not present(item, members, source)}
    print(f"{len(uses)} examples use {len(counts)} distinct API items; pi_cli has "
          f"{len(counts) - len(missing)} ({100 * (len(counts) - len(missing)) / len(counts):.0f} %)")  # fmt: skip
    print("missing, by examples using it:")
    for item in sorted(missing, key=lambda i: (-counts[i], i)):
        print(f"  {counts[item]:3d}  {item}")
    verdicts: Counter[str] = Counter()
    for name, found in uses.items():
        lacking = sorted(found & missing)
        verdict = "portable" if not lacking else "partial" if len(lacking) <= 2 else "missing"
        verdicts[verdict] += 1
        if args.examples:
            print(f"{verdict:9s} {name}: {', '.join(lacking)}")
    print(", ".join(f"{n} {v}" for v, n in verdicts.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
