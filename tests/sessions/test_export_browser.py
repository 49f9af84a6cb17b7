"""The exported page in a real browser (headless Chromium): the viewer switches branches from the
tree and collapses tool cards. Skipped where no Chromium is installed (Debian: apt-get install
chromium)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_cli.store.export_html import render_html
from pi_cli.store.manager import SessionManager

from .helpers import assistant, tool_result, user

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium installed (apt-get install chromium)")

# Appended to a copy of the page: drives the viewer as a person would, then writes what is visible.
PROBE = """<script>
(function () {
  function visible() {
    return Array.prototype.map.call(document.querySelectorAll("#entries .entry"), function (e) {
      return e.textContent.replace(/\\s+/g, " ").trim().slice(0, 40);
    });
  }
  var report = {first: visible(), tree: !document.getElementById("tree").hidden};
  var row = Array.prototype.find.call(document.querySelectorAll("nav#tree a"), function (a) {
    return a.textContent.indexOf("second") === 0;
  });
  row.click();
  report.afterClick = visible();
  report.leafRow = document.querySelector("nav#tree a.leaf").textContent;
  document.querySelector('button[data-action="collapse-tools"]').click();
  report.openTools = document.querySelectorAll("main details.tool[open]").length;
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
})();
</script>"""


def _page(tmp_path: Path) -> str:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("first question"))
    sm.append_message(assistant("first answer", calls=[("c1", "bash", {"command": "ls"})]))
    sm.append_message(tool_result("c1", "a.txt"))
    fork = sm.append_message(assistant("listed"))
    sm.append_message(user("second question"))
    sm.append_message(assistant("second answer"))
    sm.branch(fork)
    sm.append_message(user("third question"))
    sm.append_message(assistant("third answer"))
    return render_html(sm)


def test_the_viewer_switches_branches_and_collapses_in_chromium(tmp_path: Path) -> None:
    assert BROWSER is not None
    page = tmp_path / "probe.html"
    page.write_text(_page(tmp_path).replace("</body>", PROBE + "</body>"))
    result = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    dom = result.stdout
    assert 'id="probe"' in dom, result.stderr[-2000:]
    report = json.loads(dom.split('<pre id="probe">')[1].split("</pre>")[0].replace("&quot;", '"'))
    assert report["tree"] is True  # the script showed the tree
    assert any("third answer" in text for text in report["first"])
    assert not any("second answer" in text for text in report["first"])
    assert any("second answer" in text for text in report["afterClick"])  # the old branch, from the tree
    assert not any("third" in text for text in report["afterClick"])
    assert any("first answer" in text for text in report["afterClick"])  # the shared start stays
    assert report["leafRow"].startswith("second question")
    assert report["openTools"] == 0
