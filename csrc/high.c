/* high.c - the high hand: best five of 5, 6 or 7 cards. */
#include "stud_internal.h"

int stud_eval_high(const int *cards, int n)
{
    int status = stud_check_hand_args(cards, n, 5, 7);
    if (status != STUD_OK) return status;
    uint64_t key, mask;
    status = stud_accumulate_int(cards, n, &key, &mask);
    if (status != STUD_OK) return status;
    return stud_high_from_key(key, mask);
}

static int five_value(const int five[5])
{
    uint64_t key = 0, mask = 0;
    for (int i = 0; i < 5; i++) {
        key += stud_t.card_key[five[i]];
        mask |= stud_t.card_mask[five[i]];
    }
    return stud_high_from_key(key, mask);
}

/* Among tied fives, the higher card codes (rank, then suit) are preferred. */
static int card_code(int card)
{
    return card;
}

int stud_best_five_high(const int *cards, int n, int *out)
{
    if (out == NULL) return STUD_ERR_NULL;
    int best = stud_eval_high(cards, n);
    if (best < 0) return best;
    stud_pick_five(cards, n, best, five_value, card_code, 1, out);
    stud_order_five(out, 0);
    return best;
}
