/* order.c - the five cards of a hand in the order a reader (and a comparison) takes them. */
#include "stud_internal.h"

void stud_order_five(int five[5], int ace_low)
{
    int rank[5], count[5], key[5];
    for (int i = 0; i < 5; i++) rank[i] = ace_low ? stud_ace_low_rank(five[i]) : five[i] >> 2;
    for (int i = 0; i < 5; i++) {
        count[i] = 0;
        for (int j = 0; j < 5; j++) count[i] += rank[j] == rank[i];
        key[i] = (count[i] << 8) | (rank[i] << 2) | (five[i] & 3);
    }
    for (int i = 1; i < 5; i++) /* insertion sort, largest key first */
        for (int j = i; j > 0 && key[j] > key[j - 1]; j--) {
            int t = key[j]; key[j] = key[j - 1]; key[j - 1] = t;
            t = five[j]; five[j] = five[j - 1]; five[j - 1] = t;
        }
    /* A-5-4-3-2 is a five-high straight: the ace plays low, so it goes last. */
    if (!ace_low && (five[0] >> 2) == 12 && (five[1] >> 2) == 3 && (five[4] >> 2) == 0 && (key[0] >> 8) == 1) {
        int ace = five[0];
        for (int i = 0; i < 4; i++) five[i] = five[i + 1];
        five[4] = ace;
    }
}

/* The sort key of a card when picking among tied fives: larger is preferred. */
static int pick_key(stud_card_rank rank_of, int highest_first, int card)
{
    return highest_first ? rank_of(card) : -rank_of(card);
}

void stud_pick_five(const int *cards, int n, int best, stud_five_value value_of, stud_card_rank rank_of,
                    int highest_first, int out[5])
{
    /* Not the hot path: try the at most 21 five-card subsets and keep, among those worth `best`,
     * the one whose cards, each set sorted by preference, compare first. */
    int chosen[5] = {-1, -1, -1, -1, -1};
    int idx[5];
    for (idx[0] = 0; idx[0] < n; idx[0]++)
    for (idx[1] = idx[0] + 1; idx[1] < n; idx[1]++)
    for (idx[2] = idx[1] + 1; idx[2] < n; idx[2]++)
    for (idx[3] = idx[2] + 1; idx[3] < n; idx[3]++)
    for (idx[4] = idx[3] + 1; idx[4] < n; idx[4]++) {
        int five[5];
        for (int i = 0; i < 5; i++) five[i] = cards[idx[i]];
        if (value_of(five) != best) continue;
        for (int i = 1; i < 5; i++) /* insertion sort, preferred card first */
            for (int j = i; j > 0 && pick_key(rank_of, highest_first, five[j])
                                       > pick_key(rank_of, highest_first, five[j - 1]); j--) {
                int t = five[j]; five[j] = five[j - 1]; five[j - 1] = t;
            }
        int better = chosen[0] < 0;
        for (int i = 0; i < 5 && !better; i++) {
            if (five[i] == chosen[i]) continue;
            better = pick_key(rank_of, highest_first, five[i]) > pick_key(rank_of, highest_first, chosen[i]);
            break;
        }
        if (better)
            for (int i = 0; i < 5; i++) chosen[i] = five[i];
    }
    for (int i = 0; i < 5; i++) out[i] = chosen[i];
}
