"""XXH3-128 (seed 0, default secret) in pure Python.

The twin of the Rust core's chunk-id hash (``rust/contracts/chunk_id.rs``): the reference
backend's chunk ids come from it, so the tests compare two implementations. It is
bit-exact with ``xxhash.xxh3_128_intdigest``.

Written from the xxHash specification (xxhash.h, doc/xxhash_spec.md; BSD-2-Clause,
Copyright (c) Yann Collet).
"""

from __future__ import annotations

import struct
from operator import mul

__all__ = ["utf8", "xxh3_128", "xxh3_128_hex"]

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF

PRIME32_1 = 0x9E3779B1
PRIME32_2 = 0x85EBCA77
PRIME32_3 = 0xC2B2AE3D
PRIME64_1 = 0x9E3779B185EBCA87
PRIME64_2 = 0xC2B2AE3D27D4EB4F
PRIME64_3 = 0x165667B19E3779F9
PRIME64_4 = 0x85EBCA77C2B2AE63
PRIME64_5 = 0x27D4EB2F165667C5
PRIME_MX1 = 0x165667919E3779F9
PRIME_MX2 = 0x9FB21C651E98DF25

DEFAULT_SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
)
SECRET_SIZE = len(DEFAULT_SECRET)  # 192
SECRET_SIZE_MIN = 136

STRIPE_LEN = 64
ACC_NB = STRIPE_LEN // 8  # eight 64-bit lanes per stripe
SECRET_CONSUME_RATE = 8  # each stripe of a block reads the secret 8 bytes further on
STRIPES_PER_BLOCK = (SECRET_SIZE - STRIPE_LEN) // SECRET_CONSUME_RATE  # 16
BLOCK_LEN = STRIPE_LEN * STRIPES_PER_BLOCK  # 1024
SECRET_LASTACC_START = 7
SECRET_MERGEACCS_START = 11
MID_SIZE_MAX = 240

INIT_ACC = (
    PRIME32_3,
    PRIME64_1,
    PRIME64_2,
    PRIME64_3,
    PRIME64_4,
    PRIME32_2,
    PRIME64_5,
    PRIME32_1,
)

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_U64X2 = struct.Struct("<2Q")
_U64X8 = struct.Struct("<8Q")


def _read32(buf: bytes, offset: int) -> int:
    return int(_U32.unpack_from(buf, offset)[0])


def _read64(buf: bytes, offset: int) -> int:
    return int(_U64.unpack_from(buf, offset)[0])


def _swap64(value: int) -> int:
    return int.from_bytes(value.to_bytes(8, "little"), "big")


def _mul128_fold64(left: int, right: int) -> int:
    product = left * right
    return (product ^ (product >> 64)) & MASK64


def _avalanche(value: int) -> int:
    """XXH3's own finaliser."""
    value ^= value >> 37
    value = (value * PRIME_MX1) & MASK64
    return value ^ (value >> 32)


def _avalanche64(value: int) -> int:
    """XXH64's finaliser, which XXH3 reuses for the shortest inputs."""
    value ^= value >> 33
    value = (value * PRIME64_2) & MASK64
    value ^= value >> 29
    value = (value * PRIME64_3) & MASK64
    return value ^ (value >> 32)


def _pack128(low: int, high: int) -> int:
    return (high << 64) | low


# --- 0 to 16 bytes -------------------------------------------------------------------


def _hash_empty() -> int:
    low = _avalanche64(_read64(DEFAULT_SECRET, 64) ^ _read64(DEFAULT_SECRET, 72))
    high = _avalanche64(_read64(DEFAULT_SECRET, 80) ^ _read64(DEFAULT_SECRET, 88))
    return _pack128(low, high)


def _hash_1to3(data: bytes) -> int:
    length = len(data)
    # First, middle and last byte plus the length, packed into one 32-bit word.
    combined = (data[0] << 16) | (data[length >> 1] << 24) | data[-1] | (length << 8)
    swapped = int.from_bytes(combined.to_bytes(4, "little"), "big")
    rotated = ((swapped << 13) | (swapped >> 19)) & MASK32
    flip_low = _read32(DEFAULT_SECRET, 0) ^ _read32(DEFAULT_SECRET, 4)
    flip_high = _read32(DEFAULT_SECRET, 8) ^ _read32(DEFAULT_SECRET, 12)
    return _pack128(_avalanche64(combined ^ flip_low), _avalanche64(rotated ^ flip_high))


def _hash_4to8(data: bytes) -> int:
    length = len(data)
    # The first and last four bytes (overlapping when shorter than eight).
    value = _read32(data, 0) | (_read32(data, length - 4) << 32)
    flip = _read64(DEFAULT_SECRET, 16) ^ _read64(DEFAULT_SECRET, 24)
    product = (value ^ flip) * (PRIME64_1 + (length << 2))
    low = product & MASK64
    high = ((product >> 64) + (low << 1)) & MASK64
    low ^= high >> 3
    low ^= low >> 35
    low = (low * PRIME_MX2) & MASK64
    low ^= low >> 28
    return _pack128(low, _avalanche(high))


