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

/* Order for picking among tied fives: ace-low rank first, then suit. */
static int low_order(int card)
{
    return stud_ace_low_rank(card) * 4 + (card & 3);
}

static void sort_low_asc5(int v[5])
{
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && low_order(v[j]) < low_order(v[j - 1]); j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* Negative when `a` holds the lower cards (compared lowest first). */
static int compare_low5(const int a[5], const int b[5])
{
    for (int i = 0; i < 5; i++)
        if (a[i] != b[i]) return low_order(a[i]) < low_order(b[i]) ? -1 : 1;
    return 0;
}

int stud_best_five_low(const int *cards, int n, int *out)
{
    if (out == NULL) return STUD_ERR_NULL;
    int best = stud_eval_low(cards, n);
    if (best < 0) return best;
    int chosen[5] = {-1, -1, -1, -1, -1};
    int idx[5];
    for (idx[0] = 0; idx[0] < n; idx[0]++)
    for (idx[1] = idx[0] + 1; idx[1] < n; idx[1]++)
    for (idx[2] = idx[1] + 1; idx[2] < n; idx[2]++)
    for (idx[3] = idx[2] + 1; idx[3] < n; idx[3]++)
    for (idx[4] = idx[3] + 1; idx[4] < n; idx[4]++) {
        uint64_t key = 0;
        int five[5];
        for (int i = 0; i < 5; i++) {
            five[i] = cards[idx[i]];
            key += stud_t.card_key[five[i]];
        }
        if (low_from_key(key) != best) continue;
        sort_low_asc5(five);
        if (chosen[0] < 0 || compare_low5(five, chosen) < 0)
            for (int i = 0; i < 5; i++) chosen[i] = five[i];
    }
    stud_order_five(chosen, 1);
    for (int i = 0; i < 5; i++) out[i] = chosen[i];
    return best;
}

int stud_best_five_eight(const int *cards, int n, int *out)
{
    if (out == NULL) return STUD_ERR_NULL;
    int value = stud_eval_eight(cards, n);
    if (value <= 0) return value;
    return stud_best_five_low(cards, n, out);
}
