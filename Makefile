# Two set-up commands (see README): `make demo` and `make test`. Each creates .venv and installs
# what it needs from the package registries (PyTorch CPU 2.13.0 from this machine kind's disk),
# every version pinned by $(CONSTRAINTS), so that a fresh install is the tested install.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
OUT ?= demo-report
# pip constraints (exact versions of every package the extras below pull in), from a clean venv
# by `make constraints`: regenerate and commit it whenever pyproject.toml's dependencies change
CONSTRAINTS ?= constraints/py311-linux.txt
EXTRAS := test,docs,deep,distributed,opendp,stream
TORCH := torch==2.13.0

.PHONY: demo test mutants lint bench bench-memory bench-protect bench-quality bench-check clean \
	constraints

$(VENV)/.installed: pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c $(CONSTRAINTS) $(TORCH)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[$(EXTRAS)]"
	touch $@

# $(CONSTRAINTS) anew: a throw-away venv (CONSTRAINTS_VENV, deleted afterwards) gets the newest
# versions pyproject.toml allows, unconstrained, and is frozen (run `make test` on it after)
CONSTRAINTS_VENV ?= /tmp/gazeprivacy-constraints-venv
constraints:
	rm -rf $(CONSTRAINTS_VENV)
	$(PYTHON) -m venv $(CONSTRAINTS_VENV)
	$(CONSTRAINTS_VENV)/bin/python -m pip install -q --upgrade pip
	$(CONSTRAINTS_VENV)/bin/python -m pip install -q $(TORCH)
	$(CONSTRAINTS_VENV)/bin/python -m pip install -q -e ".[$(EXTRAS)]"
	mkdir -p $(dir $(CONSTRAINTS))
	{ sed -n '/^#/!q;p' $(CONSTRAINTS) 2>/dev/null | grep -v '^# generated ' ; \
	  echo "# generated $$(date -u +%Y-%m-%d) by \`make constraints\` with Python \
	$$($(CONSTRAINTS_VENV)/bin/python -c 'import platform; print(platform.python_version())')"; \
	  $(CONSTRAINTS_VENV)/bin/python -m pip freeze --all --exclude-editable | grep -v '^pip==' \
	    | sed 's/^\(torch==[^+]*\)+cpu$$/\1/'; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	rm -rf $(CONSTRAINTS_VENV)

# the compiled Kaleido loop, DPGazeSynth kernel and REMoDNaV loop (setup.py): `pip install -e`
# builds them; rebuilt when their C changes
KLOOP := src/gazeprivacy/mechanisms/samples/_kaleido_loop
DKERN := src/gazeprivacy/mechanisms/samples/_dpgazesynth_kernel
RLOOP := src/gazeprivacy/events/_remodnav_loop
RFILT := src/gazeprivacy/events/_remodnav_filters
$(VENV)/.kaleido-loop: $(KLOOP).c $(DKERN).c $(RLOOP).c $(RFILT).c setup.py $(VENV)/.installed
	$(PY) setup.py inplace
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/gazeprivacy demo --out $(OUT)

# installs no system package: the report's browser test (tests/report/test_browser.py) is
# skipped without Chromium on PATH (.ci/run installs Debian's package)
test: $(VENV)/.installed $(VENV)/.kaleido-loop
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 --durations=15

# each benchmark appends its ratios to benchmarks/history.csv; bench-check prints the rows more
# than 20 % worse than the run before (issue 18)
bench: $(VENV)/.installed
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[bench]"
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
