"""The randomness report (stud_service.rng): the stream and decks it tests are production's, its card tests
catch deliberately biased shuffles (the known-bad controls: the report must fail them, so it cannot pass
vacuously), a fixed seed reproduces it to the byte, and ``stud-service rng`` runs it from the command line.

Sizes are small (thousands of decks): enough for each control's bias to be found many times over, and
fixed seeds make every outcome here the same on every run."""

from __future__ import annotations

import itertools
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from stud_service.cards import DECK_SIZE
from stud_service.engine import BringInTiebreak
from stud_service.rng.cards import CardCounts, bring_in_expectation
from stud_service.rng.decks import Batch, deal_batch, dealt_deck
from stud_service.rng.layout import community_positions, dealing_layout, door_positions, player_positions
from stud_service.rng.report import Report, build_report, read_dieharder_log, scaling_evidence, write_report
from stud_service.rng.seeds import DECK_LABEL, STREAM_LABEL, SeedSource
from stud_service.rng.settings import ReportRefused, ReportSettings
from stud_service.rng.stats import chi_square, holm, uniform_counts_test
from stud_service.rng.stream import seed_stream_bytes, write_stream
from stud_service.shuffle import deck_order, u32_stream, uniform_below

MASTER = bytes(range(32))
SEEDS = SeedSource(MASTER)
DECKS = 20_000


# --- the deliberately biased shuffles: test code only ------------------------------------------------

def naive_swap_shuffle(seed: bytes) -> tuple[list[int], int]:
    """Swap every position with any position (52^52 equally likely paths onto 52! orders: not uniform)."""
    values = u32_stream(seed, {}).__next__
    deck = list(range(DECK_SIZE))
    for i in range(DECK_SIZE):
        j = uniform_below(DECK_SIZE, values)
        deck[i], deck[j] = deck[j], deck[i]
    return deck, 0


def byte_modulo_shuffle(seed: bytes) -> tuple[list[int], int]:
    """Fisher–Yates drawing a byte modulo n without rejection: the smaller residues come up more often."""
    values = u32_stream(seed, {}).__next__
    deck = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        j = (values() >> 24) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck, 0


def rotation_shuffle(seed: bytes) -> tuple[list[int], int]:
    """A uniformly random rotation of the ordered deck: every card at every position exactly 1/52 of the
    time, so only the tests of order (pairs, permutations, rank) can see it."""
    shift = uniform_below(DECK_SIZE, u32_stream(seed, {}).__next__)
    return [(k + shift) % DECK_SIZE for k in range(DECK_SIZE)], 0


def stacked_door_shuffle(seed: bytes) -> tuple[list[int], int]:
    """A fair deck, but one time in four the 2 of clubs is moved to seat 1's door card at a table of two."""
    deck, rejected = dealt_deck(seed)
    if seed[0] < 64:
        door = door_positions(2)[0]
        here = deck.index(0)
        deck[door], deck[here] = deck[here], deck[door]
    return deck, rejected


def _counts(deal, decks: int = DECKS) -> CardCounts:  # noqa: ANN001 - a Deal
    counts = CardCounts()
    counts.add(deal_batch(SEEDS, 0, decks, deal))
    return counts


def _failing(counts: CardCounts) -> set[str]:
    """The card tests failing at 1% after Holm's correction over all of them."""
    results = counts.results()
    return {r.name for r, p in zip(results, holm([r.p_value for r in results]), strict=True) if p < 0.01}


@pytest.fixture(scope="module")
def fair_counts() -> CardCounts:
    return _counts(dealt_deck)


# --- production's stream and decks --------------------------------------------------------------------

def test_the_fast_stream_is_the_production_stream_byte_for_byte() -> None:
    for seed, message in ((bytes(32), b""), (MASTER, b"\x00\x00\x00\x01\x00\x00\x00\x05alice")):
        data = seed_stream_bytes(seed, 300, message)
        produced = struct.unpack(f">{len(data) // 4}I", data)
        client_seeds = {1: "alice"} if message else {}
        assert list(produced) == list(itertools.islice(u32_stream(seed, client_seeds), len(produced)))


def test_write_stream_gives_each_seed_its_stream_in_turn(tmp_path: Path) -> None:
    target = tmp_path / "stream.bin"
    seeder = SEEDS.seeder(STREAM_LABEL)
    with target.open("wb") as out:
        assert write_stream(out, seeder, total_bytes=100_000, blocks_per_seed=1000) == 100_000
    data = target.read_bytes()
    assert data[:32_000] == seed_stream_bytes(seeder(0), 1000)
    assert data[32_000:64_000] == seed_stream_bytes(seeder(1), 1000)
    assert data[96_000:] == seed_stream_bytes(seeder(3), 1000)[:4_000]


