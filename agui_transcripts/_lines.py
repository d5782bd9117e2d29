"""A log's lines, read in blocks and bounded in length, for the readers.

This module stays interpreted in the compiled build: a compiled generator that is
dropped before its end does not run its ``finally`` blocks, so the file that
:func:`path_lines` opens would stay open until the garbage collector found it. Here it
is closed as soon as reading stops, however it stops. It runs once per block of a
megabyte, never per line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from itertools import chain
from typing import IO, Any

__all__ = ["bounded_lines", "path_lines"]


_BLOCK_SIZE = 1 << 20


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
    return chain.from_iterable(_bounded_blocks(log, limit, document_limit))


def _bounded_blocks(log: IO[Any], limit: int, document_limit: int | None) -> Iterator[list[Any]]:
    # Lists of lines, one per block read: iterating them costs no generator step per line.
    array_limit = limit if document_limit is None else max(limit, document_limit)
    read = log.read
    block = read(_BLOCK_SIZE)
    if not block:
        return
    newline: Any = "\n" if isinstance(block, str) else b"\n"
    bracket: Any = "[" if isinstance(block, str) else b"["
    carry: Any = block[:0]
    skipping = False  # inside a line already cut
    started = False  # a non-blank line has ended (only the first may be an array)
    while block:
        lines = block.split(newline)
        block = read(_BLOCK_SIZE)
        if skipping:
            if len(lines) == 1:
                continue
            del lines[0]  # the end of the cut line: dropped
            skipping = False
        else:
            lines[0] = carry + lines[0]
        carry = lines.pop()
        if not started:
            for index, line in enumerate(lines):
                if line.strip():
                    started = True
                    cap = array_limit if line.lstrip().startswith(bracket) else limit
                    lines[index] = line[: cap + 1]
                    if index + 1 < len(lines):
                        rest = lines[index + 1 :]
                        lines[index + 1 :] = [line[: limit + 1] for line in rest]
                    break
        elif lines and max(map(len, lines)) > limit:  # in C: no Python step per line
            lines = [line if len(line) <= limit else line[: limit + 1] for line in lines]
        yield lines
        cap = array_limit if not started and carry.lstrip().startswith(bracket) else limit
        if len(carry) > cap:
            yield [carry[: cap + 1]]
            carry = carry[:0]
            skipping = True
            started = True
    if carry and not skipping:
        yield [carry]


def path_lines(
    path: str | os.PathLike[str], limit: int | None, document_limit: int | None = None
) -> Iterator[bytes]:
    """The lines of the file at ``path``, as :func:`bounded_lines` reads them.

    The file is closed at the end of the lines or when the iterator is dropped.
    """
    return chain.from_iterable(_path_blocks(path, limit, document_limit))


def _path_blocks(
    path: str | os.PathLike[str], limit: int | None, document_limit: int | None
) -> Iterator[list[bytes]]:
    with open(path, "rb") as log:
        if limit is None:
            while lines := log.readlines(_BLOCK_SIZE):
                yield lines
        else:
            yield from _bounded_blocks(log, limit, document_limit)
