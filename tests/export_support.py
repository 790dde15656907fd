"""Shared pieces of the transcript and export tests: a real scripted batch, a scripted review, a browser.

The batch runs on the real Docker sandbox with the scripted backend (as in
tests/test_runner_scripted_e2e.py): `rescued` crashes (a module that does not exist), is
repaired and rescued; `regressed` works and its repair turn breaks predict.py's output. The
explore answer of `rescued` carries markup, as hostile model output would.
"""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from runner_support import PREDICT_BROKEN, TRAIN_CRASHING, answers, bakeoff_cli, implementation, make_tiny_corpus, write_script

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOSTILE = "\n<script>document.title='owned'</script><img src=x onerror=\"document.title='owned'\"> & </pre></details>\n"
ITEMS = Path(__file__).resolve().parents[1] / "task_specs" / "claim_review" / "items.jsonl"


def make_scripted_batch(root: Path) -> Path:
    from bakeoff.runner.batch import BatchOptions, run_batch
    from bakeoff.runner.plan import plan_from_mapping
    from sandbox.wheelhouse import default_wheelhouse

    corpus = make_tiny_corpus(root / "corpus")
    rescued = answers(implementation(TRAIN_CRASHING), implementation())
    rescued[0]["text"] += HOSTILE
    scripts = {"rescued": rescued, "regressed": answers(implementation(), implementation(predict=PREDICT_BROKEN))}
    models = [{"label": name, "spec": f"scripted:{write_script(root / f'{name}.jsonl', lines)}"}
              for name, lines in scripts.items()]
    plan = plan_from_mapping(
        {"models": models, "corpus": str(corpus), "runs": 1, "sandbox": "docker", "seed": 11,
         "limits": {"memory_mb": 2048, "pids": 256, "cpus": 1.0},
         "task_settings": {"always_repair": True, "smoke_rows": 50, "context_tokens": 16384}},
        root,
    )
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    run_batch(plan, BatchOptions(out_dir=root / "batch", wheelhouse=wheelhouse))
    return root / "batch"


def review_items(root: Path) -> tuple[Path, list[dict]]:
    """Two matched pairs of the shipped items (OK and PROBLEM twins), as an items file of their own."""
    from bakeoff.review.items import OPTIONAL_FIELDS, REQUIRED_FIELDS

    known = set(REQUIRED_FIELDS) | set(OPTIONAL_FIELDS)  # the fields this version's parser accepts
    items = [{k: v for k, v in json.loads(line).items() if k in known}
             for line in ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    pairs: dict[str, list[dict]] = {}
    for item in items:
        if item["pair_id"]:
            pairs.setdefault(item["pair_id"], []).append(item)
    chosen = [item for twins in list(pairs.values())[:2] for item in twins]
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
    async def read(call) -> str:
        await call("Page.navigate", url=url)
        text = ""
        for _ in range(polls):
            result = await call("Runtime.evaluate", expression="document.body ? document.body.innerText : ''")
            text = result.get("result", {}).get("value") or ""
            if all(w in text for w in wanted):
                break
            await asyncio.sleep(0.5)
        return text

    return asyncio.run(_with_page(tmp_path, read))


def element_screenshot(tmp_path: Path, url: str, selector: str, width: int = 1100) -> Path:
    """A PNG of the element `selector` matches, laid out in a page `width` pixels wide."""
    out = Path(tempfile.mkdtemp(prefix="shot-", dir=tmp_path)) / "element.png"

    async def shoot(call) -> Path:
        await call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
        await call("Page.enable")
        await call("Page.navigate", url=url)
        box = None
        for _ in range(100):
            expression = (f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                          " const r = e.getBoundingClientRect();"
                          " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()")
            result = await call("Runtime.evaluate", expression=expression, returnByValue=True)
            box = result.get("result", {}).get("value")
            if box:
                break
            await asyncio.sleep(0.2)
        assert box, f"{selector} not in {url}"
        clip = {"x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1}
        shot = await call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
        out.write_bytes(base64.b64decode(shot["data"]))
        return out

    return asyncio.run(_with_page(tmp_path, shoot))


async def _with_page(tmp_path: Path, work):
    """Run `work(call)` against one page of a headless Chromium driven over the DevTools protocol."""
    import aiohttp

    profile = Path(tempfile.mkdtemp(prefix="profile-", dir=tmp_path))
    browser = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1",
                                "--remote-debugging-port=0", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        for _ in range(600):
            if port_file.is_file() and port_file.read_text().strip():
                break
            await asyncio.sleep(0.1)
        port = port_file.read_text().splitlines()[0]
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as answer:
                page = next(t for t in await answer.json() if t["type"] == "page")
            async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                calls = iter(range(1, 1_000_000))

                async def call(method: str, **params):
                    ident = next(calls)
                    await ws.send_json({"id": ident, "method": method, "params": params})
                    while True:
                        message = await ws.receive_json()
                        if message.get("id") == ident:
                            return message.get("result", {})

                return await work(call)
    finally:
        browser.terminate()
        browser.wait()
