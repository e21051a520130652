# The two commands of the README.  Everything else is CMake (build/).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps configure build demo check clean

all: build

deps:
	@scripts/deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/hyperlayout demo
	$(BUILD)/bin/hyperlayout ising --dims 2 --L 128 --T 1.5:3.5:0.1 --start up --therm 1000 --sweeps 5000 \
	  --out $(BUILD)/demo-ising

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
