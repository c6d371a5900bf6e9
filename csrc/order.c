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
