"""A log's lines, read in blocks and bounded in length, for the readers.

This module stays interpreted in the compiled build: a compiled generator that is
dropped before its end does not run its ``finally`` blocks, so the file that
:func:`path_blocks` opens would stay open until the garbage collector found it. Here it
is closed as soon as reading stops, however it stops. It runs once per block of a
megabyte, never per line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from itertools import chain
from typing import IO, Any

__all__ = ["Block", "bounded_blocks", "bounded_lines", "path_blocks"]


_BLOCK_SIZE = 1 << 20

Block = tuple[list[Any], bool]
"""A block's lines, and whether it is *plain*: binary, and no line of it holds a CR or
the bytes ``null``. A reader asks those two questions of a plain block's lines once
per block instead of once per line (two calls per line, each mostly argument parsing)."""


def bounded_lines(
    log: IO[Any], limit: int | None, document_limit: int | None = None
) -> Iterator[Any]:
    """The lines of a file (line ends dropped), none held longer than ``limit + 1``.

    Read in blocks and split at LF, binary or text alike: a longer line comes out cut to
    ``limit + 1`` bytes (characters, for text), so the reader reports it as too large,
    and the rest of it is read past without being held. The first line of a one-line
    JSON array (what ``json.dump`` writes) is a document: ``document_limit`` bounds it.
    """
    if limit is None:
        return iter(log)
    return chain.from_iterable(lines for lines, _ in _bounded_blocks(log, limit, document_limit))


def bounded_blocks(
    log: IO[Any], limit: int | None, document_limit: int | None = None
) -> Iterator[Block]:
    """The lines of :func:`bounded_lines`, a block at a time, each block saying if it is plain."""
    if limit is None:
        return ((lines, False) for lines in iter(lambda: log.readlines(_BLOCK_SIZE), []))
    return _bounded_blocks(log, limit, document_limit)


def _is_plain(data: bytes) -> bool:
    return data.find(b"\r") < 0 and data.find(b"null") < 0


def _bounded_blocks(log: IO[Any], limit: int, document_limit: int | None) -> Iterator[Block]:
    # Lists of lines, one per block read: iterating them costs no generator step per line.
    array_limit = limit if document_limit is None else max(limit, document_limit)
    read = log.read
    block = read(_BLOCK_SIZE)
    if not block:
        return
    binary = not isinstance(block, str)
    newline: Any = b"\n" if binary else "\n"
    bracket: Any = b"[" if binary else "["
    carry: Any = block[:0]
    skipping = False  # inside a line already cut
    started = False  # a non-blank line has ended (only the first may be an array)
    while block:
        # Every line of this list is a piece of this block, but the first, which may
        # begin in the blocks before it (a CR or a null may straddle the boundary).
        plain = binary and _is_plain(block)
        lines = block.split(newline)
        block = read(_BLOCK_SIZE)
        if skipping:
            if len(lines) == 1:
                continue
            del lines[0]  # the end of the cut line: dropped
            skipping = False
        else:
            lines[0] = carry + lines[0]
            plain = plain and (not carry or _is_plain(lines[0]))
        carry = lines.pop()
        if not started:
            for index, line in enumerate(lines):
                if line.strip():
                    started = True
                    cap = array_limit if line.lstrip().startswith(bracket) else limit
                    lines[index] = line[: cap + 1]
                    rest = lines[index + 1 :]
                    if rest and max(map(len, rest)) > limit:  # (as below)
                        lines[index + 1 :] = [line[: limit + 1] for line in rest]
                    break
        elif lines and max(map(len, lines)) > limit:  # in C: no Python step per line
            lines = [line if len(line) <= limit else line[: limit + 1] for line in lines]
        yield lines, plain
        cap = array_limit if not started and carry.lstrip().startswith(bracket) else limit
        if len(carry) > cap:
            yield [carry[: cap + 1]], False
            carry = carry[:0]
            skipping = True
            started = True
    if carry and not skipping:
        yield [carry], False


def path_blocks(
    path: str | os.PathLike[str], limit: int | None, document_limit: int | None = None
) -> Iterator[Block]:
    """The lines of the file at ``path`` as :func:`bounded_blocks` reads them.

    The file is closed at the end of the blocks or when the iterator is dropped.
    """
    with open(path, "rb") as log:
        yield from bounded_blocks(log, limit, document_limit)
