# orbitcc: two commands do everything on a fresh machine.
#   make run    build + install into .venv, run the quick leaderboard (every
#               controller, 3 scenarios, 5 seeds), print the ranking and the
#               path of the HTML report
#   make test   build + install, then the C++ unit tests (ctest) and pytest
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
BUILD_DIR ?= build/cpp
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
export CMAKE_BUILD_PARALLEL_LEVEL := $(JOBS)
# The module and the C++ tests share one CMake build: the library compiles once.
export ORBITCC_CMAKE_BUILD_DIR := $(abspath $(BUILD_DIR))
export ORBITCC_BUILD_TESTING := 1
# ccache (installed by the `ccache` target when we can) makes rebuilds, the
# sanitizer/clang/UBSan builds of `make test` and builds of a second checkout
# cheap: every CMake configure below passes it as the compiler launcher
# (CCACHE_LAUNCHER, decided when the recipe runs, so a ccache installed by this
# very make is used). Paths are hashed relative to the checkout, so two
# worktrees share cache hits.
export CCACHE_BASEDIR ?= $(abspath .)
export CCACHE_NOHASHDIR ?= 1
CCACHE_LAUNCHER = $$(command -v ccache >/dev/null && \
	echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# A command, then a line with its elapsed time (make's output is a log, not a
# terminal: one line per stage, no progress bar). The argument is a variable
# reference, so its commas do not split it.
# A stage's command, its output passed through with a line after every 15 s
# of silence (pip -q installs torch without a word), then its time.
TIMED = t0=$$(date +%s); $(PY) tools/heartbeat.py -- $(1) && echo "[orbitcc]   done in $$(( $$(date +%s) - t0 )) s"

.PHONY: run test install install-base core cpp-test py-test validate validate-findings bench bench-check reproduce lint format clean \
	ns3-deps validate-ns3 ccache docs test-counts report-screenshot \
	sanitize tsan clang-test ubsan-release fuzz fuzz-env fuzz-extremes fuzz-short

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# The package, its runtime dependencies and the train/test/cluster extras (the
# C++ core is compiled here). constraints.txt pins torch to the CPU build.
# Three stages, each announced with its time: the build tools, the C++ core
# (built here, where its progress shows, not inside pip, which hides it; pip's
# own build then finds it up to date), the package and its dependencies.
BUILD_TOOLS = $(PIP) install -q -c constraints.txt "setuptools>=77" wheel pybind11 cmake ninja
BUILD_CORE = $(PY) setup.py -q build_ext --inplace
INSTALL_FULL = $(PIP) install -q -c constraints.txt --no-build-isolation -e ".[test,train,cluster,multiagent,docs]"
INSTALL_BASE = $(PIP) install -q -c constraints.txt --no-build-isolation -e .
$(VENV)/.installed: $(VENV)/bin/python pyproject.toml setup.py constraints.txt | ccache
	@echo "[orbitcc] build tools (pip: setuptools, pybind11, cmake, ninja) ..."
	@$(call TIMED,$(BUILD_TOOLS))
	@echo "[orbitcc] C++ core (cmake + ninja; minutes cold, seconds with a warm ccache) ..."
	@$(call TIMED,$(BUILD_CORE))
	@echo "[orbitcc] orbitcc and its dependencies (pip; downloads torch, SB3, Ray the first time) ..."
	@$(call TIMED,$(INSTALL_FULL))
	touch $@ $(VENV)/.installed-base

# Only what the hand-coded controllers need (make run): no torch, no Ray.
$(VENV)/.installed-base: $(VENV)/bin/python pyproject.toml setup.py constraints.txt | ccache
	@echo "[orbitcc] build tools (pip: setuptools, pybind11, cmake, ninja) ..."
	@$(call TIMED,$(BUILD_TOOLS))
	@echo "[orbitcc] C++ core (cmake + ninja; minutes cold, seconds with a warm ccache) ..."
	@$(call TIMED,$(BUILD_CORE))
	@echo "[orbitcc] orbitcc and its dependencies (pip) ..."
	@$(call TIMED,$(INSTALL_BASE))
	touch $@

# The compiler cache, installed here when we can (as GoogleTest below).
ccache:
	@if ! command -v ccache >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "[orbitcc] installing ccache (compiler cache) ..."; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ccache) >/dev/null \
	      || echo "could not install ccache: builds run without a compiler cache"; \
	  else \
	    echo "ccache is missing: builds run without a compiler cache (sudo apt-get install ccache)"; \
	  fi; \
	fi

