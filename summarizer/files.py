"""Outputs that appear whole or not at all; devices are written into, never replaced."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from summarizer.errors import OutputError, quoted

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
