"""``stud-service rng``: the evidence a test lab asks of the shuffle's randomness (docs/rng.md).

    stud-service rng report [--out DIR] [--seed HEX|os] [--decks N] [--nist-sequences N]
                            [--dieharder {run,skip}] [--dieharder-log FILE]
                                          the whole report: HTML with its plots, JSON, and the PNGs
    stud-service rng stream [--seed HEX|os] [--bytes N]
                                          the production stream as raw bytes on standard output, for any
                                          battery: stud-service rng stream --seed HEX | dieharder -a -g 200

Exit codes: 0 every test passed, 1 a test failed (the report is still written), 2 refused (bad arguments,
a missing tool or package).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from stud_service.rng.seeds import STREAM_LABEL, SeedSource
from stud_service.rng.settings import ReportRefused, ReportSettings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rng", help="the shuffle's randomness: the test lab's report, the raw stream",
        description=__doc__.splitlines()[0],
    )
    commands = parser.add_subparsers(dest="rng_command", metavar="ACTION", required=True)
    stream = commands.add_parser("stream", help="write the production random stream to standard output")
    stream.add_argument("--seed", default=None,
                        help="master seed, 64 hex digits (default: the OS CSPRNG, as in production)")
    stream.add_argument("--bytes", type=int, default=None, help="stop after this many bytes (default: never)")
    stream.add_argument("--threads", type=int, default=2, help="threads computing the stream ahead")
    stream.set_defaults(func=run_stream)
    report = commands.add_parser("report", help="run the batteries and the card tests; write the report")
    add_report_arguments(report)
    report.set_defaults(func=run_report)


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = ReportSettings()
    parser.add_argument("--out", type=Path, default=Path("rng-report"), help="directory to write into")
    parser.add_argument("--seed", default=None,
                        help="master seed, 64 hex digits, to reproduce a run; 'os' or nothing: the OS CSPRNG")
    parser.add_argument("--decks", type=int, default=defaults.decks, help="decks dealt for the card tests")
    parser.add_argument("--nist-sequences", type=int, default=defaults.nist_sequences,
                        help="NIST SP 800-22 sequences of --nist-bits bits each")
    parser.add_argument("--nist-bits", type=int, default=defaults.nist_bits, help="bits in a NIST sequence")
    parser.add_argument("--dieharder", choices=("run", "skip"), default="run",
                        help="run 'dieharder -a' on the stream (hours at its default sizes) or leave it out")
    parser.add_argument("--dieharder-log", type=Path, default=None,
                        help="read the results of 'stud-service rng stream --seed S | dieharder -a -g 200' "
                             "from this file instead of running it (same seed; its first line '# command: ' "
                             "and the pipeline); a run still writing it is waited for")
    parser.add_argument("--jobs", type=int, default=1, help="processes dealing the decks (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress on standard error")


def run_stream(args: argparse.Namespace) -> int:
    from stud_service.rng.stream import write_stream

    try:
        source = SeedSource.parse(args.seed)
    except ValueError as error:
        print(f"stud-service rng stream: {error}", file=sys.stderr)
        return 2
    if args.bytes is not None and args.bytes < 0:
        print("stud-service rng stream: --bytes must be 0 or more", file=sys.stderr)
        return 2
    written = write_stream(sys.stdout.buffer, source.seeder(STREAM_LABEL), args.bytes, threads=args.threads)
    print(f"stud-service rng stream: {written:,} bytes written", file=sys.stderr)
    return 0


def run_report(args: argparse.Namespace) -> int:
    try:
        settings = ReportSettings(
            seeds=SeedSource.parse(args.seed), decks=args.decks, nist_sequences=args.nist_sequences,
            nist_bits=args.nist_bits, dieharder=args.dieharder, dieharder_log=args.dieharder_log,
        )
        settings.check()
        if args.jobs < 1:
            raise ReportRefused("--jobs must be at least 1")
        # SciPy and Matplotlib take seconds to load: bad arguments are refused before.
        from stud_service.rng.report import write_report

        report = write_report(settings, args.out, progress=None if args.quiet else _progress, jobs=args.jobs)
    except (ValueError, ReportRefused) as error:
        print(f"stud-service rng report: {error}", file=sys.stderr)
        return 2
    print(f"{args.out / 'index.html'}: {report.summary_line()}")
    return 0 if report.passed else 1


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