install: $(VENV)/.installed

# The module after a C++ edit: .installed runs once, so the targets that import
# orbitcc._core rebuild it here (ninja compiles only what changed: seconds when
# nothing did, so a stale module is never tested or run).
core: install-base
	@$(PY) tools/heartbeat.py -- $(BUILD_CORE)

install-base: $(VENV)/.installed-base

# The Quick start's main job: the quick leaderboard (outputs/leaderboard/quick/;
# a rerun reuses the cells already there).
run: install-base core
	$(VENV)/bin/orbitcc-leaderboard suite=quick

# The README's test command and all that CI runs (.ci/run): the C++ and Python
# tests, then the sanitizer runs (docs/robustness.md). One stage after another,
# each announced, then its elapsed time and the running total (one line each:
# a log, not a progress bar); the first stage that fails ends it.
TEST_STAGES = lint cpp-test py-test docs sanitize tsan clang-test ubsan-release
test: install
	@t0=$$(date +%s); for stage in $(TEST_STAGES); do \
	  echo "[orbitcc] make test: $$stage ..."; t=$$(date +%s); \
	  $(MAKE) --no-print-directory $$stage || exit $$?; \
	  echo "[orbitcc] make test: $$stage passed in $$(( $$(date +%s) - t )) s" \
	       "($$(( $$(date +%s) - t0 )) s since the first stage)"; \
	done; \
	echo "[orbitcc] make test: all $(words $(TEST_STAGES)) stages passed in $$(( $$(date +%s) - t0 )) s"

# The docs site (mkdocs.yml) into build/site; --strict: a link to a missing
# page, image or heading fails. Its python blocks run in tests/test_docs.py.
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -q

# README's picture of the quick suite's report: `make run`'s leaderboard into
# a scratch folder, its report.html photographed by headless Chromium (Debian's
# chromium package) at 1280 x 1600.
report-screenshot: install-base core
	rm -rf build/report-screenshot
	$(VENV)/bin/orbitcc-leaderboard suite=quick hydra.run.dir=build/report-screenshot
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1600 \
		--screenshot=docs/img/report_quick.png file://$(CURDIR)/build/report-screenshot/report.html

# The test counts docs/testing.md states, counted now and written into its
# generated block (tools/count_tests.py; builds the C++ test binary if needed).
test-counts: install
	$(VENV)/bin/cmake -S cpp_core -B $(BUILD_DIR) -DBUILD_TESTING=ON $(CCACHE_LAUNCHER) >/dev/null
	$(VENV)/bin/cmake --build $(BUILD_DIR) --target orbitcc_cpp_tests
	$(PY) tools/count_tests.py --build-dir $(BUILD_DIR) --write docs/testing.md

