"""A small PNG reader for tests (8-bit RGB / RGBA, not interlaced: what Chromium writes), so a
screenshot's pixels can be checked without an imaging library."""
from __future__ import annotations

import struct
import zlib


_ADD = [n & 0xFF for n in range(512)]  # (a + b) mod 256 for two bytes


def read_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows) with each row as RGB bytes. Raises ValueError for other PNGs."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, color, _compression, _filter, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {color}, interlace {interlace})")
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            line = bytearray(map(_ADD.__getitem__, map(int.__add__, line, previous)))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + (left + previous[i]) // 2) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up, corner = previous[i], previous[i - channels] if i >= channels else 0
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        previous = line
        rows.append(bytes(line) if channels == 3 else bytes(line[j] for j in range(stride) if j % 4 != 3))
    return width, height, rows


def count_colour(rows: list[bytes], rgb: tuple[int, int, int]) -> int:
    """Pixels of exactly this colour (solid fills render exactly; edges are anti-aliased)."""
    needle = bytes(rgb)
    return sum(1 for row in rows for i in _find_all(row, needle) if i % 3 == 0)


def _find_all(row: bytes, needle: bytes):
    i = row.find(needle)
    while i != -1:
        yield i
        i = row.find(needle, i + 1)
