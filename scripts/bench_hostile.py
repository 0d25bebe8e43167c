"""Hostile inputs, built here, each run through `summarize` alone and beside a good file.

    python scripts/bench_hostile.py              # every case, bombs inflating to 5 GB
    python scripts/bench_hostile.py --fast       # the cases the test suite runs (tests/test_hostile.py)
    python scripts/bench_hostile.py --only epub  # the cases whose name holds "epub"

Each case is a file (compression bombs whose ZIP directory lies about their size, an EPUB whose
chapters inflate 250 times, parts a reader never needs, table rows no JSON reader should hold,
names with control characters...) and what `summarize` must do with it: its exit status and the
one line on stderr that names the file. Beside a good file, the good file must still be
summarized. Prints one row a case: whether it held both ways, peak memory (the larger run's
maximum resident set) and seconds, then the failures; exits 1 when a case failed.
"""

from __future__ import annotations

import argparse
import bz2
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from summarizer.errors import quoted

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = "from bertsum.launch import summarize; summarize()"  # what the installed command runs
MAX_PEAK_MB = 600
FAST_SCALE, FULL_SCALE = 200_000_000, 5_000_000_000  # what a bomb inflates to: --fast, and every case
ARTICLE = (
    "The river flooded the old town on Tuesday night. "
    "Hundreds of residents were moved to the school gym. "
    "Officials said the water rose faster than expected. "
    "Volunteers brought blankets and hot food."
)
GOOD = "good.txt"


@dataclass(frozen=True)
class Case:
    """A hostile file, named `name` and built by `build(scale)` (`scale`: how far a bomb inflates,
    in bytes), and what summarizing it must give: `status` and a line on stderr holding `says`."""

    id: str
    name: str
    build: Callable[[int], bytes]
    status: int
    says: str
    args: tuple[str, ...] = ()
    fast: bool = True
    seconds: float = 60.0  # at most, alone or beside the good file
    table: bool = False  # a table (`--text-field text`) whose good rows are around the bad one, read alone


# ZIP archives written member by member, so that the directory may say what it likes.


def archive(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """A ZIP archive of (name, compression method, stored bytes, CRC, size the directory claims)."""
    out, directory = io.BytesIO(), []
    for name, method, stored, crc, size in members:
        offset, encoded = out.tell(), name.encode()
        out.write(
            struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 33, crc, len(stored), size, len(encoded), 0)
        )
        out.write(encoded + stored)
        directory.append(
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                20,
                20,
                0,
                method,
                0,
                33,
                crc,
                len(stored),
                size,
                len(encoded),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + encoded
        )
    start = out.tell()
    out.write(b"".join(directory))
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), out.tell() - start, start, 0))
    return out.getvalue()


def plain(name: str, data: bytes) -> tuple[str, int, bytes, int, int]:
    """A member stored as it is, its size told truly."""
    return name, zipfile.ZIP_STORED, data, zlib.crc32(data), len(data)


def deflated(name: str, data: bytes) -> tuple[str, int, bytes, int, int]:
    """A member deflated, its size told truly."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return name, zipfile.ZIP_DEFLATED, compressor.compress(data) + compressor.flush(), zlib.crc32(data), len(data)


def deflate_bomb(size: int) -> bytes:
    """A raw deflate stream of `size` zero bytes (to the MB), built from one compressed MB repeated."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    megabyte = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return megabyte * max(1, size >> 20) + zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS).flush()