def _hash_9to16(data: bytes) -> int:
    length = len(data)
    flip_low = _read64(DEFAULT_SECRET, 32) ^ _read64(DEFAULT_SECRET, 40)
    flip_high = _read64(DEFAULT_SECRET, 48) ^ _read64(DEFAULT_SECRET, 56)
    # The first and last eight bytes (overlapping when shorter than sixteen).
    first = _read64(data, 0)
    last = _read64(data, length - 8)
    product = (first ^ last ^ flip_low) * PRIME64_1
    mul_low = ((product & MASK64) + ((length - 1) << 54)) & MASK64
    last ^= flip_high
    # The spec's way of adding (high half << 32) + low half * PRIME32_2 of `last`.
    mul_high = ((product >> 64) + last + (last & MASK32) * (PRIME32_2 - 1)) & MASK64
    mul_low ^= _swap64(mul_high)
    product = mul_low * PRIME64_2
    low = product & MASK64
    high = ((product >> 64) + mul_high * PRIME64_2) & MASK64
    return _pack128(_avalanche(low), _avalanche(high))


# --- 17 to 240 bytes -----------------------------------------------------------------


def _mix16(data: bytes, offset: int, secret_offset: int) -> int:
    data_low, data_high = _U64X2.unpack_from(data, offset)
    key_low, key_high = _U64X2.unpack_from(DEFAULT_SECRET, secret_offset)
    return _mul128_fold64(data_low ^ key_low, data_high ^ key_high)


def _mix32(
    acc: tuple[int, int], data: bytes, offset1: int, offset2: int, secret_offset: int
) -> tuple[int, int]:
    """Mix two 16-byte pieces into the (low, high) pair; each half takes one piece
    keyed and the other piece's plain sum."""
    low, high = acc
    first_low, first_high = _U64X2.unpack_from(data, offset1)
    second_low, second_high = _U64X2.unpack_from(data, offset2)
    low = (low + _mix16(data, offset1, secret_offset)) & MASK64
    low ^= (second_low + second_high) & MASK64
    high = (high + _mix16(data, offset2, secret_offset + 16)) & MASK64
    high ^= (first_low + first_high) & MASK64
    return low, high


def _finish_mid(acc: tuple[int, int], length: int) -> int:
    low, high = acc
    result_low = _avalanche((low + high) & MASK64)
    mixed = (low * PRIME64_1 + high * PRIME64_4 + length * PRIME64_2) & MASK64
    result_high = -_avalanche(mixed) & MASK64
    return _pack128(result_low, result_high)