# GoogleTest comes from Debian's libgtest-dev; installed here when we can.
cpp-test: install
	@if [ ! -f /usr/include/gtest/gtest.h ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing libgtest-dev (GoogleTest) ..."; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libgtest-dev) >/dev/null; \
	  else \
	    echo "GoogleTest is missing: install it with 'sudo apt-get install libgtest-dev'"; exit 1; \
	  fi; \
	fi
	@# Reconfigure (the install configured this directory) so a GoogleTest
	@# installed just now is found; then only the test binary is left to build.
	$(VENV)/bin/cmake -S cpp_core -B $(BUILD_DIR) -DBUILD_TESTING=ON $(CCACHE_LAUNCHER) >/dev/null
	$(VENV)/bin/cmake --build $(BUILD_DIR) --target orbitcc_cpp_tests
	$(VENV)/bin/ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

py-test: install core ns3-deps
	WANDB_MODE=disabled $(VENV)/bin/pytest -q

# ns-3.37 (Debian's libns3-dev) for the ns-3 comparison tests, and libzmq +
# protobuf for its ns3-gym mode; installed here when we can, otherwise those
# tests are skipped with the reason.
ns3-deps:
	@if ! { pkg-config --exists ns3-core libzmq protobuf && command -v protoc; } \
	     >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing libns3-dev (ns-3.37) ..."; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      pkg-config libns3-dev libgsl-dev protobuf-compiler libprotobuf-dev \
	      libzmq3-dev) >/dev/null \
	      || echo "could not install ns-3: the ns-3 comparison tests will be skipped"; \
	  else \
	    echo "ns-3 is missing: the ns-3 comparison tests are skipped" \
	         "(install: sudo apt-get install libns3-dev libgsl-dev)"; \
	  fi; \
	fi

# The ns-3 cross-validation matrix (docs/validation.md), ~15 CPU-minutes.
validate-ns3: install ns3-deps
	$(VENV)/bin/orbitcc-validate --doc docs/validation.md --jobs 2 --json outputs/validate/results.json

# Long validations (marked slow): wider grids, more seeds, longer episodes.
# `make test` deselects them (pyproject's addopts: -m 'not slow').
validate: install
	WANDB_MODE=disabled $(VENV)/bin/pytest -q -m slow

# Only the papers' findings over seeds (tests/test_findings_*.py;
# docs/reproduction.md): ~45 s on 2 cores, so `make test` runs them too.
validate-findings: install core
	WANDB_MODE=disabled $(VENV)/bin/pytest -q tests/test_findings_*.py

bench: install core
	$(VENV)/bin/orbitcc-bench --json bench.json

# Two back-to-back headline runs must agree within 15 % on every headline
# figure (CPU time; docs/benchmarks.md). Exit status 1 when they do not.
bench-check: install
	$(VENV)/bin/orbitcc-bench --json build/bench-check-a.json headline_only=true
	$(VENV)/bin/orbitcc-bench --json build/bench-check-b.json headline_only=true
	$(VENV)/bin/orbitcc-bench --compare build/bench-check-a.json build/bench-check-b.json --tolerance 0.15

# The MACO paper's Starlink experiment and Du et al.'s soft handover, a few
# minutes. Writes outputs/reproduce/; `make reproduce
# REPRODUCE_OUT=docs/reproduction.md` updates the tracked docs (each script
# rewrites only its own section; bbr_reference needs ns-3 and runs by hand).
REPRODUCE_OUT ?= outputs/reproduce/reproduction.md
reproduce: install
	$(PY) -m orbitcc.reproductions.reproduce_maco --out $(REPRODUCE_OUT)
	$(PY) -m orbitcc.reproductions.reproduce_du --out $(REPRODUCE_OUT)

# One formatter per language, checked by `make test` (first: it takes seconds)
# and by the pre-commit hooks (.pre-commit-config.yaml): ruff for Python (lint
# and format), clang-format (pinned in constraints.txt, Google style from
# .clang-format) for C++. `make format` applies both.
CXX_SOURCES = git ls-files -- 'cpp_core/*.cc' 'cpp_core/*.h'
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check -q .
	@$(CXX_SOURCES) | xargs $(VENV)/bin/clang-format --dry-run -Werror \
	  || { echo "C++ not clang-formatted: run 'make format'"; exit 1; }

format: install
	$(VENV)/bin/ruff check --fix -q .
	$(VENV)/bin/ruff format -q .
	$(CXX_SOURCES) | xargs $(VENV)/bin/clang-format -i

clean:
	rm -rf build $(VENV) *.egg-info

# The shipped reference agents (docs/agents.md, issue 35): train each recipe
# of REFERENCE_RECIPES (a step budget: configs/agent/ppo_sender.yaml, the
# `sender` agent, and ppo_starlink.yaml, the `oracle` agent) on each of
# TRAIN_SEEDS (REFERENCE_JOBS runs side by side), ship the first seed's run
# of each (declared before training) into agents/reference/<recipe> (+
# docs/img/<recipe>_curve.png), then the held-out tables against every
# baseline and the tuned constant-scale policies (HELDOUT_SEEDS test-split
# seeds, paired, split trace / synthetic and with / without background, and
# the issue's targets) and the training seeds' mean +- std, all into
# agents/reference/heldout_tables.md (docs/agents.md quotes it).
TRAIN_SEEDS ?= 0 1 2
REFERENCE_RECIPES ?= ppo_sender ppo_starlink
REFERENCE_JOBS ?= 3
HELDOUT_SEEDS ?= 40
HELDOUT_BASELINES ?= newreno,olia,lia,balia,cubic,bbr,bbr3,maco
.PHONY: train-reference golden-prefix
train-reference: install
	printf '%s\n' $(foreach r,$(REFERENCE_RECIPES),$(foreach s,$(TRAIN_SEEDS),$(r):$(s))) | \
	  xargs -P $(REFERENCE_JOBS) -I{} sh -c 'r=$${1%%:*}; s=$${1##*:}; \
	    WANDB_MODE=disabled $(VENV)/bin/orbitcc-train agent=$$r seed=$$s \
	    hydra.run.dir=outputs/train/reference/$$r-seed$$s > outputs/train/reference-$$r-seed$$s.log 2>&1' _ {}
	for r in $(REFERENCE_RECIPES); do \
	  $(PY) -m orbitcc.agents.reference --recipe $$r ship \
	    outputs/train/reference/$$r-seed$(firstword $(TRAIN_SEEDS)) --docs docs/img || exit 1; \
	done
	# The best constant-scale policies over NewReno and OLIA, picked on the
	# validation seeds (never the table's) under the task's reward, join the
	# baselines; the split tables and the targets come from heldout_split.json.
	consts=$$($(PY) -m orbitcc.agents.ranking --tune --episodes 8 | cut -d' ' -f1 | paste -sd, -) && \
	$(PY) -m orbitcc.agents.heldout_tables play --seeds $(HELDOUT_SEEDS) --jobs $(JOBS) \
	  --baselines $(HELDOUT_BASELINES),$$consts --out agents/reference/heldout_split.json \
	  $(foreach r,$(REFERENCE_RECIPES),$(foreach s,$(wordlist 2,99,$(TRAIN_SEEDS)),\
	    --extra-run $(r)=outputs/train/reference/$(r)-seed$(s)))
	$(PY) -m orbitcc.agents.heldout_tables tables agents/reference/heldout_split.json \
	  > agents/reference/heldout_tables.md
	$(PY) -m orbitcc.reproductions.docgen docs/agents.md heldout_tables agents/reference/heldout_tables.md

# The recipe's golden prefix (tests/test_recipe_prefix.py, docs/agents.md):
# regenerate it when a change is meant to move the learning curve, and commit
# it with that change.
golden-prefix: install
	WANDB_MODE=disabled $(PY) -m orbitcc.agents.prefix --write tests/golden/ppo_starlink_prefix.json

# Sanitizers (docs/robustness.md), each in its own build dir so the release
# build is untouched: ASan + UBSan for the C++ tests and a Python smoke run of
# the instrumented module; TSan for the batch / thread-pool tests. Any report
# aborts (-fno-sanitize-recover=all), so success means zero reports.
ASAN_DIR ?= build/asan
TSAN_DIR ?= build/tsan
SAN_CMAKE = $(VENV)/bin/cmake -G Ninja -DCMAKE_MAKE_PROGRAM=$(abspath $(VENV)/bin/ninja) \
	-DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON -DPython_EXECUTABLE=$(abspath $(PY)) \
	$(CCACHE_LAUNCHER)
sanitize: install
	$(SAN_CMAKE) -S cpp_core -B $(ASAN_DIR) -DORBITCC_SANITIZE=address,undefined \
	  -Dpybind11_DIR=$$($(PY) -m pybind11 --cmakedir) >/dev/null
	$(VENV)/bin/cmake --build $(ASAN_DIR) --target orbitcc_cpp_tests _core
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./orbitcc_cpp_tests --gtest_brief=1
	@# libstdc++ preloaded too: python does not link it, and ASan's __cxa_throw
	@# interceptor needs it loaded when ASan starts (else "CHECK failed ...
	@# real___cxa_throw" at the first C++ exception).
	LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libstdc++.so)" \
	  ASAN_OPTIONS=detect_leaks=0 \
	  UBSAN_OPTIONS=print_stacktrace=1 WANDB_MODE=disabled \
	  $(PY) tests/sanitizer_smoke.py $$(ls $(abspath $(ASAN_DIR))/_core*.so)

