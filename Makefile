# The few commands a newcomer needs. Each target creates the virtualenv it uses.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SOURCES := pyproject.toml setup.py $(wildcard csrc/*.c csrc/*.h) stud_service/_native_build.py \
           $(wildcard stud_service/engine/*.py stud_service/engine/rules/*.py)

.PHONY: demo test ha-test citus-test test-loaded lint fuzz bench rng-report web clean

# Before a run of the tests: the project's bytecode, written even where PYTHONDONTWRITEBYTECODE is set (only
# what changed is compiled again). The suite starts many Python processes (replicas, commands); each
# compiling the project's modules from source costs it half a second of CPU more (1.75 s against 1.25 s to
# import a replica's modules).
COMPILE := $(BIN)/python -m compileall -q -j 0 stud_service tests

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python $(SOURCES)
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(BIN)/python $(SOURCES)
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-bench: $(VENV)/.installed-test
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@

## demo: install and run the main job
demo: $(VENV)/.installed
	$(BIN)/stud-service demo

## test: install and run the whole test suite (lint included)
test: $(VENV)/.installed-test
	$(BIN)/ruff check stud_service tests benchmarks examples scripts
	$(COMPILE)
	$(BIN)/pytest

## citus-test: only the tests that run on a Citus cluster of their own (a coordinator and two workers on
## loopback; they skip, saying why, where Citus is not installed for PostgreSQL 15)
citus-test: $(VENV)/.installed-test
	$(COMPILE)
	$(BIN)/pytest -m citus

## ha-test: only the database failover tests (Patroni clusters of their own; needs Debian's patroni and
## etcd-server, and PostgreSQL 15: see the README's development section)
ha-test: $(VENV)/.installed-test
	$(COMPILE)
	$(BIN)/pytest -m ha -n 0

## test-loaded: the whole suite with a CPU hog of its own beside it (one core busy, an hour at most)
test-loaded: $(VENV)/.installed-test
	$(COMPILE)
	$(BIN)/python scripts/cpu_hog.py --cores 1 --max-minutes 60 -- $(BIN)/pytest

## fuzz: the hostile-input suite at a large size (minutes; CI runs it small): STUD_HOSTILE_CASES cases per
## method and transport, once for each seed of STUD_HOSTILE_SEEDS (make fuzz STUD_HOSTILE_SEEDS="7 8")
STUD_HOSTILE_CASES ?= 400
STUD_HOSTILE_SEEDS ?= 37 1 2
fuzz: $(VENV)/.installed-test
	@for seed in $(STUD_HOSTILE_SEEDS); do echo "== seed $$seed"; \
		STUD_HOSTILE_CASES=$(STUD_HOSTILE_CASES) STUD_HOSTILE_SEED=$$seed \
		$(BIN)/pytest tests/test_hostile_input.py tests/test_hostile_http.py || exit 1; done

lint: $(VENV)/.installed-test
	$(BIN)/ruff check stud_service tests benchmarks examples scripts

## bench: run every benchmark (installs the peers they compare against), then print the table of their
## headlines and write it into docs/benchmarks.md; a benchmark that fails its checks fails the target at the end
bench: $(VENV)/.installed-bench
	@status=0; for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || status=1; done; \
	$(BIN)/python benchmarks/headline.py --write && exit $$status

## rng-report: the shuffle's randomness report for a test lab (docs/rng.md), the committed run again: its seed,
## 10 million dealt decks, NIST SP 800-22 and Dieharder's full battery (needs Debian's dieharder; hours); writes docs/rng/
RNG_SEED ?= 2afd5225c9a935d96ad4380bc0b79a15667b068291bafb32a8c75eba6f54a593
RNG_DECKS ?= 10000000
RNG_JOBS ?= 2
rng-report: $(VENV)/.installed-test
	@command -v dieharder >/dev/null || { echo "rng-report needs Debian's dieharder: sudo apt-get install -y dieharder"; exit 2; }
	$(BIN)/stud-service rng report --out docs/rng --seed $(RNG_SEED) --decks $(RNG_DECKS) --jobs $(RNG_JOBS)

## web: rebuild the web table's assets (stud_service/web/static/) from web/; needs Node 20+
web: $(VENV)/.installed-test
	$(BIN)/python scripts/build_web.py

clean:
	rm -rf $(VENV) build *.egg-info stud_service/_stud_native.c .mypy_cache
	find stud_service -name "*.so" -delete
