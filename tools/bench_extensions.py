"""Extension figures: start-up cost without extensions, and the tool_call/tool_result hook cost.

    python tools/bench_extensions.py      (or: python tools/bench.py extensions)

* the start-up probe ``pi`` runs when no extension exists (stats of the extension folders and the
  cached entry-point probe), median of 200 calls in this process, budget ≤ 5 ms;
* one ``tool_call`` + ``tool_result`` pass through the runner with one sync handler each, median
  over 2,000 calls, budget ≤ 0.1 ms per hook;
* in the headless TUI, the CPU cost of an extension status + widget update until painted, next to a
  full footer refresh, and the screen relayouts those updates caused (budget 0: issue 15).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NAME = "extensions"
BUDGET = "no extensions: start-up probe <= 5 ms; <= 0.1 ms per tool call per hook"


def probe_ms(runs: int = 200) -> float:
    from pi_cli.session.assembly.extensions import _has_extension_sources

    with tempfile.TemporaryDirectory() as tmp:
        agent, cwd = Path(tmp) / "agent", Path(tmp) / "work"
        cwd.mkdir()
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            _has_extension_sources(agent, cwd, True)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def hook_ms(calls: int = 2000) -> float:
    from pi_cli.agent.types import AgentToolResult
    from pi_cli.extensions import ExtensionRunner
    from pi_cli.extensions.api import ExtensionAPI

    runner = ExtensionRunner(".")
    api = ExtensionAPI(runner, "bench.py")
    api.on("tool_call", lambda event, ctx: None)
    api.on("tool_result", lambda event, ctx: None)
    result = AgentToolResult(content=[{"type": "text", "text": "x"}])

    async def go() -> float:
        times = []
        for i in range(calls):
            ctx: Any = SimpleNamespace(tool_call={"id": str(i), "name": "bash"}, args={"command": "ls"}, result=result)
            ctx.is_error = False
            start = time.perf_counter()
            await runner.tool_call(ctx)
            await runner.tool_result(ctx)
            times.append((time.perf_counter() - start) * 1000 / 2)
        return statistics.median(times)

    return asyncio.run(go())


def tui_status_cost(updates: int = 200) -> tuple[float, float, int]:
    """In the headless TUI: CPU ms per ``set_status`` + ``set_widget`` pair until painted (minus the
    cost of an idle frame), CPU ms per full footer refresh for comparison, and how many screen
    relayouts the status/widget updates caused (0 = they repaint only their own widgets)."""
    import os

    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    from textual.screen import Screen

    from pi_cli.ai.providers.faux import register_faux_provider
    from pi_cli.extensions import ExtensionRunner
    from pi_cli.modes.interactive import make_app
    from pi_cli.session.assembly import SessionParts, build_session

    faux = register_faux_provider(models=["bench"])
    layouts = [0]
    original = Screen._refresh_layout

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        layouts[0] += 1
        original(self, *args, **kwargs)

    async def go() -> tuple[float, float, int]:
        with tempfile.TemporaryDirectory() as tmp:
            runner = ExtensionRunner(tmp)
            session = build_session(cwd=Path(tmp), parts=SessionParts(extensions=runner), system_prompt="b",
                                    model=faux.model())  # fmt: skip
            app = make_app(session, keymap={})
            async with app.run_test(size=(100, 30)) as pilot:
                runner.ui.set_status("tokens", "0 tok")
                runner.ui.set_widget("plan", ["step 0"])
                await pilot.pause()

                async def per_frame(action: Any) -> float:
                    start = time.process_time()
                    for n in range(updates):
                        action(n)
                        await pilot.pause()
                    return (time.process_time() - start) * 1000 / updates

                idle = await per_frame(lambda n: None)
                Screen._refresh_layout = counting  # type: ignore[method-assign]
                try:
                    ext = await per_frame(
                        lambda n: (
                            runner.ui.set_status("tokens", f"{n} tok"),
                            runner.ui.set_widget("plan", [f"step {n}"]),
                        )
                    )
                finally:
                    Screen._refresh_layout = original  # type: ignore[method-assign]
                footer = await per_frame(lambda n: app.refresh_footer())
                return max(ext - idle, 0.0), max(footer - idle, 0.0), layouts[0]

    try:
        return asyncio.run(go())
    finally:
        faux.unregister()


def run() -> list[tuple[str, str, str, bool]]:
    probe = probe_ms()
    hook = hook_ms()
    status, footer, layouts = tui_status_cost()
    return [
        ("start-up probe, no extensions (median)", f"{probe:.3f} ms", "<= 5 ms", probe <= 5),
        ("hook cost per tool call, one handler (median)", f"{hook:.4f} ms", "<= 0.1 ms", hook <= 0.1),
        ("TUI status+widget update, CPU per update", f"{status:.2f} ms", f"footer refresh {footer:.2f} ms", True),
        ("TUI relayouts caused by 200 status+widget updates", str(layouts), "0", layouts == 0),
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row[0]:<48} {row[1]:>12}  budget {row[2]}  {'ok' if row[3] else 'OVER'}")
