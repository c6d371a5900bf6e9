/* batch.c - many hands packed in one byte buffer, evaluated in one call (optionally on threads). */
#include <pthread.h>

#include "stud_internal.h"

enum batch_kind { BATCH_HIGH, BATCH_LOW, BATCH_EIGHT };

/* One hand's value; `n` is a compile-time constant at every call site so the loop unrolls. */
static inline int32_t batch_value(const uint8_t *hand, int n, enum batch_kind kind)
{
    uint64_t key, mask;
    int status = stud_accumulate_u8(hand, n, &key, &mask);
    if (status != STUD_OK) return status;
    if (kind == BATCH_HIGH) return stud_high_from_key(key, mask);
    int low = stud_t.low_value[stud_pattern_index(key)];
    if (kind == BATCH_LOW) return low;
    return low >= STUD_EIGHT_MIN_VALUE ? low : STUD_NO_LOW;
}

#define BATCH_LOOP(N)                                                              \
    for (size_t i = 0; i < n_hands; i++) {                                         \
        int32_t v = batch_value(cards + i * (N), (N), kind);                       \
        out[i] = v;                                                                \
        if (v < 0 && first_error == STUD_OK) first_error = v;                      \
    }

static int batch_range(const uint8_t *cards, size_t n_hands, int n, int32_t *out, enum batch_kind kind)
{
    int first_error = STUD_OK;
    switch (n) {
    case 5: BATCH_LOOP(5) break;
    case 6: BATCH_LOOP(6) break;
    default: BATCH_LOOP(7) break;
    }
    return first_error;
}

struct batch_job {
    const uint8_t *cards;
    size_t n_hands;
    int n;
    int32_t *out;
    enum batch_kind kind;
    int status;
};

static void *batch_thread(void *arg)
{
    struct batch_job *job = arg;
    job->status = batch_range(job->cards, job->n_hands, job->n, job->out, job->kind);
    return NULL;
}

#define MAX_THREADS 64
#define MIN_HANDS_PER_THREAD 65536 /* below this a thread costs more than it saves */

static int batch(const uint8_t *cards, size_t n_hands, int n, int32_t *out, int n_threads,
                 enum batch_kind kind)
{
    if ((cards == NULL || out == NULL) && n_hands > 0) return STUD_ERR_NULL;
    if (n < 5 || n > 7) return STUD_ERR_COUNT;
    int status = stud_ensure_tables();
    if (status != STUD_OK) return status;
    if (n_threads > MAX_THREADS) n_threads = MAX_THREADS;
    if (n_threads < 1) n_threads = 1;
    while (n_threads > 1 && n_hands / (size_t)n_threads < MIN_HANDS_PER_THREAD) n_threads--;
    if (n_threads == 1) return batch_range(cards, n_hands, n, out, kind);

    struct batch_job jobs[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    size_t per = n_hands / (size_t)n_threads, begin = 0;
    for (int t = 0; t < n_threads; t++) {
        size_t count = t == n_threads - 1 ? n_hands - begin : per;
        jobs[t] = (struct batch_job){cards + begin * (size_t)n, count, n, out + begin, kind, STUD_OK};
        begin += count;
        /* The calling thread takes the last share; a thread that fails to start is done inline. */
        if (t < n_threads - 1 && pthread_create(&threads[t], NULL, batch_thread, &jobs[t]) == 0)
            started[t] = 1;
        else
            batch_thread(&jobs[t]);
    }
    int first_error = STUD_OK;
    for (int t = 0; t < n_threads; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        if (first_error == STUD_OK) first_error = jobs[t].status;
    }
    return first_error;
}

int stud_eval_high_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand, int32_t *out, int n_threads)
{
    return batch(cards, n_hands, cards_per_hand, out, n_threads, BATCH_HIGH);
}

int stud_eval_low_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand, int32_t *out, int n_threads)
{
    return batch(cards, n_hands, cards_per_hand, out, n_threads, BATCH_LOW);
}

int stud_eval_eight_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand, int32_t *out, int n_threads)
{
    return batch(cards, n_hands, cards_per_hand, out, n_threads, BATCH_EIGHT);
}