def bzip2_bomb(size: int) -> bytes:
    """A bzip2 stream of `size` zero bytes."""
    compressor, chunk = bz2.BZ2Compressor(9), bytes(1 << 24)
    parts = [compressor.compress(chunk) for _ in range(max(1, size // len(chunk)))]
    return b"".join(parts) + compressor.flush()


def bomb(method: int, size: int) -> tuple[int, bytes]:
    return method, deflate_bomb(size) if method == zipfile.ZIP_DEFLATED else bzip2_bomb(size)


def lying(name: str, method: int, size: int) -> tuple[str, int, bytes, int, int]:
    """A member that inflates to `size` bytes while the directory says 1,000 (and its CRC is 0)."""
    method, stored = bomb(method, size)
    return name, method, stored, 0, 1_000


WORD_TYPES = (
    b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>'
    b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    b'<Override PartName="/word/document.xml" '
    b'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
WORD_RELATIONSHIPS = [
    (
        "_rels/.rels",
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship '
        f'Id="rId1" Type="{RELATIONSHIPS}/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    (
        "word/_rels/document.xml.rels",
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship '
        f'Id="rId2" Type="{RELATIONSHIPS}/image" Target="media/image1.png"/></Relationships>',
    ),
]
W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def word_body(paragraphs: list[str]) -> bytes:
    body = "".join(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>" for text in paragraphs).encode()
    return b'<?xml version="1.0"?><w:document ' + W + b"><w:body>" + body + b"</w:body></w:document>"


def docx(*extra: tuple[str, int, bytes, int, int], body: bytes | None = None) -> bytes:
    members = [plain("[Content_Types].xml", WORD_TYPES), *(plain(n, x.encode()) for n, x in WORD_RELATIONSHIPS)]
    if body is not None:
        members.append(deflated("word/document.xml", body))
    return archive([*members, *extra])


ODT_MIMETYPE = plain("mimetype", b"application/vnd.oasis.opendocument.text")


CONTAINER = (
    b'<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles>'
    b'<rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'
)


def package_document(chapters: int) -> bytes:
    """An EPUB's package document whose spine is `chapters` chapters, c0.xhtml onwards."""
    items = "".join(f'<item id="c{n}" href="c{n}.xhtml" media-type="application/xhtml+xml"/>' for n in range(chapters))
    spine = "".join(f'<itemref idref="c{n}"/>' for n in range(chapters))
    return (
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        f"<manifest>{items}</manifest><spine>{spine}</spine></package>"
    ).encode()


def epub(chapters: list[bytes]) -> bytes:
    """An EPUB of `chapters`, deflated, its directory telling the truth (written by zipfile)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", CONTAINER)
        book.writestr("content.opf", package_document(len(chapters)))
        for n, text in enumerate(chapters):
            book.writestr(f"c{n}.xhtml", text)
    return out.getvalue()


def chapter(size: int) -> bytes:
    paragraph = f"<p>{ARTICLE}</p>\n".encode()
    return b"<html><body>" + paragraph * max(1, size // len(paragraph)) + b"</body></html>"


def epub_of_chapters(total: int) -> bytes:
    return epub([chapter(total // 20)] * 20)


def jsonl(*rows: str) -> bytes:
    good = json.dumps({"text": ARTICLE})
    return "\n".join([good, *rows, good]).encode() + b"\n"


def cases() -> list[Case]:
    deflate, bzip2 = zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2
    unpacks = "unpacks to more than 30 MB of text"
    return [
        Case(
            "docx deflate bomb",
            "bomb.docx",
            lambda s: docx(lying("word/document.xml", deflate, s)),
            1,
            unpacks,
            fast=False,
        ),
        Case("docx bzip2 bomb", "bomb.docx", lambda s: docx(lying("word/document.xml", bzip2, s)), 1, unpacks),
        Case(
            "odt deflate bomb",
            "bomb.odt",
            lambda s: archive([ODT_MIMETYPE, lying("content.xml", deflate, s)]),
            1,
            unpacks,
            fast=False,
        ),
        Case(
            "pptx bzip2 bomb",
            "bomb.pptx",
            lambda s: archive([lying("ppt/presentation.xml", bzip2, s)]),
            1,
            unpacks,
            fast=False,
        ),
        Case(
            "epub bzip2 bomb chapter",
            "bomb.epub",
            lambda s: archive(
                [
                    plain("mimetype", b"application/epub+zip"),
                    plain("META-INF/container.xml", CONTAINER),
                    plain("content.opf", package_document(1)),
                    lying("c0.xhtml", bzip2, s),
                ]
            ),
            1,
            unpacks,
            fast=False,
        ),
        Case("epub of 95 MB of chapters in 0.4 MB", "long.epub", lambda s: epub_of_chapters(95_000_000), 1, unpacks),
        Case(
            "docx with a bomb in a part never read",
            "picture.docx",
            lambda s: docx(lying("word/media/image1.png", bzip2, s), body=word_body([ARTICLE])),
            0,
            "",
        ),
        Case(
            "jsonl row with a 10,000-digit integer",
            "rows.jsonl",
            lambda s: jsonl('{"id": ' + "9" * 10_000 + ', "text": "x"}'),
            1,
            "row 2: field 'id': an integer of 10000 digits",
            table=True,
            fast=False,
        ),
        Case(
            "jsonl row of arrays nested 100,000 deep",
            "rows.jsonl",
            lambda s: jsonl('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"),
            1,
            "row 2: malformed JSON: arrays or objects nested too deeply",
            table=True,
            fast=False,
        ),
        Case("a name with a newline", "bad\nname.txt", lambda s: b"\x00\x01", 1, "binary file, not text", fast=False),
        Case("a name with an escape sequence", "\x1b[2Jx.txt", lambda s: b"", 1, "empty file", fast=False),
        Case(
            "docx whose text passes the input limit",
            "long.docx",
            lambda s: docx(plain("word/media/image1.png", b"\x89PNG"), body=word_body([ARTICLE] * 8_000)),
            1,
            "its text is larger than the input limit of 1 MB",
            args=("--max-input-mb", "1"),
        ),
    ]


# Running them.


@dataclass
class Result:
    case: Case
    peak_mb: float = 0.0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


def summarize(folder: Path, args: list[str], timeout: float) -> tuple[int, str, str, float, float]:
    """Run `summarize` in `folder`: exit status, stdout, stderr, peak memory (MB) and seconds."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([sys.executable, "-c", LAUNCH, *args], cwd=folder, env=env, stdout=out, stderr=err)
        peak = 0.0
        while process.poll() is None:
            peak = max(peak, high_water_mb(process.pid))
            if time.perf_counter() - start > timeout:
                process.kill()
            time.sleep(0.02)
        seconds, code = time.perf_counter() - start, process.returncode
        out.seek(0), err.seek(0)
        return code, out.read().decode(errors="replace"), err.read().decode(errors="replace"), peak, seconds


def high_water_mb(pid: int) -> float:
    """The peak resident memory of process `pid` so far (VmHWM: since it started its program; the
    resource usage `wait4` reports counts the parent's memory it was forked with)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")), 0.0)


def run(case: Case, scale: int, folder: Path, alone: bool = True) -> Result:
    """Summarize the case's file beside a good file (and first `alone`) in `folder`; a table,
    whose good rows are in it, alone only."""
    result = Result(case)
    path = folder / case.name
    path.write_bytes(case.build(scale))
    (folder / GOOD).write_text(ARTICLE)
    for beside in (False,) if case.table else (False, True) if alone else (True,):
        inputs = [case.name, GOOD] if beside else [case.name]
        options = ("--text-field", "text") if case.table else ()
        code, out, err, peak, seconds = summarize(folder, [*options, *case.args, *inputs, "-k", "1"], case.seconds + 30)
        result.peak_mb, result.seconds = max(result.peak_mb, peak), max(result.seconds, seconds)
        how = "beside a good file" if beside else "alone"
        lines = err.splitlines()
        expected_lines = 1 if case.says else 0
        if code != case.status:
            result.failures.append(f"{how}: exit status {code}, not {case.status}")
        named = quoted(case.name)
        if len(lines) != expected_lines or (case.says and not (case.says in lines[0] and named in lines[0])):
            result.failures.append(f"{how}: stderr {err[:300]!r}")
        if case.table and sum('"summary": "' in line for line in out.splitlines()) != 2:
            result.failures.append(f"{how}: the good rows were not summarized")
        if beside and ARTICLE.split(".")[0] not in out:
            result.failures.append(f"{how}: the good file was not summarized")
        if peak > MAX_PEAK_MB:
            result.failures.append(f"{how}: peak memory {peak:.0f} MB")
        if seconds > case.seconds:
            result.failures.append(f"{how}: {seconds:.1f} s")
    path.unlink()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="only the cases the test suite runs, bombs of 200 MB")
    parser.add_argument("--only", help="only the cases whose name holds this")
    args = parser.parse_args()
    chosen = [case for case in cases() if (case.fast or not args.fast) and (args.only or "") in case.id]
    scale = FAST_SCALE if args.fast else FULL_SCALE
    print(f"{'case':44} {'held':>5} {'peak MB':>8} {'seconds':>8}")
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for case in chosen:
            result = run(case, scale, Path(folder))
            results.append(result)
            print(
                f"{case.id:44} {'yes' if not result.failures else 'NO':>5} {result.peak_mb:8.0f} {result.seconds:8.1f}"
            )
    failed = [result for result in results if result.failures]
    print(f"\n{len(results)} cases, {len(failed)} failed; peak {max(r.peak_mb for r in results):.0f} MB")
    for result in failed:
        for failure in result.failures:
            print(f"{result.case.id}: {failure}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