def _hash_17to128(data: bytes) -> int:
    length = len(data)
    acc = ((length * PRIME64_1) & MASK64, 0)
    # Pairs of 16-byte pieces, working inwards from both ends; the innermost first.
    for i in range((length - 1) // 32, -1, -1):
        acc = _mix32(acc, data, 16 * i, length - 16 * (i + 1), 32 * i)
    return _finish_mid(acc, length)


def _hash_129to240(data: bytes) -> int:
    length = len(data)
    acc = ((length * PRIME64_1) & MASK64, 0)
    for i in range(4):
        acc = _mix32(acc, data, 32 * i, 32 * i + 16, 32 * i)
    acc = (_avalanche(acc[0]), _avalanche(acc[1]))
    # Rounds past the fourth run out of secret, so they restart it at a 3-byte offset.
    for i in range(4, length // 32):
        acc = _mix32(acc, data, 32 * i, 32 * i + 16, 3 + 32 * (i - 4))
    acc = _mix32(acc, data, length - 16, length - 32, SECRET_SIZE_MIN - 17 - 16)
    return _finish_mid(acc, length)


# --- more than 240 bytes -------------------------------------------------------------

# Stripe s of a block is keyed with the secret from byte 8*s, so the key of a whole block
# is a fixed 1024-byte string: XOR-ing it in as one big integer keys every lane at once.
_BLOCK_KEY = b"".join(
    DEFAULT_SECRET[s * SECRET_CONSUME_RATE : s * SECRET_CONSUME_RATE + STRIPE_LEN]
    for s in range(STRIPES_PER_BLOCK)
)
# The key of the first n stripes, for n = 0 .. 16.
_STRIPES_KEY = tuple(
    int.from_bytes(_BLOCK_KEY[: n * STRIPE_LEN], "little") for n in range(STRIPES_PER_BLOCK + 1)
)
_LAST_STRIPE_START = SECRET_SIZE - STRIPE_LEN - SECRET_LASTACC_START
_LAST_STRIPE_KEY = int.from_bytes(
    DEFAULT_SECRET[_LAST_STRIPE_START : _LAST_STRIPE_START + STRIPE_LEN], "little"
)
_SCRAMBLE_KEY: tuple[int, ...] = _U64X8.unpack_from(DEFAULT_SECRET, SECRET_SIZE - STRIPE_LEN)
# Views of n stripes as 64-bit lanes and as 32-bit halves of lanes.
_LANES = tuple(struct.Struct(f"<{n * ACC_NB}Q") for n in range(STRIPES_PER_BLOCK + 1))
_HALVES = tuple(struct.Struct(f"<{n * ACC_NB * 2}I") for n in range(STRIPES_PER_BLOCK + 1))


def _accumulate(acc: list[int], stripes: bytes, key: int, count: int) -> None:
    """Add `count` consecutive stripes into the eight lanes.

    Between scrambles the accumulators only add, so each lane takes the sum over all
    the stripes at once: the keyed lane's low half times its high half, and the plain
    value of the neighbouring lane (lane i ^ 1)."""
    size = count * STRIPE_LEN
    keyed = (int.from_bytes(stripes, "little") ^ key).to_bytes(size, "little")
    halves = _HALVES[count].unpack(keyed)
    lanes = _LANES[count].unpack(stripes)
    step = 2 * ACC_NB
    for lane in range(ACC_NB):
        acc[lane] += sum(map(mul, halves[2 * lane :: step], halves[2 * lane + 1 :: step]))
        acc[lane ^ 1] += sum(lanes[lane::ACC_NB])
    for lane in range(ACC_NB):
        acc[lane] &= MASK64


def _scramble(acc: list[int]) -> None:
    for lane, key in enumerate(_SCRAMBLE_KEY):
        value = acc[lane]
        acc[lane] = ((value ^ (value >> 47) ^ key) * PRIME32_1) & MASK64


def _merge_accs(acc: list[int], secret_offset: int, start: int) -> int:
    keys = _U64X8.unpack_from(DEFAULT_SECRET, secret_offset)
    result = start
    for lane in range(0, ACC_NB, 2):
        result += _mul128_fold64(acc[lane] ^ keys[lane], acc[lane + 1] ^ keys[lane + 1])
    return _avalanche(result & MASK64)


def _hash_long(data: bytes) -> int:
    length = len(data)
    acc = list(INIT_ACC)
    # Whole blocks, each followed by a scramble; "- 1" keeps at least one byte back, so
    # a block that ends the input exactly is left to the tail and the last stripe.
    block_count = (length - 1) // BLOCK_LEN
    full_key = _STRIPES_KEY[STRIPES_PER_BLOCK]
    for start in range(0, block_count * BLOCK_LEN, BLOCK_LEN):
        _accumulate(acc, data[start : start + BLOCK_LEN], full_key, STRIPES_PER_BLOCK)
        _scramble(acc)
    # The whole stripes of the partial block, then the input's last 64 bytes (which may
    # overlap them) keyed with a secret offset of its own.
    tail = block_count * BLOCK_LEN
    stripe_count = (length - 1 - tail) // STRIPE_LEN
    if stripe_count:
        stripes = data[tail : tail + stripe_count * STRIPE_LEN]
        _accumulate(acc, stripes, _STRIPES_KEY[stripe_count], stripe_count)
    _accumulate(acc, data[length - STRIPE_LEN :], _LAST_STRIPE_KEY, 1)
    low = _merge_accs(acc, SECRET_MERGEACCS_START, (length * PRIME64_1) & MASK64)
    high_offset = SECRET_SIZE - STRIPE_LEN - SECRET_MERGEACCS_START
    high = _merge_accs(acc, high_offset, ~(length * PRIME64_2) & MASK64)
    return _pack128(low, high)


# --- public API ----------------------------------------------------------------------


def xxh3_128(data: bytes) -> int:
    """XXH3-128 of ``data`` (seed 0, default secret), as ``xxhash.xxh3_128_intdigest``."""
    length = len(data)
    if length <= 16:
        if length > 8:
            return _hash_9to16(data)
        if length >= 4:
            return _hash_4to8(data)
        if length:
            return _hash_1to3(data)
        return _hash_empty()
    if length <= 128:
        return _hash_17to128(data)
    if length <= MID_SIZE_MAX:
        return _hash_129to240(data)
    return _hash_long(data)


def xxh3_128_hex(data: bytes) -> str:
    """XXH3-128 of ``data`` as 32 lowercase hex digits, as ``xxhash.xxh3_128_hexdigest``."""
    return f"{xxh3_128(data):032x}"


def utf8(text: str) -> bytes:
    """The bytes an id hashes: UTF-8, with a lone surrogate (a Python ``str`` may hold one;
    UTF-8 cannot) as its three-byte generalized UTF-8 form, so no two strs share them."""
    return text.encode("utf-8", "surrogatepass")
