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

static int five_value(const int *cards, const int idx[5])
{
    uint64_t key = 0, mask = 0;
    for (int i = 0; i < 5; i++) {
        key += stud_t.card_key[cards[idx[i]]];
        mask |= stud_t.card_mask[cards[idx[i]]];
    }
    return stud_high_from_key(key, mask);
}

/* Sorts five codes in place, highest first (the order used to pick among tied fives). */
static void sort_desc5(int v[5])
{
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && v[j] > v[j - 1]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* Larger when `a` holds the higher cards (compared highest first). */
static int compare_desc5(const int a[5], const int b[5])
{
    for (int i = 0; i < 5; i++)
        if (a[i] != b[i]) return a[i] > b[i] ? 1 : -1;
    return 0;
}

int stud_best_five_high(const int *cards, int n, int *out)
{
    if (out == NULL) return STUD_ERR_NULL;
    int best = stud_eval_high(cards, n);
    if (best < 0) return best;
    /* Not the hot path: try the few five-card subsets and keep the best, deterministically. */
    int chosen[5] = {-1, -1, -1, -1, -1};
    int idx[5];
    for (idx[0] = 0; idx[0] < n; idx[0]++)
    for (idx[1] = idx[0] + 1; idx[1] < n; idx[1]++)
    for (idx[2] = idx[1] + 1; idx[2] < n; idx[2]++)
    for (idx[3] = idx[2] + 1; idx[3] < n; idx[3]++)
    for (idx[4] = idx[3] + 1; idx[4] < n; idx[4]++) {
        if (five_value(cards, idx) != best) continue;
        int five[5];
        for (int i = 0; i < 5; i++) five[i] = cards[idx[i]];
        sort_desc5(five);
        if (chosen[0] < 0 || compare_desc5(five, chosen) > 0)
            for (int i = 0; i < 5; i++) chosen[i] = five[i];
    }
    stud_order_five(chosen, 0);
    for (int i = 0; i < 5; i++) out[i] = chosen[i];
    return best;
}
