# The two commands of the README.  Everything else is CMake (build/).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
PREFIX ?= /usr/local

.PHONY: all deps configure build demo check install clean

all: build

deps:
	@scripts/deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The text demo, the paper's pictures (PNG files in $(BUILD)/demo/) and a short
# run of the paper's Figure 11/12 benchmark.
demo: build
	$(BUILD)/bin/hyperlayout demo
	@mkdir -p $(BUILD)/demo
	$(BUILD)/bin/hyperlayout demo --pictures $(BUILD)/demo
	$(BUILD)/bin/bench_paper --sizes 1024,4096 --reps 3
	$(BUILD)/bin/hyperlayout ising --dims 2 --L 128 --T 1.5:3.5:0.1 --start up --therm 1000 --sweeps 5000 \
	  --out $(BUILD)/demo-ising --force

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Everything a user needs, under $(PREFIX) (DESTDIR is honoured for staging):
# see docs/install.md.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
