"""Reading a PNG's pixels with zlib alone (test helper): enough for Chromium's 8-bit RGB/RGBA screenshots."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}  # colour type -> channels (truecolour, truecolour with alpha)


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    channels: int
    rows: list[bytes]  # unfiltered scanlines

    def pixel(self, x: int, y: int) -> tuple[int, ...]:
        start = x * self.channels
        return tuple(self.rows[y][start:start + 3])


def read_png(path: Path) -> Image:
    data = Path(path).read_bytes()
    assert data[:8] == _SIGNATURE, "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour_type, _, _, interlace = header
    assert depth == 8 and colour_type in _CHANNELS and interlace == 0, header
    channels = _CHANNELS[colour_type]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        offset = y * (stride + 1)
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line))
        previous = line
    return Image(width, height, channels, rows)


def _unfilter(kind: int, line: bytearray, prev: bytearray, bpp: int) -> None:
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = prev[i]
        corner = prev[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            line[i] = (line[i] + pred) & 0xFF


def region_stats(image: Image, left: int, top: int, width: int, height: int, step: int = 2) -> tuple[int, float]:
    """(distinct colours, share of pixels that are not white) in a rectangle, sampled every `step` pixels."""
    colours, inked, total = set(), 0, 0
    for y in range(top, min(top + height, image.height), step):
        for x in range(left, min(left + width, image.width), step):
            px = image.pixel(x, y)
            colours.add(px)
            inked += px != (255, 255, 255)
            total += 1
    return len(colours), inked / total if total else 0.0