def test_seeds_are_derived_from_the_master_or_drawn_from_the_os() -> None:
    assert SEEDS.seeder(DECK_LABEL)(5) == SeedSource(MASTER).seeder(DECK_LABEL)(5)
    assert SEEDS.seeder(DECK_LABEL)(5) != SEEDS.seeder(STREAM_LABEL)(5)
    assert SeedSource.parse(MASTER.hex()) == SEEDS and SeedSource.parse("os") == SeedSource.parse(None)
    drawn = SeedSource(None).seeder(DECK_LABEL)
    assert drawn(0) != drawn(0) and len(drawn(0)) == 32
    for bad in ("00", "zz" * 32, MASTER.hex() + "00"):
        with pytest.raises(ValueError, match="64 hex digits"):
            SeedSource.parse(bad)


def test_the_sampler_deals_what_deck_order_deals_and_counts_rejections() -> None:
    seeder = SEEDS.seeder(DECK_LABEL)
    for index in range(300):
        deck, rejected = dealt_deck(seeder(index))
        assert deck == deck_order(seeder(index), {}) and rejected == 0
    # A first value past the last whole multiple of 52 (one in 10^8 in a real stream) is redrawn.
    limit = (2**32 // 52) * 52
    stream = iter([limit + 3, *itertools.islice(u32_stream(MASTER, {}), 60)])
    deck, rejected = dealt_deck(MASTER, stream)
    assert rejected == 1 and deck == deck_order(MASTER, {})


def test_the_layout_is_the_engines_dealing_order() -> None:
    """Seat 1 of 3: down cards at positions 0 and 3, door 6, then 9, 12, 15 up and 18 down (RULES.md §2)."""
    assert player_positions(3, 1, face_up=False) == [0, 3, 18]
    assert player_positions(3, 1, face_up=True) == [6, 9, 12, 15]
    assert door_positions(8) == list(range(16, 24))
    assert community_positions(8) == [48] and community_positions(7) == []
    assert [len(dealing_layout(n)) for n in range(2, 9)] == [14, 21, 28, 35, 42, 49, 49]


def test_bring_in_chances_are_exact() -> None:
    """With suits every door card is distinct: 1/n each. Ranks only (position tie-break): a tie goes to the
    lower seat, so seat 1 of 2 brings in with 1/2 + P(same rank)/2 = 1/2 + 3/102."""
    assert list(bring_in_expectation(5, False, BringInTiebreak.SUIT)) == [pytest.approx(1 / 5)] * 5
    chances = bring_in_expectation(2, True, BringInTiebreak.POSITION)
    assert float(chances[0]) == pytest.approx(0.5 + 3 / 102) and sum(chances) == 1


# --- the statistics themselves --------------------------------------------------------------------------

def test_chi_square_passes_even_counts_and_fails_skewed_ones() -> None:
    rng = np.random.default_rng(3)
    fair = np.bincount(rng.integers(0, 52, 52_000), minlength=52)
    skewed = np.bincount(np.minimum(rng.integers(0, 53, 52_000), 51), minlength=52)  # card 51 twice as likely
    assert chi_square(fair, np.full(52, 1000.0))[2] > 0.01
    assert chi_square(skewed, np.full(52, 1000.0))[2] < 1e-6
    assert uniform_counts_test(skewed, "cards", "skewed", "", "").passed is False
    assert chi_square([1, 0], [1.0, 0.0])[2] == 1.0 and chi_square([0, 1], [1.0, 0.0])[2] == 0.0


def test_holm_adjusts_step_down() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == [pytest.approx(0.04), pytest.approx(0.09), pytest.approx(0.09),
                                              pytest.approx(0.5)]


def test_the_card_tests_are_calibrated_under_a_perfect_shuffle() -> None:
    """numpy's permutations as the perfect shuffle: over 30 runs, each family's p-values must not pile up
    at either end (a statistic scaled wrongly would push them one way); fixed generator seed."""
    rng = np.random.default_rng(11)
    families: dict[str, list[float]] = {}
    for _ in range(30):
        counts = CardCounts()
        counts.add(Batch(0, rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (2_000, 1)), axis=1), 0))
        for result in counts.results():
            families.setdefault(result.detail.get("family", "single"), []).append(result.p_value)
    for family, values in families.items():
        assert 0.4 < float(np.mean(values)) < 0.6, family


def test_production_decks_pass_every_card_test(fair_counts: CardCounts) -> None:
    assert _failing(fair_counts) == set()
    assert fair_counts.repeated_prefixes() == 0


