/* random_hands.c - reproducible uniform random hands for tests and benchmarks (not the game's shuffle). */
#include "stud_internal.h"

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in 0..bound-1 (Lemire's multiply with rejection of the biased zone). */
static uint32_t below(uint64_t *state, uint32_t bound)
{
    for (;;) {
        uint64_t product = (uint64_t)(uint32_t)splitmix64(state) * bound;
        if ((uint32_t)product >= (uint32_t)(-bound) % bound) return (uint32_t)(product >> 32);
    }
}

int stud_random_hands(uint64_t seed, size_t n_hands, int cards_per_hand, uint8_t *out)
{
    if (out == NULL && n_hands > 0) return STUD_ERR_NULL;
    if (cards_per_hand < 1 || cards_per_hand > 52) return STUD_ERR_COUNT;
    uint64_t state = seed;
    uint8_t deck[52];
    for (int c = 0; c < 52; c++) deck[c] = (uint8_t)c;
    for (size_t h = 0; h < n_hands; h++) {
        /* Partial Fisher-Yates: the first cards_per_hand slots become the hand. */
        for (int i = 0; i < cards_per_hand; i++) {
            int j = i + (int)below(&state, (uint32_t)(52 - i));
            uint8_t t = deck[i];
            deck[i] = deck[j];
            deck[j] = t;
            out[h * (size_t)cards_per_hand + (size_t)i] = deck[i];
        }
    }
    return STUD_OK;
}
