"""No network, no stray files: `summarize` and the library reach no socket and write nothing but
their outputs and the package's cache, whatever the libraries under them would do by default.

Each run is a fresh process (telemetry is decided as a library loads) with its own HOME, TMPDIR
and working folder, all compared before and after.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = (
    "The river flooded the old town on Tuesday night. "
    "Hundreds of residents were moved to the school gym. "
    "Officials said the water rose faster than expected. "
    "Volunteers brought blankets and hot food."
)
# Run in the child first: any Python-level lookup or connection ends it with status 99 and the event.
GUARD = """
import os, socket, sys
NETWORK = {"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr",
           "socket.getnameinfo", "socket.sendto", "socket.sendmsg"}
def guard(event, args):
    if event in NETWORK or (event == "socket.connect" and args[0].family != socket.AF_UNIX):
        os.write(2, f"network: {event} {args[1:]!r}\\n".encode())
        os._exit(99)
sys.addaudithook(guard)
"""
LIBRARY = """
from summarizer import Summarizer
print(Summarizer.from_pretrained().summarize(open("a.txt").read(), k=1))
print(Summarizer.from_pretrained(backend="torch").summarize(open("page.html", "rb").read(), format="html", k=1))
"""
COMMAND = "from summarizer.cli.command import main; sys.exit(main(sys.argv[1:]))"


def isolated(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment with its own HOME and TMPDIR, and a working folder holding the inputs."""
    home, temporary, work = tmp_path / "home", tmp_path / "tmp", tmp_path / "work"
    for folder in (home, temporary, work):
        folder.mkdir()
    (work / "a.txt").write_text(ARTICLE)
    (work / "page.html").write_text(f"<html><body><article><p>{ARTICLE}</p></article></body></html>")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("XDG_", "BERTSUM_"))}
    env.update(HOME=str(home), TMPDIR=str(temporary), PYTHONPATH=str(ROOT))
    return env, work


def files_under(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*") if not path.is_dir()}


@pytest.mark.slow
def test_the_command_and_the_library_reach_no_socket_and_write_only_their_outputs(tmp_path):
    env, work = isolated(tmp_path)
    inputs = files_under(work)
    for code, args in [
        (LIBRARY, []),
        (COMMAND, ["a.txt", "page.html", "-k", "1", "-o", "out/"]),
        (COMMAND, ["a.txt", "--backend", "torch", "-o", "torch.txt"]),
    ]:
        done = subprocess.run(
            [sys.executable, "-c", GUARD + code, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
    assert files_under(work) == inputs | {"out/a.txt", "out/page.txt", "torch.txt"}
    assert files_under(tmp_path / "tmp") == set()
    assert {path for path in files_under(tmp_path / "home") if not path.startswith(".cache/bertsum/")} == set()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_a_long_run_makes_no_dns_lookup_or_connection_even_from_native_code(tmp_path):
    """ONNX Runtime's telemetry (native code, out of reach of Python's audit hooks) looks up its
    server once a run has lasted 10 seconds: the document is held back until then."""
    env, work = isolated(tmp_path)
    log = tmp_path / "strace.log"
    command = ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", str(log)]
    command += [sys.executable, "-c", "import sys;" + COMMAND, "-", "-k", "1"]
    with subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as run:
        assert run.stdin is not None
        time.sleep(12)  # the model is loaded by now, and waits for its document
        output, _ = run.communicate(ARTICLE.encode(), timeout=120)
    assert run.returncode == 0 and output.strip()
    calls = [line for line in log.read_text().splitlines() if "AF_INET" in line or "htons(53)" in line]
    assert calls == []
    assert files_under(tmp_path / "home") == set()