# --- the known-bad controls ------------------------------------------------------------------------------

def test_a_naive_swap_shuffle_fails_position_by_card() -> None:
    failing = _failing(_counts(naive_swap_shuffle))
    assert "position × card (52 × 52)" in failing
    assert any(name.startswith("position ") and name != "position × card (52 × 52)" for name in failing)
    assert any(name.startswith("card ") for name in failing)


def test_a_modulo_biased_draw_fails_position_by_card() -> None:
    failing = _failing(_counts(byte_modulo_shuffle))
    assert "position × card (52 × 52)" in failing
    assert any(name.startswith("Lehmer digit") for name in failing)


def test_a_rotation_passes_position_by_card_and_fails_every_test_of_order() -> None:
    failing = _failing(_counts(rotation_shuffle, 5_000))
    assert "position × card (52 × 52)" not in failing  # uniform by construction
    assert {f"adjacent pair at positions {p}, {p + 1}" for p in range(51)} <= failing
    assert any(name.startswith("permutation test") for name in failing)
    assert any(name.startswith("deck rank") for name in failing)


def test_a_stacked_door_card_fails_the_bring_in_of_its_table() -> None:
    failing = _failing(_counts(stacked_door_shuffle))
    assert "bring-in seat, Stud, suit tie-break, 2 players" in failing
    assert "2 players, seat 1, up cards" in failing
    assert "bring-in seat, Stud, suit tie-break, 8 players" not in failing  # seat 1's door is elsewhere


def test_rejections_are_tested_against_their_expectation() -> None:
    evidence, result = scaling_evidence(0, 1_000_000)
    assert all(row["values_per_result_exact"] for row in evidence["draws"])
    assert {row["n"]: row["rejected_values"] for row in evidence["draws"]}[52] == 2**32 % 52
    assert result.passed  # 0.14 expected in a million decks
    _, too_many = scaling_evidence(50, 1_000_000)
    assert not too_many.passed


# --- the report, as a whole ------------------------------------------------------------------------------

SMALL = ReportSettings(seeds=SEEDS, decks=4_000, nist_sequences=2, nist_bits=100_000, dieharder="skip")


@pytest.fixture(scope="module")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    out = tmp_path_factory.mktemp("rng-report")
    return write_report(SMALL, out), out


def test_the_report_of_production_passes_and_writes_everything(small_report: tuple[Report, Path]) -> None:
    report, out = small_report
    assert report.passed, report.summary_line()
    assert {path.name for path in out.iterdir()} == {
        "index.html", "report.json", "position-card-heatmap.png", "p-value-histograms.png", "p-value-qq.png"}
    document = json.loads((out / "report.json").read_text())
    assert document["passed"] is True and document["meta"]["master_seed"] == MASTER.hex()
    assert document["meta"]["rerun"].startswith(f"stud-service rng report --seed {MASTER.hex()} --decks 4000")
    sections = {row["section"] for row in document["results"]}
    assert sections == {"cards", "scaling", "nist"}
    page = (out / "index.html").read_text()
    assert page.count("data:image/png;base64,") == 3 and "verdict at 99%" in page
    assert "position × card (52 × 52)" in page and "Frequency (monobit)" in page


def test_the_same_seed_gives_the_same_report(small_report: tuple[Report, Path], tmp_path: Path) -> None:
    report, out = small_report
    again = write_report(SMALL, tmp_path)
    assert [r.as_json() for r in again.results] == [r.as_json() for r in report.results]
    for name in ("position-card-heatmap.png", "p-value-histograms.png", "p-value-qq.png"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_the_report_of_a_biased_shuffle_fails() -> None:
    report = build_report(SMALL, deal=naive_swap_shuffle)
    assert not report.passed
    failing = {r.name for r in report.results if r.holm_p is not None and r.holm_p < 0.01}
    assert "position × card (52 × 52)" in failing
    assert all(r.section == "cards" for r in report.results if r.name in failing)


def test_a_dieharder_log_must_be_of_the_reports_seed_and_complete(tmp_path: Path) -> None:
    log = tmp_path / "dieharder.txt"
    rows = "   diehard_birthdays|   0|       100|     100|0.84439871|  PASSED  \n"
    log.write_text(f"# command: stud-service rng stream --seed {'ab' * 32} | dieharder -a -g 200\n{rows}")
    with pytest.raises(ReportRefused, match="not a dieharder run of this report's stream"):
        read_dieharder_log(log, SEEDS)
    log.write_text(f"# command: stud-service rng stream --seed {MASTER.hex()} | dieharder -a -g 200\n{rows}")
    assert read_dieharder_log(log, SEEDS, complete=False)
    with pytest.raises(ReportRefused, match="no complete"):
        read_dieharder_log(log, SEEDS)
    last = "        dab_monobit2|  12|  65000000|       1|0.27283648|  PASSED  \n"
    log.write_text(log.read_text() + last)
    assert read_dieharder_log(log, SEEDS).endswith(last)


def _cli(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "stud_service.cli", "rng", *arguments], cwd=cwd,
                          capture_output=True, timeout=300, check=False)


