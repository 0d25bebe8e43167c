"""Outputs that appear whole or not at all; devices are written into, never replaced. Files
that installed distributions ship, and directories unpacked from them once."""

from __future__ import annotations

import errno
import importlib.metadata
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from summarizer.errors import InputError, OutputError, quoted

# Paths that name open files (/dev/stdout, /proc/self/fd/1), even where they lead to a regular file.
_OPEN_FILE_PATHS = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/")
_TEMPORARY: set[Path] = set()  # the temporary files of `atomic_file` now being written


class checked:
    """A text stream whose write errors are `OutputError`s naming `name`.

    A reader that closed the pipe stays a `BrokenPipeError`, which callers end quietly on.
    """

    def __init__(self, out: IO[str], name: str) -> None:
        self.out = out
        self.name = name

    def write(self, text: str) -> int:
        with named(self.name):
            return self.out.write(text)

    def flush(self) -> None:
        with named(self.name):
            self.out.flush()


@contextmanager
def named(name: str) -> Iterator[None]:
    """OSErrors inside become `OutputError`s naming `name` (a closed pipe excepted)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(f"{name}: cannot write: {error.strerror or error}") from error


def is_stream(target: Path) -> bool:
    """Whether `target` is written into as it is: a path naming an open file (/dev/stdout,
    /dev/fd/N, /proc/...), or an existing file that is neither regular nor a directory (a
    device, a FIFO, a socket)."""
    if os.path.abspath(target).startswith(_OPEN_FILE_PATHS):
        return True
    try:
        mode = os.stat(target).st_mode
    except OSError:  # missing (to be created), or unreachable: the write will say why
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def atomic_writer(target: Path) -> Iterator[checked]:
    """A text file that appears at `target` only once it is completely written.

    A regular file is written beside its target and renamed over it, so a reader sees the old
    file or the new one, never a part; a symbolic link stays a link, the file it names is
    replaced. A device, FIFO or /dev/stdout (`is_stream`) is written into, as `cat >> target`
    does: appending, so that a file stdout points to (`summarize -o /dev/stdout >> log`) keeps
    what it held.
    """
    name = quoted(str(target))
    if is_stream(target):
        with named(name):
            stream = open(target, "a", encoding="utf-8")
        with _closing(stream):
            out = checked(stream, name)
            yield out  # errors of the caller's own work pass through unchanged
            out.flush()
        return
    with atomic_file(target) as temporary:
        with named(name):
            stream = open(temporary, "w", encoding="utf-8")
        with _closing(stream) as file:
            out = checked(file, name)
            yield out
            out.flush()


@contextmanager
def atomic_file(target: Path) -> Iterator[Path]:
    """A new, empty file beside `target` for the caller to write (under any name, in any mode:
    a Parquet writer opens it itself), renamed over `target` once the caller is done and
    removed if it fails; a symbolic link at `target` stays a link, the file it names is replaced."""
    name = quoted(str(target))
    with named(name):
        target = Path(os.path.realpath(target))
        if target.parent.exists() and not target.parent.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        target.parent.mkdir(parents=True, exist_ok=True)
    temporary = None
    try:
        with named(name):
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            os.close(handle)
        _TEMPORARY.add(Path(temporary))
        yield Path(temporary)
        with named(name):
            _publish(Path(temporary), target)
    except BaseException:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        if temporary is not None:
            _TEMPORARY.discard(Path(temporary))


def remove_temporary_files() -> None:
    """Remove the temporary files being written now (a run ended from another thread)."""
    for temporary in list(_TEMPORARY):
        temporary.unlink(missing_ok=True)


@contextmanager
def _closing(stream: IO[str]) -> Iterator[IO[str]]:
    """`stream`, closed at the end; closing after a failed write must not hide that error."""
    try:
        yield stream
    finally:
        try:
            stream.close()
        except OSError:  # data left in the buffer after a failed write: already reported
            pass


def _publish(temporary: Path, target: Path) -> None:
    """Rename `temporary` to `target` with the replaced file's permissions, or a new file's."""
    if target.exists():
        os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
    else:  # mkstemp made it 0600; a new file gets what the umask allows
        os.chmod(temporary, new_file_mode())
    os.replace(temporary, target)


def new_file_mode() -> int:
    """The mode a new file gets under the process's umask: 0o666 less it."""
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it (other threads may be creating files)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    umask = os.umask(0o022)  # where /proc is absent: briefly set, then restored
    os.umask(umask)
    return umask


def distribution_file(package: str, matches: Callable[[str], bool], *, what: str, holds: str, install: str) -> Path:
    """The file of the installed distribution `package` whose path in it `matches`; an
    `InputError` saying that `what` is not installed, or that `package` holds no `holds`, with
    the command `install` that mends it."""
    try:
        files = importlib.metadata.distribution(package).files or []
    except importlib.metadata.PackageNotFoundError:
        raise InputError(f"{what} is not installed ({package} is missing); install it with `{install}`") from None
    for file in files:
        if matches(str(file)):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise InputError(f"{package} holds no {holds}; reinstall it with `{install}`")


COMPLETE = ".complete"  # written last into an unpacked directory, holding the stamp of its sources


def unpacked(target: Path, stamp: str, write: Callable[[Path], None]) -> Path:
    """`target`, a directory that `write(directory)` fills from sources identified by `stamp`.

    Done once: a `target` that is complete for this stamp is returned as it is. The directory is
    written beside `target`, flushed, and renamed into place whole, `.complete` last; processes
    unpacking the same target wait for each other; a directory without `.complete` (a run that
    was killed) is never read, but replaced."""
    if _is_complete(target, stamp):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.with_name(f".{target.name}.lock")):
        if _is_complete(target, stamp):  # another process unpacked it while this one waited
            return target
        for leftover in target.parent.glob(f".{target.name}.*"):  # of runs that were killed
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
        staging = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}")
        staging.mkdir()
        try:
            write(staging)
            _flush(staging)  # on disk before `.complete` says so
            (staging / COMPLETE).write_text(stamp)
            _replace(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target


def _is_complete(target: Path, stamp: str) -> bool:
    try:
        return (target / COMPLETE).read_text() == stamp
    except OSError:
        return False


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the file `path` for the length of the block (released if the process
    dies); none where the system has no `fcntl` (Windows)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)


def _flush(directory: Path) -> None:
    for path in directory.iterdir():
        with open(path, "rb") as file:
            os.fsync(file.fileno())


def _replace(staging: Path, target: Path) -> None:
    """Rename `staging` to `target`, moving a stale `target` aside first (a directory cannot be
    renamed over one that is not empty)."""
    if target.exists() or target.is_symlink():
        stale = target.with_name(f".{target.name}.stale-{uuid.uuid4().hex[:12]}")
        target.rename(stale)
        shutil.rmtree(stale, ignore_errors=True)
    staging.rename(target)
