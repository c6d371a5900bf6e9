"""cffi build script for the C core (API mode, out of line).

setup.py names ``ffibuilder`` in ``cffi_modules``, so ``pip install .`` compiles ``csrc/`` into
the extension module ``stud_service._stud_native``. Run directly to build in place for a quick try:
``python stud_service/_native_build.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
SOURCES = [
    "tables.c", "high.c", "low.c", "order.c", "board.c", "bring_in.c",
    "batch.c", "enumerate.c", "random_hands.c",
]

# The declarations Python may call; constants take their values from stud_eval.h (the "...").
CDEF = """
#define STUD_OK ...
#define STUD_ERR_CARD ...
#define STUD_ERR_DUPLICATE ...
#define STUD_ERR_COUNT ...
#define STUD_ERR_NULL ...
#define STUD_ERR_VALUE ...
#define STUD_ERR_INIT ...
#define STUD_HIGH_CLASSES ...
#define STUD_LOW_CLASSES ...
#define STUD_EIGHT_CLASSES ...
#define STUD_EIGHT_MIN_VALUE ...
#define STUD_NO_LOW ...
#define STUD_MAX_DOOR_CARDS ...

int stud_init(void);
int stud_eval_high(const int *cards, int n);
int stud_high_category(int value);
int stud_best_five_high(const int *cards, int n, int *out);
int stud_eval_low(const int *cards, int n);
int stud_best_five_low(const int *cards, int n, int *out);
int stud_eval_eight(const int *cards, int n);
int stud_best_five_eight(const int *cards, int n, int *out);
int stud_board_rank_high(const int *cards, int n);
int stud_board_rank_razz(const int *cards, int n);
int stud_bring_in_index(const int *door, int n, int razz);
int stud_door_card_strength(int card, int razz, int use_suit);
int stud_eval_high_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand,
    int32_t *out, int n_threads);
int stud_eval_low_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand,
    int32_t *out, int n_threads);
int stud_eval_eight_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand,
    int32_t *out, int n_threads);
int stud_enumerate_high(int cards_per_hand, uint64_t *counts, size_t counts_len, int n_threads);
int stud_random_hands(uint64_t seed, size_t n_hands, int cards_per_hand, uint8_t *out);
"""

# Strict warnings for our C; the generated wrapper is cffi's, so only -Werror-clean flags that it passes.
COMPILE_ARGS = ["-std=c11", "-O3", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L"]


def _relative(path: Path) -> str:
    # setuptools wants source paths relative to the project root (where setup.py runs).
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


ffibuilder = FFI()
ffibuilder.cdef(CDEF)
ffibuilder.set_source(
    "stud_service._stud_native",
    '#include "stud_eval.h"',
    sources=[_relative(CSRC / name) for name in SOURCES],
    include_dirs=[_relative(CSRC)],
    depends=[_relative(CSRC / name) for name in ("stud_eval.h", "stud_internal.h")],
    extra_compile_args=COMPILE_ARGS,
    libraries=[] if sys.platform == "win32" else ["pthread"],
)

if __name__ == "__main__":
    ffibuilder.compile(tmpdir=str(ROOT), verbose=True)