def test_the_command_line_writes_the_report_and_the_stream(tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = _cli("report", "--out", str(out), "--seed", MASTER.hex(), "--decks", "2000",
                "--nist-sequences", "1", "--nist-bits", "100000", "--dieharder", "skip", "--quiet",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"PASSED" in done.stdout and (out / "index.html").is_file()
    stream = _cli("stream", "--seed", MASTER.hex(), "--bytes", "1000", cwd=tmp_path)
    first_seed = SEEDS.seeder(STREAM_LABEL)(0)
    assert stream.returncode == 0 and stream.stdout == seed_stream_bytes(first_seed, 32)[:1000]


@pytest.mark.parametrize(("arguments", "message"), [
    (("report", "--decks", "10"), b"--decks must be at least 1,000"),
    (("report", "--seed", "00"), b"64 hex digits"),
    (("report", "--nist-bits", "1001"), b"multiple of 8"),
    (("report", "--dieharder-log", "/nonexistent"), b"no Dieharder log"),
    (("stream", "--bytes", "-1"), b"0 or more"),
])
def test_the_command_line_refuses_bad_arguments(tmp_path: Path, arguments: tuple[str, ...],
                                                message: bytes) -> None:
    done = _cli(*arguments, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "rng-report").exists()



def test_a_hand_that_repeats_the_last_hands_first_card_fails_the_tests_between_hands() -> None:
    """Every deck fair on its own; one hand in five starts with the previous hand's first card."""
    previous = [0]

    def sticky(seed: bytes) -> tuple[list[int], int]:
        deck, rejected = dealt_deck(seed)
        if seed[1] < 51:
            here = deck.index(previous[0])
            deck[0], deck[here] = deck[here], deck[0]
        previous[0] = deck[0]
        return deck, rejected

    failing = _failing(_counts(sticky, 40_000))
    assert {"poker test: different first cards in five hands in a row",
            "gap test: hands between first cards among 2♣ … 5♣"} <= failing
    assert "position × card (52 × 52)" not in failing  # each deck is still uniform


def test_the_laws_of_the_tests_between_hands_are_exact() -> None:
    from stud_service.rng.hands import coupon_chances, poker_chances, stirling2

    assert [stirling2(5, k) for k in range(1, 6)] == [1, 15, 25, 10, 1]
    assert sum(poker_chances()) == pytest.approx(1.0) and poker_chances()[-1] == pytest.approx(
        52 * 51 * 50 * 49 * 48 / 52**5)
    assert coupon_chances()[0] == pytest.approx(24 / 256)  # all four suits in the first four hands
    assert sum(coupon_chances()) == pytest.approx(1.0)


def test_the_chance_of_leaving_the_nist_proportion_range_matches_its_check() -> None:
    """§4.2.1 at 100 sequences: 96 passing of 100 is already outside p̂ - 3σ = 0.96015, so 4 failures fail
    it (1.8% of the time for a perfect generator) and one of 188 templates/states does in 97% of runs."""
    from stud_service.rng.report import NistSummary, nist_range_chance

    chance = nist_range_chance(100, 188)
    assert chance["one"] == pytest.approx(0.018374, abs=1e-6)
    assert chance["any"] == pytest.approx(0.969, abs=1e-3)
    spread = [float(p) for p in np.linspace(0.011, 0.999, 100)]  # uniform enough: only the failures count
    assert NistSummary("t", "", [0.005] * 3 + spread[3:], 100).passed
    assert not NistSummary("t", "", [0.005] * 4 + spread[4:], 100).passed


def test_bad_arguments_are_refused_before_the_statistics_libraries_load(tmp_path: Path) -> None:
    """A refusal is at once: loading SciPy and Matplotlib took seconds (half a minute on a loaded machine)."""
    probe = ("import sys; from stud_service.cli import main; code = main(['rng', 'report', '--decks', '10']);"
             " print(code, sorted(name for name in ('scipy', 'matplotlib') if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.stdout.split("\n")[0] == "2 []", done.stdout + done.stderr
