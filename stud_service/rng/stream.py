"""The production random stream as raw bytes, for Dieharder, NIST SP 800-22 or any other battery.

A hand reads ``stud_service.shuffle.u32_stream(server_seed, client_seeds)``: the blocks
``HMAC-SHA256(server_seed, M || u64be(k))`` for k = 0, 1, 2, ... (docs/fairness.md §2.8). A hand reads
about 7 blocks; the batteries need hundreds of gigabytes. The stream given to them is therefore the
concatenation, for seeds s_0, s_1, ... (``seeds.SeedSource``, label ``STREAM_LABEL``), of each seed's
stream from k = 0 for ``blocks_per_seed`` blocks, with no client seeds (M empty): the production function
read further than a hand reads it, with a new seed as often as the batteries can afford.

Blocks 1..n are computed by OpenSSL's PBKDF2-HMAC-SHA256 with one iteration (``hashlib.pbkdf2_hmac``):
with salt ``M || u32be(0)`` its i-th output block is ``HMAC(seed, M || u32be(0) || u32be(i))``, that is
the stream's block k = i. The tests check it against ``u32_stream`` byte for byte; it is only faster.
"""

from __future__ import annotations

import hashlib
import hmac
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

from stud_service.shuffle import canonical_client_seeds

BLOCK_BYTES = 32
DEFAULT_BLOCKS_PER_SEED = 1 << 16  # 2 MiB of stream for each seed


def seed_stream_bytes(server_seed: bytes, blocks: int, message: bytes = b"") -> bytes:
    """The first ``blocks`` blocks of the production stream of ``server_seed`` (client-seed message M)."""
    if blocks < 1:
        raise ValueError("at least one block")
    first = hmac.digest(server_seed, message + (0).to_bytes(8, "big"), "sha256")
    if blocks == 1:
        return first
    # PBKDF2 numbers its blocks from 1 with a u32 counter after the salt: salt M || u32be(0) makes block i
    # the stream's block k = i (u64be(i) = u32be(0) || u32be(i) for i < 2**32).
    rest = hashlib.pbkdf2_hmac("sha256", server_seed, message + bytes(4), 1, dklen=BLOCK_BYTES * (blocks - 1))
    return first + rest


def stream_chunks(seeder: Callable[[int], bytes], blocks_per_seed: int = DEFAULT_BLOCKS_PER_SEED,
                  first_seed: int = 0, seeds: int | None = None, threads: int = 2) -> Iterator[bytes]:
    """Each seed's stream in turn, seeds ``first_seed``, ``first_seed + 1``, ... (``seeds`` of them, or
    without end); ``threads`` compute ahead (OpenSSL runs without the GIL)."""
    message = canonical_client_seeds({})
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        index = first_seed
        pending = []
        while seeds is None or index < first_seed + seeds or pending:
            while len(pending) < 2 * max(1, threads) and (seeds is None or index < first_seed + seeds):
                pending.append(pool.submit(seed_stream_bytes, seeder(index), blocks_per_seed, message))
                index += 1
            yield pending.pop(0).result()


def write_stream(out: BinaryIO, seeder: Callable[[int], bytes], total_bytes: int | None = None,
                 blocks_per_seed: int = DEFAULT_BLOCKS_PER_SEED, threads: int = 2) -> int:
    """Write the stream to ``out`` (``total_bytes`` of it, or until the reader closes); the bytes written."""
    written = 0
    try:
        for chunk in stream_chunks(seeder, blocks_per_seed, threads=threads):
            if total_bytes is not None:
                chunk = chunk[: total_bytes - written]
            out.write(chunk)
            written += len(chunk)
            if total_bytes is not None and written >= total_bytes:
                break
        out.flush()
    except BrokenPipeError:
        # The battery read what it needed and closed the pipe: a normal end.
        _silence_stdout_on_exit(out)
    return written


def _silence_stdout_on_exit(out: BinaryIO) -> None:
    if out is sys.stdout.buffer:
        try:
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
