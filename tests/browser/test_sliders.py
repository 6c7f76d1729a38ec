"""The sliders, proven in a real browser: JupyterLab from this environment, headless Chromium.

For every ``notebooks/*.ipynb``: a copy with ``quick=True`` and ``interactive=True`` injected
(as papermill injects parameters) is opened in JupyterLab, every cell is run with
Run > Run All Cells, every slider must render as a widget (not as its text repr), one slider
is moved with the keyboard and the output it drives must change.  A screenshot of the sliders
goes to ``build/screenshots/<notebook>.png``.

Needs Debian's ``chromium`` (``/usr/bin/chromium``) and Playwright for Python (no browser
download): ``.ci/run`` installs both; elsewhere the test skips and says what is missing.
Run it alone with ``.venv/bin/pytest -m browser``.
"""
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RUN_ALL_TIMEOUT_S = 300    # one notebook in quick mode, every cell
SLIDER_TIMEOUT_S = 120     # the output a moved slider drives
# what a widget looks like when the browser has no widget manager: its Python repr as text
TEXT_REPR = re.compile(r"\b(?:interactive|\w*Slider|VBox|HBox)\((?:children|value|description)=")
SLIDER_CALL = re.compile(r"\b\w*Slider\(")

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _parameterised_copy(path: pathlib.Path, folder: pathlib.Path) -> pathlib.Path:
    """``folder/<name>``: the notebook with quick=True and interactive=True injected."""
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook
    import nbformat

    nb = parameterize_notebook(load_notebook_node(str(path)), {"quick": True, "interactive": True})
    target = folder / path.name
    nbformat.write(nb, str(target))
    return target


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium driven by Playwright; skips with the reason when either is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no browser: {CHROMIUM} is missing (Debian: apt-get install chromium; .ci/run does it)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is not installed: pip install -e '.[browser]' "
                                      "(.ci/run does it; it uses the system Chromium, no browser download)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, chromium):
    """JupyterLab from this environment on 127.0.0.1 with a free port, in a temporary home.

    Yields ``(base_url, token, root)``: the notebooks to open are written to ``root``.
    """
    base = tmp_path_factory.mktemp("jupyterlab")
    root = base / "root"
    settings = base / "settings"
    root.mkdir()
    # every cell in the page (no virtual scrolling), and no news pop-up over the notebook
    for plugin, values in {"notebook-extension/tracker": {"windowingMode": "none"},
                           "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False}}.items():
        f = settings / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(values))
    port, token = _free_port(), os.urandom(12).hex()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(base / "config"), JUPYTER_DATA_DIR=str(base / "data"),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"))
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--ServerApp.allow_root=True",
           f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={base / 'workspaces'}"]
    log = open(base / "server.log", "w")
    server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited ({server.returncode}):\n{(base / 'server.log').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer in 90 s:\n{(base / 'server.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield url, token, root
    finally:
        server.terminate()  # the server shuts its kernels down on SIGTERM
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _stop_kernels(url: str, token: str) -> None:
    with urllib.request.urlopen(f"{url}/api/sessions?token={token}") as r:
        sessions = json.load(r)
    for s in sessions:
        req = urllib.request.Request(f"{url}/api/sessions/{s['id']}?token={token}", method="DELETE")
        urllib.request.urlopen(req).close()


NB = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"  # the notebook on screen
_PROMPTS = f"() => Array.from(document.querySelectorAll('{NB} .jp-CodeCell .jp-InputPrompt'))" \
           ".map(e => e.textContent.trim())"
_ERRORS = f"() => Array.from(document.querySelectorAll('{NB} " \
          "[data-mime-type=\"application/vnd.jupyter.error\"]')).map(e => e.innerText)"


def _run_all(page, n_cells: int) -> None:
    """Open state -> every cell run (Run > Run All Cells); fails with the first error output."""
    page.wait_for_function(f"() => document.querySelectorAll('{NB} .jp-Cell').length === {n_cells}")
    page.locator("#jp-main-statusbar", has_text="| Idle").wait_for()  # the kernel is up
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    deadline = time.monotonic() + RUN_ALL_TIMEOUT_S
    while True:
        errors = page.evaluate(_ERRORS)
        assert not errors, f"a cell failed in JupyterLab:\n{errors[0][-2000:]}"
        prompts = page.evaluate(_PROMPTS)
        if prompts and all(re.fullmatch(r"\[\d+\]:", p) for p in prompts):
            break
        assert time.monotonic() < deadline, f"cells still not run after {RUN_ALL_TIMEOUT_S} s: {prompts}"
        time.sleep(0.5)
    page.locator("#jp-main-statusbar", has_text="| Idle").wait_for()


def _move_one_slider(page) -> str:
    """Move the first slider of an interactive box; wait until its output changes.

    Returns a line saying what moved.  Fails when no slider drives an output.
    """
    boxes = page.locator(f"{NB} .widget-interact:has(.widget-slider):has(.widget-output)")
    assert boxes.count() >= 1, ("no slider drives an output: build the sliders with nbtools.interact(fn, "
                                "interactive, name=IntSlider(...)) in an `if interactive:` cell")
    box = boxes.first
    box.evaluate("e => e.scrollIntoView({block: 'start'})")
    output = box.locator(".widget-output").first
    handle = box.locator(".widget-slider .noUi-handle").first
    label = box.locator(".widget-slider .widget-label").first.inner_text()
    before_html, before_value = output.inner_html(), handle.get_attribute("aria-valuenow")
    assert output.locator(".jp-OutputArea-child").count() >= 1, "the slider's output is empty before the move"
    for key in ("ArrowLeft", "ArrowRight"):  # left first: a smaller problem; right when at the minimum
        handle.focus()
        page.keyboard.press(key)
        try:
            page.wait_for_function("([h, v]) => h.getAttribute('aria-valuenow') !== v",
                                   arg=[handle.element_handle(), before_value], timeout=3000)
            break
        except Exception:  # Playwright's TimeoutError: the slider is at that end
            continue
    after_value = handle.get_attribute("aria-valuenow")
    assert after_value != before_value, f"slider {label!r} did not move with the arrow keys"
    deadline = time.monotonic() + SLIDER_TIMEOUT_S
    while True:
        html = output.inner_html()
        if html != before_html and output.locator(".jp-OutputArea-child").count() >= 1 and \
                page.locator("#jp-main-statusbar", has_text="| Idle").count():
            time.sleep(0.5)
            if output.inner_html() == html:  # settled
                break
        assert time.monotonic() < deadline, \
            f"moving slider {label!r} from {before_value} to {after_value} did not change its output"
        time.sleep(0.3)
    errors = output.locator('[data-mime-type="application/vnd.jupyter.error"]')
    assert errors.count() == 0, f"moving slider {label!r} raised:\n{errors.first.inner_text()[-2000:]}"
    return f"{label}: {before_value} -> {after_value}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_sliders_render_and_drive_their_output(path, lab, chromium):
    url, token, root = lab
    copy = _parameterised_copy(path, root)
    n_cells = len(json.loads(copy.read_text())["cells"])
    source = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
    expected = len(SLIDER_CALL.findall(source))
    assert expected >= 1, (f"{path.name} has no slider: every notebook builds sliders (ipywidgets IntSlider, "
                           "FloatSlider, ...) with nbtools.interact in an `if interactive:` cell")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{url}/lab/tree/{copy.name}?reset&token={token}")  # reset: only this notebook open
        _run_all(page, n_cells)
        rendered = page.locator(f"{NB} .widget-slider").count()
        reprs = [t for t in page.locator(f"{NB} .jp-OutputArea-output").all_inner_texts() if TEXT_REPR.search(t)]
        assert not reprs, f"widgets shown as their text repr (no widget manager in the page?): {reprs[0][:300]}"
        assert rendered >= expected, f"{rendered} sliders rendered, the notebook builds {expected}"
        moved = _move_one_slider(page)
        print(f"{path.name}: {rendered} sliders rendered; moved {moved}")
    finally:
        try:  # the picture of what the test saw, also when it failed
            page.screenshot(path=str(SCREENSHOTS / f"{path.stem}.png"))
        finally:
            page.close()
            _stop_kernels(url, token)
