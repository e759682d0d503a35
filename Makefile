# tracebook — see README.md. `make install` builds and registers the kernel;
# `make test` installs missing Debian/npm test dependencies (as root) and runs
# every test: Go unit tests, Jupyter's conformance suite, real-client tests,
# the example notebooks, and the independent Arrow/Parquet readers.

GO      ?= go
PY      ?= /usr/bin/python3
BUILD   := $(CURDIR)/build
GOBIN   := $(shell $(GO) env GOBIN)
ifeq ($(GOBIN),)
GOBIN   := $(shell $(GO) env GOPATH)/bin
endif

# Debian packages the tests use as independent, real components.
TEST_DEBS := python3-jupyter-kernel-test python3-jupyter-client jupyter-client \
             python3-nbclient python3-nbformat jupyter-nbconvert python3-zmq \
             otf2-tools python3-otf2 libotf2-trace-dev gcc
# Debian packages of the Jupyter front end.
FRONTEND_DEBS := jupyter-notebook jupyter-client

# The tests run the kernel built from this tree, registered in a private
# Jupyter path, never whatever else is installed.
TEST_JUPYTER := $(BUILD)/jupyter
export JUPYTER_PATH := $(TEST_JUPYTER)/share/jupyter
TEST_ENV := TRACEBOOK_REQUIRE_TOOLS=1 TRACEBOOK_REQUIRE_INTEROP=1
# staticcheck, pinned, installed into build/bin by `make lint` through the Go module proxy.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build install test test-deps test-go test-fuzz test-kernel test-notebooks bench lint generate clean

all: build

build:
	mkdir -p $(BUILD)
	$(GO) build -o $(BUILD)/tracebook ./cmd/tracebook

install:
	$(GO) install ./cmd/tracebook
	$(GOBIN)/tracebook install --user
	@if command -v jupyter-notebook >/dev/null 2>&1 || command -v jupyter-lab >/dev/null 2>&1; then \
		echo "Jupyter front end found. Start it with: jupyter notebook"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing the Jupyter front end: apt-get install -y $(FRONTEND_DEBS)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y $(FRONTEND_DEBS) || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(FRONTEND_DEBS); }; \
	else \
		echo "No Jupyter front end found. Install it with: sudo apt-get install -y $(FRONTEND_DEBS)"; \
	fi

test-deps:
	@bash test/deps.sh $(TEST_DEBS)

test: test-deps lint test-go test-fuzz test-kernel test-notebooks

# Each fuzz target explores for a few seconds beyond its checked-in corpus
# (go test replays the corpus in test-go). FUZZTIME=1m make test-fuzz digs deeper.
FUZZTIME ?= 8s
FUZZ_TARGETS := ./arrowio:FuzzReadCSV ./arrowio:FuzzReadParquet ./arrowio:FuzzReadIPC \
                ./builtins/trace/otf2:FuzzReadEvents
test-fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

test-go: build
	$(TEST_ENV) $(GO) test ./...

test-kernel: build
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	cd test/kernel && $(PY) -m unittest -v test_conformance test_client 2>&1

test-notebooks: build
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	$(PY) test/kernel/run_notebooks.py notebooks $(BUILD)/notebooks

bench: build
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	$(GO) test -run '^$$' -bench . -benchmem ./... | tee $(BUILD)/bench-go.txt
	$(PY) test/kernel/bench_kernel.py | tee $(BUILD)/bench-kernel.txt

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@test -x $(BUILD)/bin/staticcheck || GOBIN=$(BUILD)/bin $(GO) install $(STATICCHECK)
	$(BUILD)/bin/staticcheck ./...

generate:
	$(GO) generate ./builtins/symbols

clean:
	rm -rf $(BUILD)
