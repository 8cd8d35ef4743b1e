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
# ccache, when installed, makes rebuilds (and builds of a second checkout) cheap.
# Paths are hashed relative to the checkout, so two worktrees share cache hits.
ifneq ($(shell command -v ccache 2>/dev/null),)
export CMAKE_CXX_COMPILER_LAUNCHER ?= ccache
export CCACHE_BASEDIR ?= $(abspath .)
export CCACHE_NOHASHDIR ?= 1
endif

.PHONY: run test install install-base cpp-test py-test validate validate-findings bench reproduce lint clean \
	ns3-deps validate-ns3 \
	sanitize tsan clang-test ubsan-release fuzz fuzz-short

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# The package, its runtime dependencies and the train/test/cluster extras (the
# C++ core is compiled here). constraints.txt pins torch to the CPU build.
$(VENV)/.installed: $(VENV)/bin/python pyproject.toml setup.py constraints.txt
	$(PIP) install -q -c constraints.txt "setuptools>=77" wheel pybind11 cmake ninja
	$(PIP) install -q -c constraints.txt --no-build-isolation -e ".[test,train,cluster,multiagent]"
	touch $@ $(VENV)/.installed-base

# Only what the hand-coded controllers need (make run): no torch, no Ray.
$(VENV)/.installed-base: $(VENV)/bin/python pyproject.toml setup.py constraints.txt
	$(PIP) install -q -c constraints.txt "setuptools>=77" wheel pybind11 cmake ninja
	$(PIP) install -q -c constraints.txt --no-build-isolation -e .
	touch $@

install: $(VENV)/.installed

install-base: $(VENV)/.installed-base

# The Quick start's main job: the quick leaderboard (outputs/leaderboard/quick/;
# a rerun reuses the cells already there).
run: install-base
	$(VENV)/bin/orbitcc-leaderboard suite=quick

# The README's test command and all that CI runs (.ci/run): the C++ and Python
# tests, then the sanitizer runs (docs/robustness.md).
test: install cpp-test py-test sanitize tsan clang-test ubsan-release

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
	$(VENV)/bin/cmake -S cpp_core -B $(BUILD_DIR) -DBUILD_TESTING=ON >/dev/null
	$(VENV)/bin/cmake --build $(BUILD_DIR) --target orbitcc_cpp_tests
	$(VENV)/bin/ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

py-test: install ns3-deps
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
validate-findings: install
	WANDB_MODE=disabled $(VENV)/bin/pytest -q tests/test_findings_*.py

bench: install
	$(VENV)/bin/orbitcc-bench --json bench.json

# The MACO paper's Starlink experiment and Du et al.'s soft handover, a few
# minutes. Writes outputs/reproduce/; `make reproduce
# REPRODUCE_OUT=docs/reproduction.md` updates the tracked docs (each script
# rewrites only its own section; bbr_reference needs ns-3 and runs by hand).
REPRODUCE_OUT ?= outputs/reproduce/reproduction.md
reproduce: install
	$(PY) -m orbitcc.baselines.reproduce_maco --out $(REPRODUCE_OUT)
	$(PY) -m orbitcc.baselines.reproduce_du --out $(REPRODUCE_OUT)

lint: install
	$(VENV)/bin/ruff check orbitcc env baselines agents configs tests validation

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
	-DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON -DPython_EXECUTABLE=$(abspath $(PY))
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
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CLANGXX) -DBUILD_TESTING=ON \
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
	  -DORBITCC_SANITIZE=undefined -DORBITCC_SANITIZE_OPT=-O2 \
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
fuzz: install
	WANDB_MODE=disabled $(PY) tests/fuzz_env.py --steps $(FUZZ_STEPS) --seed $(FUZZ_SEED)
fuzz-short: install
	WANDB_MODE=disabled $(PY) tests/fuzz_env.py --steps 20000