tsan: install
	$(SAN_CMAKE) -S cpp_core -B $(TSAN_DIR) -DORBITCC_SANITIZE=thread \
	  -DORBITCC_BUILD_PYTHON=OFF >/dev/null
	$(VENV)/bin/cmake --build $(TSAN_DIR) --target orbitcc_env_tests
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_DIR)/orbitcc_env_tests --gtest_brief=1

# A second toolchain (issue 24, item 9; docs/robustness.md): Debian's clang at
# -O3 (Release, LTO where clang's linker plugin is found) builds the C++ tests
# and the module in build/clang, runs the tests and the Python smoke run with
# that module. Only the targets it runs, through ccache.
CLANG_DIR ?= build/clang
CLANGXX ?= clang++
clang-test: install
	@if ! command -v $(CLANGXX) >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing clang (Debian's) ..."; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang) >/dev/null; \
	  else \
	    echo "clang-test: $(CLANGXX) is missing (sudo apt-get install clang)"; exit 1; \
	  fi; \
	fi
	$(VENV)/bin/cmake -G Ninja -DCMAKE_MAKE_PROGRAM=$(abspath $(VENV)/bin/ninja) \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CLANGXX) -DBUILD_TESTING=ON $(CCACHE_LAUNCHER) \
	  -DPython_EXECUTABLE=$(abspath $(PY)) -Dpybind11_DIR=$$($(PY) -m pybind11 --cmakedir) \
	  -S cpp_core -B $(CLANG_DIR) >/dev/null
	$(VENV)/bin/cmake --build $(CLANG_DIR) --target orbitcc_cpp_tests _core
	cd $(CLANG_DIR) && ./orbitcc_cpp_tests --gtest_brief=1
	WANDB_MODE=disabled $(PY) tests/sanitizer_smoke.py $$(ls $(abspath $(CLANG_DIR))/_core*.so)

