# Two set-up commands (see README): `make demo` and `make test`. Each creates .venv and installs
# what it needs from the package registries (PyTorch CPU 2.13.0 from this machine kind's disk).
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
OUT ?= demo-report

.PHONY: demo test mutants lint bench bench-memory bench-protect bench-quality bench-check clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[test,docs,deep,distributed,opendp,stream]"
	touch $@

# the compiled Kaleido loop and DPGazeSynth kernel (setup.py): `pip install -e` builds them;
# rebuilt when their C changes
KLOOP := src/gazeprivacy/mechanisms/samples/_kaleido_loop
DKERN := src/gazeprivacy/mechanisms/samples/_dpgazesynth_kernel
$(VENV)/.kaleido-loop: $(KLOOP).c $(DKERN).c setup.py $(VENV)/.installed
	$(PY) setup.py inplace
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/gazeprivacy demo --out $(OUT)

# the report's browser test (tests/report/test_browser.py) loads the page in headless Chromium
# (Debian's package: ~40 s to install here, a no-op when present)
test: $(VENV)/.installed $(VENV)/.kaleido-loop
	command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 --durations=15

# each benchmark appends its ratios to benchmarks/history.csv; bench-check prints the rows more
# than 20 % worse than the run before (issue 18)
bench: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[bench]"
	$(PY) benchmarks/run.py $(BENCH_ARGS)
	$(PY) benchmarks/protect_process.py
	-$(PY) benchmarks/history.py check

# whole-process `gazeprivacy protect` of 5.4 M samples vs a read-noise-write process; --profile
bench-protect: $(VENV)/.installed
	$(PY) benchmarks/protect_process.py $(BENCH_ARGS)

# event-synth-PD: fast vs full C-VAE training, release realism and attack (~30 min at scale 1)
bench-quality: $(VENV)/.installed
	$(PY) benchmarks/event_synth_pd_quality.py $(BENCH_ARGS)

bench-check:
	$(PYTHON) benchmarks/history.py check

# mutation gate (issue 14): every privacy-relevant mutant in scripts/mutants.py must be killed by
# its mapped tests; runs on temporary copies of the tree, 2 processes, a few minutes.
# MUTANTS_ARGS="--only kaleido" runs a subset; "--check" only checks that every mutant applies.
mutants: $(VENV)/.installed $(VENV)/.kaleido-loop
	$(PY) scripts/mutants.py --jobs 2 $(MUTANTS_ARGS)

# peak RSS and time of partition-wise protect / featurize at 1x, 10x, 50x EHTask (~1 h, a few GB
# of temporary Parquet in /tmp, deleted afterwards)
bench-memory: $(VENV)/.installed
	$(PY) benchmarks/memory.py --scales 1 10 50

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache
