/*
 * stud_internal.h - tables shared by the C core's files and the inline hot path.
 * Not part of the public API.
 *
 * How a hand is evaluated without looking at its 21 five-card subsets:
 *   Each card contributes, by addition, a 64-bit key and, by OR, a 64-bit suit mask.
 *   key bits  0..15  sum of LO_KEY[rank] for ranks 2..8   (rank counts of the low ranks)
 *   key bits 16..29  sum of HI_KEY[rank] for ranks 9..A   (rank counts of the high ranks)
 *   key bits 32..47  four 4-bit counters, cards per suit
 *   mask bits 16*suit + rank
 *   The additive rank keys are chosen so that every multiset of at most 7 cards (at most 4
 *   per rank) has a distinct sum within its half, so lo_index[lo sum] + hi_offset[hi sum] is a
 *   dense, collision-free index over all rank-count patterns of 0..7 cards (76,155 of them).
 *   A suit counter reaching 5 means a flush; with at most 7 cards a flush can never coexist
 *   with a full house or quads, so the flush table alone decides such a hand.
 */
#ifndef STUD_INTERNAL_H
#define STUD_INTERNAL_H

#include <stdint.h>
#include "stud_eval.h"

#define STUD_LO_RANKS 7             /* ranks 2..8 */
#define STUD_HI_RANKS 6             /* ranks 9..A */
#define STUD_LO_SPAN 43718          /* 1 + largest lo sum of a multiset of <= 7 cards */
#define STUD_HI_SPAN 10552          /* 1 + largest hi sum */
#define STUD_PATTERNS 76155         /* rank-count patterns of 0..7 cards, at most 4 per rank */
#define STUD_HI_SHIFT 16
#define STUD_SUIT_SHIFT 32

struct stud_tables {
    uint64_t card_key[52];
    uint64_t card_mask[52];
    uint16_t lo_index[STUD_LO_SPAN];
    uint32_t hi_offset[STUD_HI_SPAN];
    uint16_t high_value[STUD_PATTERNS];   /* best non-flush high value of the pattern (5..7 cards) */
    uint16_t low_value[STUD_PATTERNS];    /* best ace-to-five low value of the pattern (5..7 cards) */
    uint16_t flush_value[8192];           /* best straight flush / flush of a 13-bit suit mask */
    uint8_t high_category[STUD_HIGH_CLASSES + 1];
};

extern struct stud_tables stud_t;

/* Builds the tables once; returns STUD_OK or STUD_ERR_INIT. Cheap after the first call. */
int stud_ensure_tables(void);

static inline uint32_t stud_pattern_index(uint64_t key)
{
    return (uint32_t)stud_t.lo_index[key & 0xFFFFu] + stud_t.hi_offset[(key >> STUD_HI_SHIFT) & 0x3FFFu];
}

/* Suit counters plus 3 reach bit 3 of their nibble exactly when a suit holds 5 or more cards. */
static inline uint32_t stud_flush_bits(uint64_t key)
{
    return ((uint32_t)(key >> STUD_SUIT_SHIFT) + 0x3333u) & 0x8888u;
}

static inline int stud_high_from_key(uint64_t key, uint64_t mask)
{
    uint32_t flush = stud_flush_bits(key);
    if (flush) {
        int suit = __builtin_ctz(flush) >> 2;
        return stud_t.flush_value[(mask >> (16 * suit)) & 0x1FFFu];
    }
    return stud_t.high_value[stud_pattern_index(key)];
}

/* Checks n int card codes and accumulates their key and mask. Returns STUD_OK or an error. */
static inline int stud_accumulate_int(const int *cards, int n, uint64_t *key_out, uint64_t *mask_out)
{
    uint64_t key = 0, mask = 0;
    for (int i = 0; i < n; i++) {
        int c = cards[i];
        if (c < 0 || c > 51) return STUD_ERR_CARD;
        uint64_t bit = stud_t.card_mask[c];
        if (mask & bit) return STUD_ERR_DUPLICATE;
        key += stud_t.card_key[c];
        mask |= bit;
    }
    *key_out = key;
    *mask_out = mask;
    return STUD_OK;
}

/* The same for n byte card codes (the batch layout). */
static inline int stud_accumulate_u8(const uint8_t *cards, int n, uint64_t *key_out, uint64_t *mask_out)
{
    uint64_t key = 0, mask = 0;
    for (int i = 0; i < n; i++) {
        unsigned c = cards[i];
        if (c > 51) return STUD_ERR_CARD;
        uint64_t bit = stud_t.card_mask[c];
        if (mask & bit) return STUD_ERR_DUPLICATE;
        key += stud_t.card_key[c];
        mask |= bit;
    }
    *key_out = key;
    *mask_out = mask;
    return STUD_OK;
}

/* Ace-low rank: A=0, 2=1, ..., K=12. */
static inline int stud_ace_low_rank(int card)
{
    return ((card >> 2) + 1) % 13;
}

/* Puts five cards in order of significance, as hands are compared: bigger rank groups first, then
 * higher ranks (ace-low ranks when ace_low), then higher suits; a wheel's ace goes last. */
void stud_order_five(int five[5], int ace_low);

/* The value of five cards, and a card's rank for choosing among fives of equal value. */
typedef int (*stud_five_value)(const int five[5]);
typedef int (*stud_card_rank)(int card);

/* Writes to `out` which five of the n `cards` are worth `best` by `value_of`; among several, the
 * five whose cards, sorted by `rank_of` (highest first when `highest_first`, else lowest first),
 * compare first. Deterministic, so a hand always shows the same five cards. */
void stud_pick_five(const int *cards, int n, int best, stud_five_value value_of, stud_card_rank rank_of,
                    int highest_first, int out[5]);

/* Shared argument checks of the single-hand calls. */
static inline int stud_check_hand_args(const int *cards, int n, int min_n, int max_n)
{
    if (cards == NULL) return STUD_ERR_NULL;
    if (n < min_n || n > max_n) return STUD_ERR_COUNT;
    return stud_ensure_tables();
}

#endif /* STUD_INTERNAL_H */
