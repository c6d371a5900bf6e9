/*
 * tables.c - builds the lookup tables once (pthread_once); read-only afterwards.
 *
 * Hand values are dense ranks: every distinct five-card hand class gets a number, larger is
 * better. The classes are found by enumerating all five-card rank patterns, encoding each as a
 * "raw" integer whose order is the poker order (category in the top bits, then the ranks of the
 * rank groups, biggest group first), sorting, and numbering. Six- and seven-card patterns take
 * the best value among their patterns with one card fewer, so building takes a few milliseconds.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stud_internal.h"

struct stud_tables stud_t;

/* Additive keys of the ranks in each half: the smallest increasing keys (greedy) such that
 * every multiset of <= 7 cards, <= 4 per rank, has its own sum. */
static const uint32_t LO_KEY[STUD_LO_RANKS] = {1, 5, 24, 112, 521, 2247, 9244};
static const uint32_t HI_KEY[STUD_HI_RANKS] = {1, 5, 24, 112, 521, 2247};

#define RAW_SHIFT 20 /* category above five 4-bit rank slots */

static uint32_t high_raws[STUD_HIGH_CLASSES]; /* sorted ascending: value v has raw high_raws[v-1] */
static uint32_t low_raws[STUD_LOW_CLASSES];   /* sorted ascending: best low first */

/* Rank groups of a pattern: ranks ordered by count (largest first), then by rank (highest first). */
static int rank_groups(const uint8_t counts[13], int group_rank[5], int group_count[5])
{
    int groups = 0;
    for (int c = 4; c >= 1; c--)
        for (int r = 12; r >= 0; r--)
            if (counts[r] == c && groups < 5) {
                group_rank[groups] = r;
                group_count[groups] = c;
                groups++;
            }
    return groups;
}

static uint32_t pack_groups(int category, const int group_rank[5], int groups)
{
    uint32_t raw = (uint32_t)category << RAW_SHIFT;
    for (int i = 0; i < groups; i++) raw |= (uint32_t)group_rank[i] << (16 - 4 * i);
    return raw;
}

/* Poker order of five cards given their rank counts (ranks 2..A = 0..12). */
static uint32_t raw_high5(const uint8_t counts[13], int flush)
{
    int gr[5], gc[5];
    int groups = rank_groups(counts, gr, gc);
    if (gc[0] == 4) return pack_groups(STUD_FOUR_OF_A_KIND, gr, groups);
    if (gc[0] == 3) return pack_groups(gc[1] == 2 ? STUD_FULL_HOUSE : STUD_THREE_OF_A_KIND, gr, groups);
    if (gc[0] == 2) return pack_groups(gc[1] == 2 ? STUD_TWO_PAIR : STUD_ONE_PAIR, gr, groups);
    int top = -1;
    if (gr[0] - gr[4] == 4) top = gr[0];
    else if (gr[0] == 12 && gr[1] == 3) top = 3; /* the wheel, 5-4-3-2-A, is five-high */
    if (top >= 0) return ((uint32_t)(flush ? STUD_STRAIGHT_FLUSH : STUD_STRAIGHT) << RAW_SHIFT) | (uint32_t)top << 16;
    return pack_groups(flush ? STUD_FLUSH : STUD_HIGH_CARD, gr, groups);
}

