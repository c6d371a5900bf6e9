/* enumerate.c - every hand of 5, 6 or 7 cards, with keys built incrementally card by card. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "stud_internal.h"

/* Adds the values of all hands extending (key, mask) by `left` cards drawn from start..51. */
static void enumerate_from(int start, int left, uint64_t key, uint64_t mask, uint64_t *counts)
{
    if (left == 2) {
        for (int a = start; a < 51; a++) {
            uint64_t ka = key + stud_t.card_key[a], ma = mask | stud_t.card_mask[a];
            for (int b = a + 1; b < 52; b++)
                counts[stud_high_from_key(ka + stud_t.card_key[b], ma | stud_t.card_mask[b])]++;
        }
        return;
    }
    for (int c = start; c <= 52 - left; c++)
        enumerate_from(c + 1, left - 1, key + stud_t.card_key[c], mask | stud_t.card_mask[c], counts);
}

struct enum_shared {
    int cards_per_hand;
    atomic_int next_pair; /* work items are the first two cards, handed out in turn */
};

struct enum_worker {
    struct enum_shared *shared;
    uint64_t counts[STUD_HIGH_CLASSES + 1];
};

static void *enumerate_worker(void *arg)
{
    struct enum_worker *w = arg;
    int n = w->shared->cards_per_hand;
    for (;;) {
        int item = atomic_fetch_add(&w->shared->next_pair, 1);
        if (item >= 52 * 52) break;
        int a = item / 52, b = item % 52;
        if (b <= a || b > 52 - (n - 1)) continue;
        uint64_t key = stud_t.card_key[a] + stud_t.card_key[b];
        uint64_t mask = stud_t.card_mask[a] | stud_t.card_mask[b];
        enumerate_from(b + 1, n - 2, key, mask, w->counts);
    }
    return NULL;
}

int stud_enumerate_high(int cards_per_hand, uint64_t *counts, size_t counts_len, int n_threads)
{
    if (counts == NULL) return STUD_ERR_NULL;
    if (cards_per_hand < 5 || cards_per_hand > 7 || counts_len < STUD_HIGH_CLASSES + 1) return STUD_ERR_COUNT;
    int status = stud_ensure_tables();
    if (status != STUD_OK) return status;
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 64) n_threads = 64;

    struct enum_shared shared = {.cards_per_hand = cards_per_hand};
    atomic_init(&shared.next_pair, 0);
    struct enum_worker *workers = calloc((size_t)n_threads, sizeof *workers);
    pthread_t *threads = calloc((size_t)n_threads, sizeof *threads);
    int *started = calloc((size_t)n_threads, sizeof *started);
    if (workers == NULL || threads == NULL || started == NULL) {
        free(workers);
        free(threads);
        free(started);
        return STUD_ERR_INIT;
    }
    for (int t = 0; t < n_threads; t++) {
        workers[t].shared = &shared;
        if (t > 0 && pthread_create(&threads[t], NULL, enumerate_worker, &workers[t]) == 0) started[t] = 1;
    }
    enumerate_worker(&workers[0]); /* the calling thread works too, and finishes what others could not */
    for (int t = 0; t < n_threads; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        for (int v = 1; v <= STUD_HIGH_CLASSES; v++) counts[v] += workers[t].counts[v];
    }
    free(workers);
    free(threads);
    free(started);
    return STUD_OK;
}
