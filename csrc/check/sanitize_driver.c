/*
 * sanitize_driver.c - drives every entry point of the C core, with good and bad input, so the
 * core can be built with -fsanitize=address,undefined (or thread) and checked for memory errors,
 * undefined behaviour and data races. Exit status 0 means every result was as expected.
 * Built and run by tests/test_native_sanitizers.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stud_eval.h"

static int failures = 0;

#define EXPECT(cond)                                                      \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                   \
        }                                                                 \
    } while (0)

int main(void)
{
    EXPECT(stud_init() == STUD_OK);
    const size_t n = 300000;
    uint8_t *hands = malloc(n * 7);
    int32_t *one = malloc(n * sizeof *one), *many = malloc(n * sizeof *many);
    uint64_t *counts = calloc(STUD_HIGH_CLASSES + 1, sizeof *counts);
    if (!hands || !one || !many || !counts) return 2;

    /* batches: threaded results equal single-threaded ones */
    for (int cards = 5; cards <= 7; cards++) {
        EXPECT(stud_random_hands((uint64_t)cards, n, cards, hands) == STUD_OK);
        EXPECT(stud_eval_high_batch(hands, n, cards, one, 1) == STUD_OK);
        EXPECT(stud_eval_high_batch(hands, n, cards, many, 4) == STUD_OK);
        EXPECT(memcmp(one, many, n * sizeof *one) == 0);
        EXPECT(stud_eval_low_batch(hands, n, cards, one, 1) == STUD_OK);
        EXPECT(stud_eval_low_batch(hands, n, cards, many, 3) == STUD_OK);
        EXPECT(memcmp(one, many, n * sizeof *one) == 0);
        EXPECT(stud_eval_eight_batch(hands, n, cards, many, 2) == STUD_OK);
    }

    /* single calls agree with the batch */
    EXPECT(stud_random_hands(99, n, 7, hands) == STUD_OK);
    EXPECT(stud_eval_high_batch(hands, n, 7, one, 1) == STUD_OK);
    int five[5];
    for (size_t i = 0; i < 20000; i++) {
        int c[7];
        for (int k = 0; k < 7; k++) c[k] = hands[7 * i + k];
        EXPECT(stud_eval_high(c, 7) == one[i]);
        EXPECT(stud_best_five_high(c, 7, five) == one[i]);
        EXPECT(stud_best_five_low(c, 7, five) == stud_eval_low(c, 7));
        EXPECT(stud_best_five_eight(c, 6, five) == stud_eval_eight(c, 6));
        EXPECT(stud_board_rank_high(c, 4) > 0 && stud_board_rank_razz(c, 3) > 0);
        int who = stud_bring_in_index(c, 7, (int)(i & 1));
        EXPECT(who >= 0 && who < 7);
        EXPECT(stud_door_card_strength(c[0], 1, 0) >= 0);
    }

    /* bad input: codes, never crashes */
    int bad[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    const int codes[] = {-1, 52, 1000, -2147483647 - 1, 2147483647};
    for (int k = 0; k < 5; k++) {
        bad[3] = codes[k];
        EXPECT(stud_eval_high(bad, 7) == STUD_ERR_CARD);
        EXPECT(stud_eval_low(bad, 5) == STUD_ERR_CARD);
        EXPECT(stud_eval_eight(bad, 6) == STUD_ERR_CARD);
        EXPECT(stud_best_five_high(bad, 7, five) == STUD_ERR_CARD);
        EXPECT(stud_board_rank_high(bad, 4) == STUD_ERR_CARD);
        EXPECT(stud_board_rank_razz(bad, 4) == STUD_ERR_CARD);
        EXPECT(stud_bring_in_index(bad, 8, 1) == STUD_ERR_CARD);
        EXPECT(stud_door_card_strength(codes[k], 0, 1) == STUD_ERR_CARD);
    }
    const int values[] = {-1, 0, STUD_HIGH_CLASSES + 1, -2147483647 - 1, 2147483647};
    for (int k = 0; k < 5; k++) EXPECT(stud_high_category(values[k]) == STUD_ERR_VALUE);
    bad[3] = 0;
    EXPECT(stud_eval_high(bad, 7) == STUD_ERR_DUPLICATE);
    EXPECT(stud_best_five_low(bad, 7, five) == STUD_ERR_DUPLICATE);
    EXPECT(stud_eval_high(NULL, 7) == STUD_ERR_NULL);
    EXPECT(stud_eval_high(bad, 9) == STUD_ERR_COUNT);
    EXPECT(stud_eval_high(bad, -5) == STUD_ERR_COUNT);
    EXPECT(stud_best_five_high(bad, 7, NULL) == STUD_ERR_NULL);
    EXPECT(stud_bring_in_index(bad, 9, 0) == STUD_ERR_COUNT);
    for (size_t i = 0; i < 7 * 1000; i++) hands[i] = (uint8_t)(rand() & 0xFF);
    EXPECT(stud_eval_high_batch(hands, 1000, 7, one, 1) < 0);
    EXPECT(stud_eval_high_batch(NULL, 1000, 7, one, 1) == STUD_ERR_NULL);
    EXPECT(stud_eval_high_batch(hands, 1000, 9, one, 1) == STUD_ERR_COUNT);
    EXPECT(stud_random_hands(1, 10, 53, hands) == STUD_ERR_COUNT);

    /* enumeration on threads */
    EXPECT(stud_enumerate_high(5, counts, STUD_HIGH_CLASSES + 1, 3) == STUD_OK);
    EXPECT(counts[STUD_HIGH_CLASSES] == 4); /* four royal flushes */
    EXPECT(stud_enumerate_high(5, counts, 10, 2) == STUD_ERR_COUNT);
    EXPECT(stud_enumerate_high(9, counts, STUD_HIGH_CLASSES + 1, 2) == STUD_ERR_COUNT);

    free(hands);
    free(one);
    free(many);
    free(counts);
    if (failures) fprintf(stderr, "%d expectation(s) failed\n", failures);
    return failures ? 1 : 0;
}
