"""``stud-service serve`` with the event log in the clear: the baseline of bench_service.py's sealing rounds.

The same command line as ``stud-service serve`` (``python benchmarks/serve_unsealed.py --database-url ...``),
except that decks, seeds and face-down cards are stored unsealed. Only a benchmark may run it: no flag or
setting of the service itself turns sealing off.
"""

from __future__ import annotations

import argparse
import sys

from stud_service.commands import serve


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    serve.add_service_arguments(parser)
    return serve.run(parser.parse_args(argv), seal_at_rest=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
