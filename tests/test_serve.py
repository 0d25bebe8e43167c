"""`summarize serve`: the service started as a process on a loopback port, asked over HTTP, its
page driven in headless Chromium, and a short bounded load with bad requests mixed in."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.datastructures import Headers
from test_cli import ARTICLE
from test_language import FRENCH

from summarizer.cli.command import main
from summarizer.pipeline import Summarizer
from summarizer.serve import inputs

LAUNCHER = "from bertsum.launch import summarize; summarize()"
NOTES = "# Notes\n\nA new library opened in the city centre. It holds more than fifty thousand books.\n\n" + (
    "Children can join reading clubs every Saturday. The building uses solar panels on its roof.\n"
)
JSON = {"Content-Type": "application/json"}
BOUNDARY = "bertsum-test-boundary"


@dataclass
class Service:
    port: int
    process: subprocess.Popen[str]
    log: list[str]


@contextmanager
def service(model: str | Path, *options: str, stopped: int = 143) -> Iterator[Service]:
    """`summarize serve` as its own process on a free loopback port; stopped by SIGTERM after,
    with exit status `stopped` (128 + SIGTERM; 0 from uvicorn's supervisor of several workers)."""
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, "serve", "--model", str(model), "--port", "0", *options],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    lines: queue.Queue[str | None] = queue.Queue()
    log: list[str] = []

    def collect() -> None:
        for line in process.stderr or []:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=collect, daemon=True).start()
    port = None
    deadline = time.monotonic() + 180
    while port is None:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        assert line is not None, "the service ended before it listened:\n" + "".join(log)
        log.append(line)
        found = re.search(r"running on http://127\.0\.0\.1:(\d+)", line)  # the default address: loopback
        port = int(found.group(1)) if found else None
    while True:  # several workers listen once each has loaded the model, after the port is named
        try:
            call(port, "GET", "/health")
            break
        except ConnectionRefusedError:
            assert time.monotonic() < deadline and process.poll() is None, "".join(log)
            time.sleep(0.1)
    try:
        yield Service(port, process, log)
    finally:
        process.terminate()
        process.wait(timeout=120)
        while (line := lines.get(timeout=10)) is not None:
            log.append(line)
    assert process.returncode == stopped, "".join(log)
    assert "Traceback" not in "".join(log)


