"""``denoise show`` output in a real browser: headless Chromium renders it."""

import shutil
import subprocess

import pytest
from sitegen import site_page
from typer.testing import CliRunner

from commands.denoise import app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_shaded_page_renders_in_headless_chromium(tmp_path):
    page = site_page(0, 1)
    source = tmp_path / "page.html"
    source.write_text(page.html, encoding="utf-8")
    shaded = tmp_path / "shaded.html"
    result = CliRunner().invoke(app, ["show", str(source), "-o", str(shaded)])
    assert result.exit_code == 0, result.output
    browser = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
    dom = subprocess.run([*browser, "--dump-dom", shaded.as_uri()], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    # the browser built the page: the legend and the scored blocks' shading are in its DOM
    assert "scored blocks template" in dom
    assert "rgba(255, 60, 60" in dom or "rgba(0, 140, 0" in dom
    picture = tmp_path / "shaded.png"
    subprocess.run([*browser, f"--screenshot={picture}", "--window-size=1000,800",
                    shaded.as_uri()], capture_output=True, timeout=120, check=True)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert picture.stat().st_size > 5000  # a rendered page, not an empty canvas
