"""Shared pieces of the transcript and export tests: a real scripted batch, a scripted review, a browser.

The batch runs on the real Docker sandbox with the scripted backend (as in
tests/test_runner_scripted_e2e.py): `rescued` crashes (a module that does not exist), is
repaired and rescued; `regressed` works and its repair turn breaks predict.py's output. The
explore answer of `rescued` carries markup, as hostile model output would.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from runner_support import (
    PREDICT_BROKEN,
    REPAIRING_PLAN,
    TRAIN_CRASHING,
    answers,
    bakeoff_cli,
    implementation,
    make_tiny_corpus,
    run_scripted_batch,
    write_script,
)

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOSTILE = "\n<script>document.title='owned'</script><img src=x onerror=\"document.title='owned'\"> & </pre></details>\n"
ITEMS = Path(__file__).resolve().parents[1] / "task_specs" / "claim_review" / "items.jsonl"


def make_scripted_batch(root: Path) -> Path:
    corpus = make_tiny_corpus(root / "corpus")
    rescued = answers(implementation(TRAIN_CRASHING), implementation())
    rescued[0]["text"] += HOSTILE
    scripts = {"rescued": rescued, "regressed": answers(implementation(), implementation(predict=PREDICT_BROKEN))}
    run_scripted_batch(root, scripts, REPAIRING_PLAN | {"corpus": str(corpus)})
    return root / "batch"


def review_items(root: Path) -> tuple[Path, list[dict]]:
    """Two matched pairs of the shipped items (OK and PROBLEM twins), as a self-contained items file of their own."""
    from bakeoff.review.items import group_pairs, load_items

    chosen = [item.to_dict() for twins in list(group_pairs(load_items(ITEMS)).values())[:2] for item in twins]
    path = root / "items.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in chosen), encoding="utf-8")
    return path, chosen


def add_scripted_review(batch: Path, root: Path, name: str = "scripted") -> Path:
    """`bakeoff review` (the real command) into BATCH/review/NAME: one wrong, one uncaptured, the rest right."""
    items_file, items = review_items(root)
    lines = []
    for k, item in enumerate(items):
        if k == 0:
            wrong = "PROBLEM" if item["verdict"] == "OK" else "OK"
            text = f"VERDICT: {wrong}\nLINE: 3\nCONFIDENCE: 70\nREASON: <b>the scaler</b> sees test rows{HOSTILE}"
        elif k == 1:
            text = ""
        else:
            line = item["flaw_lines"][0] if item["flaw_lines"] else "none"
            text = f"VERDICT: {item['verdict']}\nLINE: {line}\nCONFIDENCE: 80\nREASON: judged {item['verdict']}"
        lines.append({"key": f"review/{item['id']}", "text": text})
    script = write_script(root / f"review-{name}.jsonl", lines)
    out = batch / "review" / name
    done = bakeoff_cli("review", "--model", f"scripted:{script}", "--items", str(items_file), "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def tree_digest(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and modification time: what an export must leave alone."""
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


def chromium(tmp_path: Path, *args: str) -> str:
    profile = Path(tempfile.mkdtemp(prefix="profile-", dir=tmp_path))
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@contextmanager
def loopback_server(folder: Path):
    """A static file server for `folder` on 127.0.0.1 (a port the system picks); yields its base URL."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def rendered_text(tmp_path: Path, url: str, wanted: list[str], polls: int = 240) -> str:
    """The page's visible text once every wanted string shows (or after `polls` half-second looks).

    A script-driven page (Inspect's viewer) renders after its data loads, which --dump-dom does
    not wait for; the DevTools protocol lets the test read the page as it fills in.
    """
    with DevTools(tmp_path) as browser:
        browser.open(url)
        text = ""
        for _ in range(polls):
            text = browser.evaluate("document.body ? document.body.innerText : ''") or ""
            if all(w in text for w in wanted):
                break
            time.sleep(0.5)
        return text


def element_screenshot(tmp_path: Path, url: str, selector: str, width: int = 1100) -> Path:
    """A PNG of the element `selector` matches, laid out in a page `width` pixels wide."""
    out = Path(tempfile.mkdtemp(prefix="shot-", dir=tmp_path)) / "element.png"
    expression = (f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                  " const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()")
    with DevTools(tmp_path) as browser:
        browser.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
        browser.open(url)
        box = None
        for _ in range(240):
            box = browser.evaluate(expression)
            if box:
                break
            time.sleep(0.25)
        assert box, f"{selector} not in {url}"
        clip = {"x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1}
        shot = browser.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
    out.write_bytes(base64.b64decode(shot["data"]))
    return out


class DevTools:
    """Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: no socket at all).

    Chromium reads NUL-terminated JSON commands on its fd 3 and answers on fd 4; one page target
    is attached in flat mode, so page commands carry its session id.
    """

    def __init__(self, tmp_path: Path) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="profile-", dir=tmp_path))
        self.ids = iter(range(1, 1_000_000))
        self.buffer = b""
        self.session: str | None = None

    def __enter__(self) -> DevTools:
        to_browser, self.commands = os.pipe()
        self.answers, from_browser = os.pipe()
        keep = (fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10))

        def wire() -> None:  # in the child: its fd 3 reads our commands, its fd 4 writes its answers
            os.dup2(keep[0], 3)
            os.dup2(keep[1], 4)

        self.process = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
                                         "about:blank"], pass_fds=(3, 4, *keep), preexec_fn=wire,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_browser, from_browser, *keep):
            os.close(fd)
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable")
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.commands)
        self.process.terminate()
        self.process.wait()
        os.close(self.answers)

    def call(self, method: str, **params):
        ident = next(self.ids)
        message = {"id": ident, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.answers, 1 << 20)
                assert chunk, "chromium closed the DevTools pipe"
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == ident:
                assert "error" not in answer, answer["error"]
                return answer.get("result", {})

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

    def measure(self, url: str, script: str, ready: str, width: int = 1280, height: int = 900):
        """Open `url` at width x height and evaluate `script` (an expression giving an object with `ready`, the
        document's readyState, and the key `ready`) until the page has loaded whole and `ready` is truthy."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        self.open(url)
        found = None
        for _ in range(120):  # the page is parsed after navigate returns: until it has loaded whole
            time.sleep(0.25)
            found = self.evaluate(script)
            if found and found["ready"] == "complete" and found[ready]:
                break
        return found


def viewer_log_list(tmp_path: Path, logs: Path, wanted: list[str]) -> tuple[str, Path]:
    """Inspect's viewer (`inspect view bundle`: its static build, served on 127.0.0.1) opened on the folder of logs
    `logs` at its log list, as headless Chromium shows it at 1280x900: the list's visible text once every wanted
    string shows, and a screenshot of it."""
    import sys

    bundle = Path(tempfile.mkdtemp(prefix="viewer-", dir=tmp_path)) / "bundle"  # the command refuses a folder that exists
    inspect = Path(sys.executable).parent / "inspect"
    done = subprocess.run([str(inspect), "view", "bundle", "--log-dir", str(logs), "--output-dir", str(bundle)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and (bundle / "index.html").is_file(), done.stdout[-2000:] + done.stderr[-2000:]
    shot = bundle.parent / "log-list.png"
    with loopback_server(bundle) as base, DevTools(tmp_path) as browser:
        browser.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
        browser.open(f"{base}/index.html")
        text = ""
        for _ in range(120):
            text = browser.evaluate("document.body ? document.body.innerText : ''") or ""
            if all(w in text for w in wanted):
                break
            time.sleep(0.5)
        time.sleep(1.0)  # the rows' icons and scores settle after the text
        shot.write_bytes(base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"]))
    return text, shot