def call(port: int, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None):
    """(status, headers, body parsed as JSON where it is JSON) of one request."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(method, path, body, headers or {})
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    answer_headers = {name.lower(): value for name, value in response.getheaders()}
    parsed = json.loads(data) if answer_headers.get("content-type", "").startswith("application/json") else data
    return response.status, answer_headers, parsed


def post_json(port: int, path: str, payload: object):
    return call(port, "POST", path, json.dumps(payload).encode(), JSON)


def form(files: list[tuple[str, bytes]], **fields: str) -> tuple[bytes, dict[str, str]]:
    """A multipart form: the `files` (name, bytes) as `file` fields, then the other fields."""
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    for name, data in files:
        head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        parts.append((head + "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n")
    body = b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}


@pytest.fixture(scope="module")
def local() -> Summarizer:
    return Summarizer.from_pretrained("news", precision="fp32")


@pytest.fixture(scope="module")
def server() -> Iterator[Service]:
    """The built-in model on ONNX Runtime, in fp32 (int8 depends on the CPU)."""
    options = ("--precision", "fp32", "--max-request-mb", "1", "--max-documents", "3")
    with service("news", *options) as running:
        yield running


# Without a process: the command line and the reading of uploads.


def test_serve_usage_and_model_errors_are_one_line(tiny_model_dir, tmp_path, monkeypatch, capsys):
    assert main(["serve", "--help"]) == 0
    assert "usage: summarize serve" in capsys.readouterr().out
    assert main(["serve", "--port", "70000"]) == 2
    assert "argument --port: expected a port number from 0 to 65535, got '70000'" in capsys.readouterr().err
    monkeypatch.setenv("BERTSUM_SERVE_TIMEOUT", "soon")
    assert main(["serve", "--model", str(tiny_model_dir)]) == 2
    assert capsys.readouterr().err == "summarize serve: $BERTSUM_SERVE_TIMEOUT: expected a number above 0, got 'soon'\n"
    monkeypatch.delenv("BERTSUM_SERVE_TIMEOUT")
    assert main(["serve", "--model", str(tmp_path / "missing")]) == 2  # before any port is opened
    err = capsys.readouterr().err
    assert err == f"summarize serve: {tmp_path / 'missing'}: no such model directory\n"


def test_an_upload_is_read_in_memory_however_large(monkeypatch):
    """Starlette spools a file of more than 1 MB to disk; within the request limit, ours never is."""
    rolled = []
    temporary_file = tempfile.TemporaryFile  # where a spooled file goes once it is too large
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *args, **kwargs: rolled.append(1) or temporary_file())
    data = (ARTICLE + "\n\n").encode() * 12_000  # 3.5 MB
    body, headers = form([("long.txt", data)], k="2")
    ask = asyncio.run(inputs.parse(Headers(headers), body, batch=False, max_documents=1))
    assert ask.sources[0].data == data and ask.sources[0].format == "text" and ask.selection.k == 2
    assert not rolled


# The service as a process (slow: it starts one).


@pytest.mark.slow
def test_health_models_and_the_page(server):
    assert call(server.port, "GET", "/health")[2] == {"status": "ok", "in_flight": 0}
    model = {"name": "news", "backend": "onnx", "precision": "fp32", "language": "english", "languages": ["en"]}
    assert call(server.port, "GET", "/v1/models")[2] == {"models": [model]}
    status, headers, page = call(server.port, "GET", "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in headers["content-security-policy"]
    for path in ("/", "/page.js", "/page.css"):  # nothing from elsewhere: the page works offline
        assert not re.search(rb"(https?:)?//[a-z]", call(server.port, "GET", path)[2].replace(b"//127.0.0.1", b""))


@pytest.mark.slow
def test_text_and_upload_answer_as_summarize_does(server, local):
    status, _, answer = post_json(server.port, "/v1/summarize", {"text": ARTICLE, "k": 2})
    expected = local.summarize(ARTICLE, k=2)
    assert status == 200
    assert answer["indices"] == expected.indices and answer["sentences"] == expected.sentences
    assert answer["scores"] == pytest.approx(expected.scores, abs=1e-5)
    assert answer["document"] == expected.document and answer["summary"] == str(expected)
    assert answer["paragraphs"] == [0] * 5 and answer["file"] is None

    body, headers = form([("notes.md", NOTES.encode())], ratio="0.5", order="score")
    status, _, answer = call(server.port, "POST", "/v1/summarize", body, headers)
    expected = local.summarize(NOTES, ratio=0.5, order="score", format="markdown")  # by the file's name
    assert status == 200 and answer["file"] == "notes.md"
    assert answer["indices"] == expected.indices and "Notes" not in " ".join(answer["document"])
    assert answer["paragraphs"] == [0, 0, 1, 1]


@pytest.mark.slow
def test_batch_of_json_texts_and_of_files(server, local):
    status, _, answer = post_json(server.port, "/v1/summarize/batch", {"documents": [ARTICLE, " ", NOTES], "k": 1})
    assert status == 200
    first, blank, last = answer["summaries"]
    assert first["indices"] == local.summarize(ARTICLE, k=1).indices
    assert blank == {"file": None, "error": "documents[1]: empty"}  # the rest are still summarized
    assert last["indices"] == local.summarize(NOTES, k=1).indices  # JSON text is plain text unless told

    body, headers = form([("a.txt", ARTICLE.encode()), ("b.md", NOTES.encode())], max_words="12")
    status, _, answer = call(server.port, "POST", "/v1/summarize/batch", body, headers)
    assert status == 200 and [summary["file"] for summary in answer["summaries"]] == ["a.txt", "b.md"]
    assert answer["summaries"][1]["indices"] == local.summarize(NOTES, max_words=12, format="markdown").indices


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "body", "content_type", "status", "field", "message"),
    [
        ("/v1/summarize", {"text": ARTICLE, "length": 2}, "json", 422, "length", "length: unknown field"),
        ("/v1/summarize", {"text": ARTICLE, "k": 0}, "json", 422, "k", "k: must be at least 1, got 0"),
        ("/v1/summarize", {"text": ARTICLE, "k": 2.5}, "json", 422, "k", "k: expected a whole number, got 2.5"),
        ("/v1/summarize", {"text": ARTICLE, "k": True}, "json", 422, "k", "k: expected a whole number, got true"),
        ("/v1/summarize", {"text": ARTICLE, "ratio": 1.5}, "json", 422, "ratio", "ratio: must be in (0, 1]"),
        ("/v1/summarize", {"text": ARTICLE, "k": 2, "ratio": 0.5}, "json", 422, "ratio", "ratio: give only one"),
        ("/v1/summarize", {"text": ARTICLE, "order": "random"}, "json", 422, "order", "order: must be one of"),
        ("/v1/summarize", {"text": ARTICLE, "format": "exe"}, "json", 422, "format", "format: expected one of"),
        ("/v1/summarize", {"text": ["a"]}, "json", 422, "text", "text: expected text (a JSON string), got a list"),
        ("/v1/summarize", {"k": 2}, "json", 422, "text", "text: missing"),
        ("/v1/summarize", {"text": "  \n"}, "json", 422, "text", "text: empty"),
        ("/v1/summarize", {"text": "# A heading", "format": "markdown"}, "json", 422, "text", "text: no running"),
        ("/v1/summarize", {"text": "%PDF", "format": "pdf"}, "json", 422, "text", "text: a PDF is read from its bytes"),
        ("/v1/summarize", [ARTICLE], "json", 422, None, "the body must be a JSON object"),
        ("/v1/summarize", b'{"text": ', "json", 400, None, "the body is not valid JSON"),
        ("/v1/summarize", b"text=A", "application/x-www-form-urlencoded", 415, "content-type", "send application/json"),
        ("/v1/summarize", [("a.pdf", b"%PDF-1.4 broken")], "form", 422, "file", "a.pdf: not a readable PDF"),
        ("/v1/summarize", [("a.txt", b""), ("b.txt", b"")], "form", 422, "file", "form: Too many files"),
        ("/v1/summarize/batch", {"documents": ["a."] * 4}, "json", 422, "documents", "documents: 4 documents"),
        ("/v1/summarize/batch", {"documents": "a."}, "json", 422, "documents", "documents: expected a list"),
        ("/v1/summarize", {"text": ARTICLE, "language": 7}, "json", 422, "language", "language: expected text"),
        ("/v1/summarize", {"text": ARTICLE, "language": "xx"}, "json", 422, "language", "language: unknown language"),
        ("/v1/summarize", {"text": ARTICLE, "language": "de"}, "json", 422, "language", "language: language 'de' is"),
        ("/v1/summarize", [("a.txt", b"A.")], "form-de", 422, "language", "language: language 'de' is German"),
        ("/v1/summarize", {"text": FRENCH}, "json", 422, "text", "text: the document reads as French (fr); model"),
    ],
)
def test_bad_requests_get_a_json_error_naming_the_field(server, path, body, content_type, status, field, message):
    if content_type == "json":
        data, headers = (body if isinstance(body, bytes) else json.dumps(body).encode()), JSON
    elif content_type.startswith("form"):
        data, headers = form(body, **({"language": "de"} if content_type == "form-de" else {}))
    else:
        data, headers = body, {"Content-Type": content_type}
    answered, _, answer = call(server.port, "POST", path, data, headers)
    assert answered == status
    assert answer["error"].startswith(message) and answer.get("field") == field
    assert "Traceback" not in answer["error"] and "\n" not in answer["error"]


@pytest.mark.slow
def test_a_request_names_its_language_and_each_answer_says_it(server, local):
    status, _, answer = post_json(server.port, "/v1/summarize", {"text": FRENCH, "language": "en", "k": 1})
    assert status == 200 and answer["language"] == "en"
    assert answer["indices"] == local.summarize(FRENCH, k=1, language="en").indices
    status, _, answer = post_json(server.port, "/v1/summarize/batch", {"documents": [ARTICLE, FRENCH], "k": 1})
    english, french = answer["summaries"]
    assert status == 200 and english["language"] == "en"
    assert french["error"].startswith("documents[1]: the document reads as French (fr); model 'news' covers")


@pytest.mark.slow
def test_size_limit_unknown_paths_and_methods(server):
    status, headers, answer = call(server.port, "POST", "/v1/summarize", b"", {**JSON, "Content-Length": "1000001"})
    assert (status, headers["connection"]) == (413, "close")  # answered before the body is sent, then closed
    assert answer == {"error": "the request is larger than the limit of 1 MB"}

    def chunks() -> Iterator[bytes]:  # no declared length: counted as it comes
        for _ in range(12):
            yield b" " * 100_000

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request("POST", "/v1/summarize", chunks(), JSON, encode_chunked=True)
        assert connection.getresponse().status == 413
    except ConnectionError:  # closed while the rest was sent: the limit held too
        pass
    finally:
        connection.close()
    assert call(server.port, "GET", "/v1/summarise")[:3:2] == (404, {"error": "Not Found"})
    assert call(server.port, "GET", "/v1/summarize")[:3:2] == (405, {"error": "Method Not Allowed"})


@pytest.mark.slow
def test_time_limit_then_requests_in_flight(tiny_model_dir):
    """A request past the time limit is answered 504; its work still holds the only slot, so the
    next is refused at once with 503 and Retry-After; once the work ends, requests are answered."""
    long_text = (ARTICLE + " ") * 1500  # 400 kB: seconds of work for the tiny model
    options = ("--timeout", "0.5", "--max-in-flight", "1", "--threads", "1")
    with service(tiny_model_dir, *options) as running:
        (model,) = call(running.port, "GET", "/v1/models")[2]["models"]
        assert (model["name"], model["backend"]) == (tiny_model_dir.name, "torch")  # never the directory's path
        began = time.monotonic()
        status, _, answer = post_json(running.port, "/v1/summarize", {"text": long_text})
        assert (status, answer) == (504, {"error": "not answered within the time limit of 0.5 s"})
        assert time.monotonic() - began < 5
        status, headers, answer = post_json(running.port, "/v1/summarize", {"text": ARTICLE})
        assert (status, headers["retry-after"]) == (503, "1") and "requests are in hand" in answer["error"]
        deadline = time.monotonic() + 120
        while call(running.port, "GET", "/health")[2]["in_flight"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert post_json(running.port, "/v1/summarize", {"text": ARTICLE})[0] == 200


@pytest.mark.slow
def test_workers_each_load_the_model(local):
    with service("news", "--precision", "fp32", "--workers", "2", "--threads", "1", stopped=0) as running:
        for _ in range(4):
            status, _, answer = post_json(running.port, "/v1/summarize", {"text": ARTICLE, "k": 2})
            assert status == 200 and answer["indices"] == local.summarize(ARTICLE, k=2).indices
    assert sum("Application startup complete" in line for line in running.log) == 2


@pytest.mark.slow
def test_bounded_load_with_bad_requests(server, local):
    """4 clients for 3 seconds, one request in 10 bad: each gets its own answer, no 5xx."""
    texts = [ARTICLE, NOTES, ARTICLE.replace("river", "canal"), " ".join(reversed(ARTICLE.split(". ")))]
    expected = [local.summarize(text).indices for text in texts]
    bad = [({"text": ARTICLE, "k": -1}, 422), ({"text": ""}, 422), ({"txt": ARTICLE}, 422), (b"{", 400)]
    problems: list[str] = []
    answered = []

    def client(seed: int) -> None:
        chance = random.Random(seed)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            if chance.random() < 0.1:
                payload, status = chance.choice(bad)
                body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                got, _, answer = call(server.port, "POST", "/v1/summarize", body, JSON)
                if got != status or "error" not in answer:
                    problems.append(f"bad request {payload!r}: {got} {answer}")
                continue
            index = chance.randrange(len(texts))
            got, _, answer = post_json(server.port, "/v1/summarize", {"text": texts[index]})
            if got != 200 or answer["indices"] != expected[index]:
                problems.append(f"text {index}: {got} {answer}")
            answered.append(index)

    clients = [threading.Thread(target=client, args=(seed,)) for seed in range(4)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join(timeout=120)
    assert not problems and len(answered) >= 8
    assert call(server.port, "GET", "/health")[2] == {"status": "ok", "in_flight": 0}


# The page in headless Chromium.


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="the page test needs selenium")
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (binary and driver):
        pytest.skip("no Chromium with its driver (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver))
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.mark.slow
def test_page_in_chromium(browser, server, local, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.get(f"http://127.0.0.1:{server.port}/")
    browser.find_element(By.ID, "text").send_keys(ARTICLE)
    Select(browser.find_element(By.ID, "length")).select_by_value("k")
    amount = browser.find_element(By.ID, "amount")
    amount.clear()
    amount.send_keys("2")
    browser.find_element(By.ID, "go").click()
    WebDriverWait(browser, 60).until(lambda page: page.find_element(By.ID, "result").is_displayed())
    expected = local.summarize(ARTICLE, k=2)
    marks = [mark.text for mark in browser.find_elements(By.CSS_SELECTOR, "#document mark")]
    assert marks == [expected.document[i] for i in sorted(expected.indices)]
    scores = [float(score.text) for score in browser.find_elements(By.CSS_SELECTOR, "#document .score")]
    assert scores == pytest.approx([expected.sentence_scores[i] for i in sorted(expected.indices)], abs=1e-3)
    assert [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#summary li")] == expected.sentences
    assert len(browser.find_elements(By.CSS_SELECTOR, "#document p > span:not(.score)")) == 3
    assert browser.find_element(By.ID, "status").text == "2 of 5 sentences."

    notes = tmp_path / "notes.md"
    notes.write_text(NOTES, encoding="utf-8")
    browser.find_element(By.ID, "file").send_keys(str(notes))  # as a file dropped or chosen
    browser.find_element(By.ID, "go").click()
    WebDriverWait(browser, 60).until(lambda page: page.find_element(By.ID, "title").text == "notes.md")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#document p")) == 2  # by its name: Markdown, no heading
    assert len(browser.find_elements(By.CSS_SELECTOR, "#document mark")) == 2  # k is still 2

    browser.find_element(By.ID, "clear").click()
    browser.execute_script(  # a file dropped on the page
        "const files = new DataTransfer();"
        "files.items.add(new File([arguments[0]], 'dropped.md'));"
        "document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: files, bubbles: true}));",
        NOTES,
    )
    Select(browser.find_element(By.ID, "length")).select_by_value("ratio")  # 0.3 of 4 sentences: 1
    browser.find_element(By.ID, "go").click()
    WebDriverWait(browser, 60).until(lambda page: page.find_element(By.ID, "title").text == "dropped.md")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#document mark")) == 1

    browser.find_element(By.ID, "clear").click()
    browser.find_element(By.ID, "text").clear()
    browser.find_element(By.ID, "go").click()
    assert browser.find_element(By.ID, "status").text == "Paste some text or choose a file first."
    assert not [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]  # no blocked script
