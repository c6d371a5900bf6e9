/* bring_in.c - who must bring in on third street (RULES.md section 3). */
#include "stud_internal.h"

static int strength(int card, int razz, int use_suit)
{
    int suit = card & 3;
    if (!razz) return use_suit ? card : card >> 2;
    /* Razz: the highest card brings in, aces low, spades highest - so the king of spades is weakest. */
    int from_top = 12 - stud_ace_low_rank(card);
    return use_suit ? from_top * 4 + (3 - suit) : from_top;
}

int stud_door_card_strength(int card, int razz, int use_suit)
{
    if (card < 0 || card > 51) return STUD_ERR_CARD;
    return strength(card, razz, use_suit);
}

int stud_bring_in_index(const int *door, int n, int razz)
{
    int status = stud_check_hand_args(door, n, 1, STUD_MAX_DOOR_CARDS);
    if (status != STUD_OK) return status;
    uint64_t key, mask;
    status = stud_accumulate_int(door, n, &key, &mask);
    if (status != STUD_OK) return status;
    int chosen = 0;
    for (int i = 1; i < n; i++)
        if (strength(door[i], razz, 1) < strength(door[chosen], razz, 1)) chosen = i;
    return chosen;
}
