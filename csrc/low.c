/* low.c - ace-to-five low (Razz) and eight-or-better low (Stud Hi-Lo). */
#include "stud_internal.h"

static inline int low_from_key(uint64_t key)
{
    return stud_t.low_value[stud_pattern_index(key)];
}

int stud_eval_low(const int *cards, int n)
{
    int status = stud_check_hand_args(cards, n, 5, 7);
    if (status != STUD_OK) return status;
    uint64_t key, mask;
    status = stud_accumulate_int(cards, n, &key, &mask);
    if (status != STUD_OK) return status;
    return low_from_key(key);
}

int stud_eval_eight(const int *cards, int n)
{
    int value = stud_eval_low(cards, n);
    if (value < 0) return value;
    /* The best ace-to-five low qualifies exactly when it is one of the 56 eight-or-better lows. */
    return value >= STUD_EIGHT_MIN_VALUE ? value : STUD_NO_LOW;
}

/* Order for picking among tied fives: ace-low rank first, then suit; the lower is preferred. */
static int low_order(int card)
{
    return stud_ace_low_rank(card) * 4 + (card & 3);
}

static int five_low_value(const int five[5])
{
    uint64_t key = 0;
    for (int i = 0; i < 5; i++) key += stud_t.card_key[five[i]];
    return low_from_key(key);
}

int stud_best_five_low(const int *cards, int n, int *out)
{
    if (out == NULL) return STUD_ERR_NULL;
    int best = stud_eval_low(cards, n);
    if (best < 0) return best;
    stud_pick_five(cards, n, best, five_low_value, low_order, 0, out);
    stud_order_five(out, 1);
    return best;
}

int stud_best_five_eight(const int *cards, int n, int *out)
{
    if (out == NULL) return STUD_ERR_NULL;
    int value = stud_eval_eight(cards, n);
    if (value <= 0) return value;
    return stud_best_five_low(cards, n, out);
}
