# The two commands of the README.  Everything else is CMake (build/).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
PREFIX ?= /usr/local

.PHONY: all deps configure build demo check check-levels install docs clean

all: build

deps:
	@scripts/deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The Python that draws the plots: the first of Debian's /usr/bin/python3 and
# the python3 on PATH that can import matplotlib (cmake/plot_python.cmake
# chooses the same way for the build); empty when none can.
PLOT_PYTHON ?= $(shell for p in /usr/bin/python3 python3; do \
	$$p -c 'import numpy, matplotlib' >/dev/null 2>&1 && { command -v $$p; break; }; done)

# The text demo, the paper's pictures (PNG files in $(BUILD)/demo/), a short
# run of the paper's Figure 11/12 benchmark, the Ising sweep with its plots,
# and Figures 11 and 12 drawn from the benchmark's CSV (bench/plot.py).
demo: build
	$(BUILD)/bin/hyperlayout demo
	$(BUILD)/bin/hyperlayout demo --pictures $(BUILD)/demo
	$(BUILD)/bin/bench_paper --sizes 1024,4096 --reps 3 --csv $(BUILD)/demo/bench_paper.csv
	$(BUILD)/bin/hyperlayout ising --dims 2 --L 128 --T 1.5:3.5:0.1 --start up --therm 1000 --sweeps 5000 \
	  --out $(BUILD)/demo-ising --force
	@if [ -n "$(PLOT_PYTHON)" ]; then \
	  $(PLOT_PYTHON) bench/plot.py --out-dir $(BUILD)/demo $(BUILD)/demo/bench_paper.csv; \
	else \
	  echo "make demo: no python3 with matplotlib: Figures 11 and 12 not drawn (make deps installs python3-matplotlib)"; \
	fi

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The CPU-facing tests again at other instruction-set levels (HL_ISA):
# make check-levels LEVELS="generic sse2 avx2"; levels this CPU lacks are left out.
LEVELS ?= generic avx2
check-levels: build
	BUILD=$(BUILD) JOBS=$(JOBS) scripts/check-levels.sh $(LEVELS)

# Everything a user needs, under $(PREFIX) (DESTDIR is honoured for staging):
# see docs/install.md.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# docs/api.md from the headers' comments (the api_page test checks it is current).
docs:
	python3 scripts/api_doc.py include > docs/api.md.tmp && mv docs/api.md.tmp docs/api.md

clean:
	rm -rf $(BUILD)
