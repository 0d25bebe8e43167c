"""Load on `summarize serve`: concurrent clients on loopback for a fixed time, bad requests mixed in.

First `summarize_batch` summarizes the documents in this process (documents per second; again
after the load, as other work on the machine may change), and
`summarize` each of them (the indices its summary must have, as `summarize FILE` gives them);
then the service is started as its own process, on a free loopback port, and `--clients`
clients send the same documents, one request each, for `--duration` seconds, a `--bad`
fraction of them bad requests (unknown fields, bad values, empty text, malformed JSON, a body
past the size limit, unknown paths). Prints documents per second against `summarize_batch`'s
(target: at least 0.9 with 8 clients), latency (p50, p99), the answers by status, every answer
that is not the one expected (a 5xx but an intended 503 or 504, a good request whose indices
differ from `summarize`'s), and the service's resident memory minute by minute (a soak: the
last minute within 10% of the second).

    python scripts/bench_serve.py [--model M] [--data FILE.jsonl] [--limit 200] [--clients 8] \
        [--duration 60] [--bad 0.05]

A 10-minute soak: --duration 600 --bad 0.05.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from summarizer.pipeline import Summarizer

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bbc-news" / "validation.jsonl"
LAUNCHER = "from bertsum.launch import summarize; summarize()"
MAX_REQUEST_MB = 1
JSON = {"Content-Type": "application/json"}
# (method, path, body, headers, the status it must get)
BAD_REQUESTS = [
    ("POST", "/v1/summarize", b'{"text": "A sentence. Another one.", "length": 3}', JSON, 422),
    ("POST", "/v1/summarize", b'{"text": "A sentence. Another one.", "k": 0}', JSON, 422),
    ("POST", "/v1/summarize", b'{"text": "   "}', JSON, 422),
    ("POST", "/v1/summarize", b'{"text": "A sentence.", ', JSON, 400),
    ("POST", "/v1/summarize", b"text=A+sentence.", {"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ("POST", "/v1/summarize", b"", {**JSON, "Content-Length": str(MAX_REQUEST_MB * 1_000_000 + 1)}, 413),
    ("POST", "/v1/summarize/batch", b'{"documents": []}', JSON, 422),
    ("GET", "/v1/summarise", None, {}, 404),
]


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    good: int = 0

    def add(self, status: int, expected: int, seconds: float, problem: str | None, good: bool) -> None:
        with self.lock:
            self.statuses[status] += 1
            if good and status == 200 and problem is None:
                self.good += 1
                self.latencies.append(seconds)
            if problem is None and status != expected and status not in (503, 504):
                problem = f"status {status}, expected {expected}"
            if problem is not None:
                self.unexpected.append(problem)


def start_service(model: str | None, port_log: list[str]) -> tuple[subprocess.Popen[str], int]:
    """The service as its own process on a free loopback port; its port once it answers."""
    command = [sys.executable, "-c", LAUNCHER, "serve", "--port", "0", "--max-request-mb", str(MAX_REQUEST_MB)]
    command += ["--model", model] if model else []
    service = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert service.stderr is not None
    for line in service.stderr:
        port_log.append(line)
        found = re.search(r"running on http://127\.0\.0\.1:(\d+)", line)
        if found:
            threading.Thread(target=lambda: port_log.extend(service.stderr or []), daemon=True).start()
            return service, int(found.group(1))
    raise SystemExit("the service did not start:\n" + "".join(port_log))


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def client(
    port: int, bodies: list[bytes], expected: list[list[int]], bad: float, deadline: float, tally: Tally, seed: int
) -> None:
    chance = random.Random(seed)
    order = itertools.cycle(range(seed, seed + len(bodies)))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while time.monotonic() < deadline:
        if chance.random() < bad:
            method, path, body, headers, status = chance.choice(BAD_REQUESTS)
            good, index = False, -1
        else:
            index = next(order) % len(bodies)
            method, path, body, headers, status = "POST", "/v1/summarize", bodies[index], JSON, 200
            good = True
        began = time.perf_counter()
        try:
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            answer = json.loads(response.read())
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            tally.add(0, status, 0.0, f"{path}: {type(error).__name__}: {error}", good)
            continue
        seconds = time.perf_counter() - began
        problem = None
        if "error" not in answer and good and answer["indices"] != expected[index]:
            problem = f"document {index}: indices {answer['indices']}, summarize gives {expected[index]}"
        elif response.status >= 400 and not isinstance(answer.get("error"), str):
            problem = f"{path}: status {response.status} without a JSON error"
        if response.will_close:  # as after a 413: the rest of that body was never read
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        tally.add(response.status, status, seconds, problem, good)


def batch_rate(summarizer: Summarizer, texts: list[str]) -> float:
    """Documents per second of `summarize_batch` on `texts`."""
    began = time.perf_counter()
    list(summarizer.summarize_batch(texts))
    return len(texts) / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="a built-in model or a model directory (default: news)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="JSON Lines with a `text` field")
    parser.add_argument("--limit", type=int, default=200, help="documents")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--bad", type=float, default=0.0, help="fraction of bad requests")
    args = parser.parse_args()
    with args.data.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in itertools.islice(lines, args.limit)]

    summarizer = Summarizer.from_pretrained(args.model)
    list(summarizer.summarize_batch(texts[:16]))  # warm
    before = batch_rate(summarizer, texts)
    expected = [summarizer.summarize(text).indices for text in texts]  # as `summarize FILE` gives
    print(f"summarize_batch: {len(texts)} documents, {before:.2f} documents/s")

    log: list[str] = []
    service, port = start_service(args.model, log)
    bodies = [json.dumps({"text": text}).encode() for text in texts]
    try:
        warm = Tally()
        client(port, bodies[:4], expected[:4], 0.0, time.monotonic() + 2, warm, 0)
        tally = Tally()
        began = time.monotonic()
        deadline = began + args.duration
        threads = [
            threading.Thread(target=client, args=(port, bodies, expected, args.bad, deadline, tally, i * 7919))
            for i in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        memory: list[tuple[float, float]] = []
        while any(thread.is_alive() for thread in threads):
            memory.append((time.monotonic() - began, resident_mb(service.pid)))
            time.sleep(5)
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - began
    finally:
        service.terminate()
        service.wait(timeout=120)
    after = batch_rate(summarizer, texts)
    print(f"summarize_batch again, after: {after:.2f} documents/s")
    rate = tally.good / elapsed
    print(f"service, {args.clients} clients, {elapsed:.0f} s, {args.bad:.0%} bad requests:", end=" ")
    print(f"{tally.good} documents, {rate:.2f} documents/s")
    print(
        f"ratio to summarize_batch (the mean of before and after): {2 * rate / (before + after):.2f} (target >= 0.90)"
    )
    if tally.latencies:
        cuts = statistics.quantiles(tally.latencies, n=100)
        print(f"latency of good requests: p50 {cuts[49] * 1000:.0f} ms, p99 {cuts[98] * 1000:.0f} ms")
    print("answers by status:", dict(sorted(tally.statuses.items())))
    print(f"unexpected answers: {len(tally.unexpected)}")
    for problem in tally.unexpected[:10]:
        print("  ", problem)
    minutes: dict[int, list[float]] = {}
    for second, megabytes in memory:
        minutes.setdefault(int(second // 60), []).append(megabytes)
    print("resident memory by minute (MB):", ", ".join(f"{max(values):.0f}" for values in minutes.values()))
    if len(minutes) >= 3:
        second_minute, last_minute = max(minutes[1]), max(minutes[max(minutes)])
        print(f"last minute / second minute: {last_minute / second_minute:.3f} (target within 10%)")
    if service.returncode not in (0, -15, 143):
        print(f"the service exited with {service.returncode}:\n" + "".join(log[-20:]))


if __name__ == "__main__":
    main()
