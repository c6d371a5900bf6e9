/* board.c - ranking the up cards (1..4) to find who acts first (RULES.md section 4). */
#include "stud_internal.h"

/* Rank counts (by the given rank function) of up to four checked cards. */
static int board_counts(const int *cards, int n, int ace_low, uint8_t counts[13])
{
    int status = stud_check_hand_args(cards, n, 1, 4);
    if (status != STUD_OK) return status;
    uint64_t key, mask;
    status = stud_accumulate_int(cards, n, &key, &mask);
    if (status != STUD_OK) return status;
    for (int r = 0; r < 13; r++) counts[r] = 0;
    for (int i = 0; i < n; i++) counts[ace_low ? stud_ace_low_rank(cards[i]) : cards[i] >> 2]++;
    return STUD_OK;
}

/* Category (0 high card .. 4 quads) above the ranks of the groups, biggest group first.
 * Boards with the same number of cards and category have the same number of groups. */
static int board_raw(const uint8_t counts[13])
{
    int raw = 0, groups = 0, top = 0, second = 0;
    for (int c = 4; c >= 1; c--)
        for (int r = 12; r >= 0; r--)
            if (counts[r] == c) {
                if (groups == 0) top = c;
                else if (groups == 1) second = c;
                raw |= r << (12 - 4 * groups);
                groups++;
            }
    int category = top == 4 ? 4 : top == 3 ? 3 : (top == 2 && second == 2) ? 2 : top == 2 ? 1 : 0;
    return (category << 16) | raw;
}

int stud_board_rank_high(const int *cards, int n)
{
    uint8_t counts[13];
    int status = board_counts(cards, n, 0, counts);
    if (status != STUD_OK) return status;
    return board_raw(counts) + 1;
}

int stud_board_rank_razz(const int *cards, int n)
{
    uint8_t counts[13];
    int status = board_counts(cards, n, 1, counts);
    if (status != STUD_OK) return status;
    /* Same shape with aces low, where smaller is the better low board. */
    return (1 << 20) - board_raw(counts);
}
