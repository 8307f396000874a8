"""The encoding of an HTML page given as bytes, found as the HTML standard finds it: a byte
order mark, else the ``<meta charset>`` / ``http-equiv`` prescan of the first 1024 bytes,
else UTF-8. Labels are the WHATWG Encoding Standard's (ISO-8859-1 and ASCII are
windows-1252, EUC-KR is windows-949, GBK and GB2312 are GB18030, Shift_JIS is
windows-31J); decoding replaces bad bytes with U+FFFD, as a browser does.
"""

# ruff: noqa: E501  (the label table reads best one encoding per line)
from __future__ import annotations

import codecs
import re

from .errors import ConfigError

PRESCAN_BYTES = 1024

# WHATWG name -> (Python codec, labels).
_ENCODINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "UTF-8": ("utf-8", ("unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8")),
    "windows-1252": ("cp1252", ("ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252")),
    "Shift_JIS": ("cp932", ("csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis")),
    "EUC-JP": ("euc_jp", ("cseucpkdfmtjapanese", "euc-jp", "x-euc-jp")),
    "ISO-2022-JP": ("iso2022_jp", ("csiso2022jp", "iso-2022-jp")),
    "EUC-KR": ("cp949", ("cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949")),
    "gb18030": ("gb18030", ("gb18030", "chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk")),
    "Big5": ("big5hkscs", ("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5")),
    "UTF-16LE": ("utf-16-le", ("csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le")),
    "UTF-16BE": ("utf-16-be", ("unicodefffe", "utf-16be")),
    "windows-1250": ("cp1250", ("cp1250", "windows-1250", "x-cp1250")),
    "windows-1251": ("cp1251", ("cp1251", "windows-1251", "x-cp1251")),
    "windows-1253": ("cp1253", ("cp1253", "windows-1253", "x-cp1253")),
    "windows-1254": ("cp1254", ("cp1254", "csisolatin5", "iso-8859-9", "iso8859-9", "latin5", "windows-1254", "x-cp1254")),
    "windows-1255": ("cp1255", ("cp1255", "windows-1255", "x-cp1255")),
    "windows-1256": ("cp1256", ("cp1256", "windows-1256", "x-cp1256")),
    "windows-1257": ("cp1257", ("cp1257", "windows-1257", "x-cp1257")),
    "windows-1258": ("cp1258", ("cp1258", "windows-1258", "x-cp1258")),
    "ISO-8859-2": ("iso8859_2", ("csisolatin2", "iso-8859-2", "iso8859-2", "latin2", "l2")),
    "ISO-8859-5": ("iso8859_5", ("csisolatincyrillic", "cyrillic", "iso-8859-5", "iso8859-5")),
    "ISO-8859-7": ("iso8859_7", ("greek", "iso-8859-7", "iso8859-7")),
    "ISO-8859-15": ("iso8859_15", ("iso-8859-15", "iso8859-15", "l9", "latin-9")),
    "KOI8-R": ("koi8_r", ("cskoi8r", "koi", "koi8", "koi8-r", "koi8_r")),
    "KOI8-U": ("koi8_u", ("koi8-ru", "koi8-u")),
    "windows-874": ("cp874", ("dos-874", "iso-8859-11", "tis-620", "windows-874")),
}  # fmt: skip
_LABELS = {label: name for name, (_, labels) in _ENCODINGS.items() for label in labels}
_BOMS = ((b"\xef\xbb\xbf", "UTF-8"), (b"\xfe\xff", "UTF-16BE"), (b"\xff\xfe", "UTF-16LE"))

_COMMENT = re.compile(rb"<!--.*?(?:-->|$)", re.S)
_META = re.compile(rb"<meta[\t\n\x0c\r /]([^>]*)", re.I)
_ATTR = re.compile(
    rb"""([^\t\n\x0c\r /=>][^\t\n\x0c\r /=>]*)\s*(?:=\s*("[^"]*"?|'[^']*'?|[^\t\n\x0c\r >]*))?"""
)
_CHARSET = re.compile(rb"""charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))""", re.I)


def _cp1252_c1(error: UnicodeError) -> tuple[str, int]:
    # windows-1252 in the WHATWG table maps the five bytes cp1252 leaves out to C1 controls.
    assert isinstance(error, UnicodeDecodeError)
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error("ferrochunk.whatwg-1252", _cp1252_c1)


def label(value: str) -> str | None:
    """The WHATWG encoding a label names (ASCII case and white space ignored)."""
    return _LABELS.get(value.strip("\t\n\x0c\r ").lower())


def _prescan(head: bytes) -> str | None:
    head = _COMMENT.sub(b"", head)
    for meta in _META.finditer(head):
        attrs: dict[bytes, bytes] = {}
        for m in _ATTR.finditer(meta.group(1)):
            key = m.group(1).lower()
            value = (m.group(2) or b"").strip(b"\"'")
            attrs.setdefault(key, value)
        found: bytes | None = None
        if b"charset" in attrs:
            found = attrs[b"charset"]
        elif attrs.get(b"http-equiv", b"").lower() == b"content-type" and b"content" in attrs:
            c = _CHARSET.search(attrs[b"content"])
            if c is not None:
                found = c.group(1) or c.group(2) or c.group(3)
        if found is not None:
            name = label(found.decode("latin-1"))
            if name is not None:
                # A page cannot declare itself UTF-16 in ASCII: the standard reads UTF-8.
                return "UTF-8" if name.startswith("UTF-16") else name
    return None


def sniff(data: bytes) -> str:
    """The page's encoding: BOM, then the prescan of its first 1024 bytes, then UTF-8.

    >>> sniff(b'<meta charset="euc-kr"><p>...'), sniff(b"<p>plain")
    ('EUC-KR', 'UTF-8')
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return _prescan(data[:PRESCAN_BYTES]) or "UTF-8"


def decode(data: bytes, encoding: str | None = None) -> tuple[str, str]:
    """``data`` as text (a BOM dropped) and the encoding used: ``encoding`` (a WHATWG
    label) if given, else the sniffed one."""
    if encoding is None:
        name = sniff(data)
    else:
        found = label(encoding)
        if found is None:
            raise ConfigError(f"encoding must be a WHATWG encoding label, got {encoding!r}")
        name = found
    for bom, bom_name in _BOMS:
        if data.startswith(bom) and bom_name == name:
            data = data[len(bom) :]
            break
    codec = _ENCODINGS[name][0]
    errors = "ferrochunk.whatwg-1252" if name == "windows-1252" else "replace"
    return data.decode(codec, errors), name
