/*
 * stud_eval.h - the C core of stud-service: hand evaluation, bring-in and board ranking
 * for Seven Card Stud, Stud Hi-Lo (eight-or-better) and Razz.
 *
 * CARD ENCODING (the same integers are used in Python, in the event log and on the wire)
 *
 *     code = rank_index * 4 + suit_index          0 <= code <= 51
 *
 *              clubs c  diamonds d  hearts h  spades s      suit_index: c=0 d=1 h=2 s=3
 *     2 (0)        0        1          2         3
 *     3 (1)        4        5          6         7
 *     4 (2)        8        9         10        11
 *     5 (3)       12       13         14        15
 *     6 (4)       16       17         18        19
 *     7 (5)       20       21         22        23
 *     8 (6)       24       25         26        27
 *     9 (7)       28       29         30        31
 *     T (8)       32       33         34        35
 *     J (9)       36       37         38        39
 *     Q (10)      40       41         42        43
 *     K (11)      44       45         46        47
 *     A (12)      48       49         50        51
 *
 *   So 0 is the two of clubs (the worst card for the Stud bring-in) and 51 the ace of spades.
 *
 * CONVENTIONS
 *   - Every value is "larger is better" for the purpose at hand; equal values are exact ties
 *     (suits never break a tie between hands).
 *   - Every function is pure and thread-safe. Lookup tables are built once, on first use
 *     (pthread_once), and are read-only afterwards.
 *   - Every function checks its input. A negative return value is one of the STUD_ERR_* codes
 *     below. A single-hand call that fails writes nothing to its output; a batch call writes the
 *     failing hand's error code in that hand's slot and carries on with the others.
 *     Checks run in this order: NULL pointer, card count, then each card in turn (out of range,
 *     then duplicate of an earlier card).
 *   - Hands hold at most 7 cards; more is STUD_ERR_COUNT, never an overflow.
 */
#ifndef STUD_EVAL_H
#define STUD_EVAL_H

#include <stddef.h>
#include <stdint.h>

/* ---- error codes (all negative) ---- */
#define STUD_OK             0
#define STUD_ERR_CARD      (-1)  /* a card code outside 0..51 */
#define STUD_ERR_DUPLICATE (-2)  /* the same card twice in one hand */
#define STUD_ERR_COUNT     (-3)  /* wrong number of cards (or a buffer length too small) */
#define STUD_ERR_NULL      (-4)  /* a NULL pointer where data was required */
#define STUD_ERR_VALUE     (-5)  /* a value argument outside its documented range */
#define STUD_ERR_INIT      (-6)  /* the lookup tables failed their self-check when first built */

/* ---- value ranges ---- */
#define STUD_HIGH_CLASSES  7462  /* high values are 1..7462; 7462 is a royal flush */
#define STUD_LOW_CLASSES   6175  /* ace-to-five low values are 1..6175; 6175 is 5-4-3-2-A */
#define STUD_EIGHT_CLASSES 56    /* qualifying eight-or-better lows: the top 56 low values */
#define STUD_EIGHT_MIN_VALUE (STUD_LOW_CLASSES - STUD_EIGHT_CLASSES + 1) /* 6120: 8-7-6-5-4 */
#define STUD_NO_LOW        0     /* eight-or-better result when no low qualifies */
#define STUD_MAX_DOOR_CARDS 8    /* one door card per seat */

/* High hand categories, as returned by stud_high_category (larger is better). */
enum stud_category {
    STUD_HIGH_CARD = 0, STUD_ONE_PAIR = 1, STUD_TWO_PAIR = 2, STUD_THREE_OF_A_KIND = 3,
    STUD_STRAIGHT = 4, STUD_FLUSH = 5, STUD_FULL_HOUSE = 6, STUD_FOUR_OF_A_KIND = 7,
    STUD_STRAIGHT_FLUSH = 8
};

/* Builds the lookup tables now rather than on first use. Returns STUD_OK or STUD_ERR_INIT. */
int stud_init(void);

/* ---- 1. High hand (Seven Card Stud, the high half of Hi-Lo) ----
 * Best five of n = 5, 6 or 7 cards. Returns 1..STUD_HIGH_CLASSES or an error. */
int stud_eval_high(const int *cards, int n);

/* Category (enum stud_category) of a high value; STUD_ERR_VALUE outside 1..STUD_HIGH_CLASSES. */
int stud_high_category(int value);