# UBSan on the optimised (Release, -O2) GCC build, not only ASan's -O1: the C++ tests
# and the Python smoke run (libubsan is linked into the module; no preload).
UBSAN_DIR ?= build/ubsan-release
ubsan-release: install
	$(VENV)/bin/cmake -G Ninja -DCMAKE_MAKE_PROGRAM=$(abspath $(VENV)/bin/ninja) \
	  -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DPython_EXECUTABLE=$(abspath $(PY)) \
	  $(CCACHE_LAUNCHER) -DORBITCC_SANITIZE=undefined -DORBITCC_SANITIZE_OPT=-O2 \
	  -Dpybind11_DIR=$$($(PY) -m pybind11 --cmakedir) -S cpp_core -B $(UBSAN_DIR) >/dev/null
	$(VENV)/bin/cmake --build $(UBSAN_DIR) --target orbitcc_cpp_tests _core
	cd $(UBSAN_DIR) && UBSAN_OPTIONS=print_stacktrace=1 ./orbitcc_cpp_tests --gtest_brief=1
	UBSAN_OPTIONS=print_stacktrace=1 WANDB_MODE=disabled \
	  $(PY) tests/sanitizer_smoke.py $$(ls $(abspath $(UBSAN_DIR))/_core*.so)

# Env fuzzing (tests/fuzz_env.py): >= 1e6 env steps over every preset and
# action mode (tens of minutes); CI runs the short one.
# In pieces: `make fuzz FUZZ_STEPS=100000 FUZZ_SEED=k` for k = 0..9.
FUZZ_STEPS ?= 1000000
FUZZ_SEED ?= 0
# Then every admitted extreme of every preset's ranged settings under a CPU
# limit (tests/admitted_extremes.py; CI runs a sample in test_bounded_inputs).
# Pieces of the env fuzz alone: `make fuzz-env FUZZ_STEPS=250000 FUZZ_SEED=k`.
fuzz: fuzz-env fuzz-extremes
fuzz-env: install
	WANDB_MODE=disabled $(PY) tests/fuzz_env.py --steps $(FUZZ_STEPS) --seed $(FUZZ_SEED)
fuzz-extremes: install
	WANDB_MODE=disabled $(PY) tests/admitted_extremes.py
fuzz-short: install
	WANDB_MODE=disabled $(PY) tests/fuzz_env.py --steps 20000