/* Lowball order of five cards, ace low, straights and flushes ignored: SMALLER raw is better. */
static uint32_t raw_low5(const uint8_t counts[13])
{
    uint8_t low_counts[13];
    for (int r = 0; r < 13; r++) low_counts[(r + 1) % 13] = counts[r];
    int gr[5], gc[5];
    int groups = rank_groups(low_counts, gr, gc);
    int category;
    if (gc[0] == 4) category = 5;
    else if (gc[0] == 3) category = gc[1] == 2 ? 4 : 3;
    else if (gc[0] == 2) category = gc[1] == 2 ? 2 : 1;
    else category = 0;
    return pack_groups(category, gr, groups);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static size_t sort_unique(uint32_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

static int find_raw(const uint32_t *sorted, int n, uint32_t raw)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (sorted[mid] == raw) return mid;
        if (sorted[mid] < raw) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* All five-card rank patterns: fills the class lists; returns 0 on success. */
static int build_classes(void)
{
    static uint32_t highs[2 * 6175], lows[6175];
    size_t nh = 0, nl = 0;
    uint8_t counts[13];
    /* Walk the patterns as non-decreasing rank sequences r0 <= ... <= r4. */
    int r[5];
    for (r[0] = 0; r[0] < 13; r[0]++)
    for (r[1] = r[0]; r[1] < 13; r[1]++)
    for (r[2] = r[1]; r[2] < 13; r[2]++)
    for (r[3] = r[2]; r[3] < 13; r[3]++)
    for (r[4] = r[3]; r[4] < 13; r[4]++) {
        if (r[0] == r[4]) continue; /* five of a kind does not exist */
        memset(counts, 0, sizeof counts);
        int distinct = 1;
        for (int i = 0; i < 5; i++) {
            counts[r[i]]++;
            if (counts[r[i]] > 1) distinct = 0;
        }
        highs[nh++] = raw_high5(counts, 0);
        if (distinct) highs[nh++] = raw_high5(counts, 1);
        lows[nl++] = raw_low5(counts);
    }
    if (sort_unique(highs, nh) != STUD_HIGH_CLASSES) return -1;
    if (sort_unique(lows, nl) != STUD_LOW_CLASSES) return -1;
    memcpy(high_raws, highs, sizeof high_raws);
    memcpy(low_raws, lows, sizeof low_raws);
    for (int v = 1; v <= STUD_HIGH_CLASSES; v++)
        stud_t.high_category[v] = (uint8_t)(high_raws[v - 1] >> RAW_SHIFT);
    return 0;
}

static int high_value_of(uint32_t raw)
{
    return find_raw(high_raws, STUD_HIGH_CLASSES, raw) + 1;
}

static int low_value_of(uint32_t raw)
{
    return STUD_LOW_CLASSES - find_raw(low_raws, STUD_LOW_CLASSES, raw);
}

struct half_pattern {
    uint32_t sum;
    uint8_t total;
    uint8_t counts[STUD_LO_RANKS];
};

/* Enumerates the count vectors of `ranks` ranks (<= 4 each, total <= 7) sorted by total. */
static int half_patterns(int ranks, const uint32_t *keys, struct half_pattern *out, int cap)
{
    int n = 0;
    for (int total = 0; total <= 7; total++) {
        uint8_t c[STUD_LO_RANKS] = {0};
        /* odometer over counts 0..4 */
        for (;;) {
            int t = 0;
            uint32_t sum = 0;
            for (int i = 0; i < ranks; i++) {
                t += c[i];
                sum += c[i] * keys[i];
            }
            if (t == total) {
                if (n == cap) return -1;
                out[n].sum = sum;
                out[n].total = (uint8_t)t;
                memcpy(out[n].counts, c, sizeof c);
                n++;
            }
            int i = 0;
            while (i < ranks && c[i] == 4) c[i++] = 0;
            if (i == ranks) break;
            c[i]++;
        }
    }
    return n;
}

static int build_patterns(void)
{
    static struct half_pattern lo[4096], hi[2048];
    int n_lo = half_patterns(STUD_LO_RANKS, LO_KEY, lo, 4096);
    int n_hi = half_patterns(STUD_HI_RANKS, HI_KEY, hi, 2048);
    if (n_lo < 0 || n_hi < 0) return -1;

    /* lo_index: position in the total-sorted list, so patterns of total <= t form a prefix;
     * prefix[t] counts the lo patterns of fewer than t cards. */
    int prefix[9] = {0};
    static uint8_t seen_lo[STUD_LO_SPAN], seen_hi[STUD_HI_SPAN];
    memset(seen_lo, 0, sizeof seen_lo);
    memset(seen_hi, 0, sizeof seen_hi);
    for (int i = 0; i < n_lo; i++) {
        if (lo[i].sum >= STUD_LO_SPAN || seen_lo[lo[i].sum]) return -1; /* keys not collision-free */
        seen_lo[lo[i].sum] = 1;
        stud_t.lo_index[lo[i].sum] = (uint16_t)i;
        prefix[lo[i].total + 1] = i + 1;
    }
    for (int t = 1; t <= 8; t++)
        if (prefix[t] < prefix[t - 1]) prefix[t] = prefix[t - 1];

    uint32_t offset = 0;
    for (int h = 0; h < n_hi; h++) {
        if (hi[h].sum >= STUD_HI_SPAN || seen_hi[hi[h].sum]) return -1;
        seen_hi[hi[h].sum] = 1;
        stud_t.hi_offset[hi[h].sum] = offset;
        offset += (uint32_t)prefix[7 - hi[h].total + 1];
    }
    if (offset != STUD_PATTERNS) return -1;

    /* Values by number of cards: five-card patterns directly; a six- or seven-card pattern is
     * worth the best of the patterns one card smaller (its best five lies in one of them). */
    for (int cards = 5; cards <= 7; cards++)
        for (int h = 0; h < n_hi; h++) {
            if (hi[h].total > cards) continue;
            int l_begin = prefix[cards - hi[h].total], l_end = prefix[cards - hi[h].total + 1];
            for (int l = l_begin; l < l_end; l++) { /* the lo patterns with exactly the remaining cards */
                uint32_t index = stud_t.hi_offset[hi[h].sum] + (uint32_t)l;
                uint8_t counts[13];
                memcpy(counts, lo[l].counts, STUD_LO_RANKS);
                memcpy(counts + STUD_LO_RANKS, hi[h].counts, STUD_HI_RANKS);
                if (cards == 5) {
                    stud_t.high_value[index] = (uint16_t)high_value_of(raw_high5(counts, 0));
                    stud_t.low_value[index] = (uint16_t)low_value_of(raw_low5(counts));
                    continue;
                }
                uint64_t key = lo[l].sum + ((uint64_t)hi[h].sum << STUD_HI_SHIFT);
                uint16_t best_high = 0, best_low = 0;
                for (int r = 0; r < 13; r++) {
                    if (counts[r] == 0) continue;
                    uint64_t rank_key = r < STUD_LO_RANKS ? LO_KEY[r]
                                                          : (uint64_t)HI_KEY[r - STUD_LO_RANKS] << STUD_HI_SHIFT;
                    uint32_t smaller = stud_pattern_index(key - rank_key);
                    if (stud_t.high_value[smaller] > best_high) best_high = stud_t.high_value[smaller];
                    if (stud_t.low_value[smaller] > best_low) best_low = stud_t.low_value[smaller];
                }
                stud_t.high_value[index] = best_high;
                stud_t.low_value[index] = best_low;
            }
        }
    return 0;
}

static void build_flushes(void)
{
    for (int mask = 0; mask < 8192; mask++) {
        if (__builtin_popcount((unsigned)mask) < 5) continue;
        uint8_t counts[13] = {0};
        int taken = 0;
        for (int top = 12; top >= 3; top--) { /* highest straight inside the suit */
            int need = top == 3 ? 0x100F : 0x1F << (top - 4);
            if ((mask & need) == need) {
                for (int r = 0; r < 13; r++) counts[r] = (uint8_t)((need >> r) & 1);
                taken = 5;
                break;
            }
        }
        for (int r = 12; r >= 0 && taken < 5; r--)
            if (mask & (1 << r)) {
                counts[r] = 1;
                taken++;
            }
        stud_t.flush_value[mask] = (uint16_t)high_value_of(raw_high5(counts, 1));
    }
}

static void build_cards(void)
{
    for (int c = 0; c < 52; c++) {
        int rank = c >> 2, suit = c & 3;
        uint64_t rank_key = rank < STUD_LO_RANKS ? LO_KEY[rank]
                                                 : (uint64_t)HI_KEY[rank - STUD_LO_RANKS] << STUD_HI_SHIFT;
        stud_t.card_key[c] = rank_key + (1ULL << (STUD_SUIT_SHIFT + 4 * suit));
        stud_t.card_mask[c] = 1ULL << (16 * suit + rank);
    }
}

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static int tables_status = STUD_ERR_INIT;

static void build_tables(void)
{
    build_cards();
    if (build_classes() != 0 || build_patterns() != 0) return;
    build_flushes();
    tables_status = STUD_OK;
}

int stud_ensure_tables(void)
{
    pthread_once(&tables_once, build_tables);
    return tables_status;
}

int stud_init(void)
{
    return stud_ensure_tables();
}

int stud_high_category(int value)
{
    int status = stud_ensure_tables();
    if (status != STUD_OK) return status;
    if (value < 1 || value > STUD_HIGH_CLASSES) return STUD_ERR_VALUE;
    return stud_t.high_category[value];
}
