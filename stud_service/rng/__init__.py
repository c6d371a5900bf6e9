"""Statistical evidence for the shuffle's randomness: the report a test lab reruns (docs/rng.md).

    seeds      the hands' server seeds: from the OS CSPRNG as in production, or derived from a fixed master
    stream     the production HMAC-SHA256 stream of those seeds, as raw bytes for external batteries
    decks      decks dealt by the production shuffle (``stud_service.shuffle.deck_order``), in batches
    stats      p-values, chi-square, Holm's correction, the Kolmogorov–Smirnov check of p-values
    cards      the tests on the cards dealt (position × card, pairs, permutations, players, bring-in, rank)
    nist       the NIST SP 800-22 tests, written from the publication and checked against its examples
    dieharder  Debian's ``dieharder -a`` fed the stream through standard input, and its results parsed
    report     runs them all and writes HTML (plots embedded) and JSON; ``plots`` draws the figures

The statistics need numpy and scipy, the plots matplotlib: the ``report`` extra (``stud-service[report]``).
"""