/* As stud_eval_high, and writes the five cards that make the hand to out[0..4] in order of
 * significance: bigger rank groups first, then higher ranks, then higher suits (full house
 * K K K 2 2; wheel 5 4 3 2 A). Where several fives tie, the one with the higher cards by code
 * (rank, then suit) is chosen, so the choice is deterministic. */
int stud_best_five_high(const int *cards, int n, int *out);

/* ---- 2. Ace-to-five low (Razz) ----
 * Best five of n = 5, 6 or 7 cards; aces low, straights and flushes ignored, pairs count
 * against. Returns 1..STUD_LOW_CLASSES (larger is a better low) or an error. */
int stud_eval_low(const int *cards, int n);

/* As stud_eval_low, and writes the five cards to out[0..4] in order of significance for a low:
 * bigger rank groups first, then higher ace-low ranks (8 6 4 2 A; A A K 3 2). Where several fives
 * tie, the one with the lower cards (ace-low rank, then suit) is chosen. */
int stud_best_five_low(const int *cards, int n, int *out);

/* ---- 3. Eight-or-better low (Stud Hi-Lo) ----
 * Returns STUD_NO_LOW (0) when the n = 5..7 cards hold no five distinct ranks of eight or lower
 * (aces low); otherwise the ace-to-five low value of the best qualifying five, which is always
 * >= STUD_EIGHT_MIN_VALUE, so values compare directly with stud_eval_low. */
int stud_eval_eight(const int *cards, int n);

/* As stud_eval_eight; writes the five cards (as stud_best_five_low) only when a low qualifies. */
int stud_best_five_eight(const int *cards, int n, int *out);

/* ---- 4. Board rank: who acts first on fourth street and later (RULES.md section 4) ----
 * n = 1..4 up cards. Stud: quads > trips > two pair > pair > high card, then ranks; no
 * straights or flushes; suits ignored. Razz: the best ace-to-five low board is larger (pairs
 * make a board worse). Values compare only between boards with the same number of cards.
 * Returns a value >= 1 or an error. */
int stud_board_rank_high(const int *cards, int n);
int stud_board_rank_razz(const int *cards, int n);

/* ---- 5. Bring-in (RULES.md section 3) ----
 * door: the door cards of the players in seat order, n = 1..STUD_MAX_DOOR_CARDS.
 * Returns the index into door of the player who must bring in: Stud (razz = 0) the lowest card,
 * suits clubs < diamonds < hearts < spades; Razz (razz != 0) the highest card, aces low, with
 * spades highest (the king of spades brings in before the king of clubs). */
int stud_bring_in_index(const int *door, int n, int razz);

/* Strength of one door card for the bring-in: the LOWEST strength brings in. With use_suit = 0,
 * cards of equal rank have equal strength (for the position tie-break table option).
 * Stud: 0 (2c) .. 51 (As); Razz: 0 (Ks) .. 51 (Ac). Without suits: 0..12. */
int stud_door_card_strength(int card, int razz, int use_suit);

/* ---- 6. Batch forms ----
 * cards: n_hands hands of cards_per_hand (5..7) card codes, one byte each, packed back to back.
 * out[i] receives hand i's value, or that hand's (negative) error code. Returns STUD_OK when
 * every hand was valid, otherwise the error code of the first invalid hand.
 * n_threads <= 1 evaluates on the calling thread; larger values split big batches across that
 * many threads (capped at 64). For the eight-or-better batch, 0 (STUD_NO_LOW) means no low. */
int stud_eval_high_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand,
                         int32_t *out, int n_threads);
int stud_eval_low_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand,
                        int32_t *out, int n_threads);
int stud_eval_eight_batch(const uint8_t *cards, size_t n_hands, int cards_per_hand,
                          int32_t *out, int n_threads);

/* ---- Enumeration ----
 * Evaluates every one of the C(52, cards_per_hand) hands (cards_per_hand 5..7) and adds the
 * number of hands having each high value v to counts[v]; counts_len must be at least
 * STUD_HIGH_CLASSES + 1 (counts[0] stays untouched). Uses up to n_threads threads. */
int stud_enumerate_high(int cards_per_hand, uint64_t *counts, size_t counts_len, int n_threads);

/* ---- Sampling for tests and benchmarks (not the game's shuffle) ----
 * Writes n_hands uniformly random hands of cards_per_hand (1..52) distinct cards to out,
 * reproducibly from seed. */
int stud_random_hands(uint64_t seed, size_t n_hands, int cards_per_hand, uint8_t *out);

#endif /* STUD_EVAL_H */
