# tracebook — see README.md. `make install` builds and registers the kernel;
# `make test` installs missing Debian/npm test dependencies (as root) and runs
# every test: Go unit tests, Jupyter's conformance suite, real-client tests,
# the example notebooks, the independent Arrow/Parquet readers, and the
# rendering test (reports and live pages in headless Chromium).
# `make notebook` starts Jupyter on notebooks/; `make demo` writes an HTML report.

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
             otf2-tools python3-otf2 libotf2-trace-dev gcc \
             jupyter-notebook chromium fonts-liberation
# Debian packages of Open MPI, for the MPI worker (cmd/tracebook-mpi links
# libmpi through cgo; pkg-config finds it as ompi-c) and its mpirun. Without
# them the worker is skipped and everything else works.
MPI_DEBS := openmpi-bin libopenmpi-dev pkg-config
TEST_DEBS += $(MPI_DEBS)
# Debian packages of the Jupyter front end.
FRONTEND_DEBS := jupyter-notebook jupyter-client jupyter-nbconvert

# The tests run the kernel built from this tree, registered in a private
# Jupyter path, never whatever else is installed.
TEST_JUPYTER := $(BUILD)/jupyter
USER_JUPYTER_PATH := $(JUPYTER_PATH)
export JUPYTER_PATH := $(TEST_JUPYTER)/share/jupyter
TEST_ENV := TRACEBOOK_REQUIRE_TOOLS=1 TRACEBOOK_REQUIRE_INTEROP=1
# staticcheck, pinned, installed into build/bin by `make lint` through the Go module proxy.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# goimports, pinned, likewise: `make lint` checks the import blocks with it as
# `goimports -local github.com/tracebook/tracebook` (the standard library's
# block holds no other import, and github.com/tracebook/tracebook/... imports
# have a block of their own). Generated files and third_party are left out.
GOIMPORTS := golang.org/x/tools/cmd/goimports@v0.52.0

.PHONY: all build mpi-worker mpi install frontend sample-traces notebook demo test test-deps test-go test-yardstick test-fuzz test-kernel test-scripts test-notebooks \
        test-render bench lint generate clean

all: build

# The kernel, tracebook, is pure Go (it never links libmpi); the MPI worker,
# tracebook-mpi, is built with cgo when pkg-config finds Open MPI.
build:
	mkdir -p $(BUILD)
	$(GO) build -o $(BUILD)/tracebook ./cmd/tracebook
	@$(MAKE) --no-print-directory mpi-worker

mpi-worker:
	@if pkg-config --exists ompi-c 2>/dev/null; then \
		echo "CGO_ENABLED=1 $(GO) build -o $(BUILD)/tracebook-mpi ./cmd/tracebook-mpi"; \
		CGO_ENABLED=1 $(GO) build -o $(BUILD)/tracebook-mpi ./cmd/tracebook-mpi; \
	else \
		echo "MPI worker (tracebook-mpi) skipped: pkg-config finds no Open MPI (ompi-c); install it with: sudo apt-get install -y $(MPI_DEBS)"; \
	fi

# Open MPI from Debian: installed when missing (as root), otherwise the
# apt-get command to run is printed; not an error either way.
mpi:
	@if command -v mpirun >/dev/null 2>&1 && pkg-config --exists ompi-c 2>/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Open MPI: apt-get install -y $(MPI_DEBS)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y $(MPI_DEBS) || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(MPI_DEBS); } || \
		echo "Open MPI could not be installed: the MPI worker is skipped"; \
	else \
		echo "No Open MPI found (the MPI worker is skipped). Install it with: sudo apt-get install -y $(MPI_DEBS)"; \
	fi

# The kernel goes to GOBIN and is registered; the MPI worker goes next to it
# (the kernel looks for tracebook-mpi beside its own executable first).
install: mpi
	$(GO) install ./cmd/tracebook
	$(GOBIN)/tracebook install --user
	@if pkg-config --exists ompi-c 2>/dev/null; then \
		echo "CGO_ENABLED=1 $(GO) build -o $(GOBIN)/tracebook-mpi ./cmd/tracebook-mpi"; \
		CGO_ENABLED=1 $(GO) build -o $(GOBIN)/tracebook-mpi ./cmd/tracebook-mpi; \
	else \
		echo "MPI worker (tracebook-mpi) not installed: pkg-config finds no Open MPI (ompi-c)"; \
	fi
	@if command -v jupyter-notebook >/dev/null 2>&1 || command -v jupyter-lab >/dev/null 2>&1; then \
		echo "Jupyter front end found. Start it on the examples with: make notebook"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing the Jupyter front end: apt-get install -y $(FRONTEND_DEBS)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y $(FRONTEND_DEBS) || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(FRONTEND_DEBS); }; \
	else \
		echo "No Jupyter front end found. Install it with: sudo apt-get install -y $(FRONTEND_DEBS)"; \
	fi

# Jupyter Notebook and nbconvert, from Debian: installed when missing (as root),
# otherwise the apt-get command to run is printed.
frontend:
	@if command -v jupyter-notebook >/dev/null 2>&1 && command -v jupyter-nbconvert >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing the Jupyter front end: apt-get install -y $(FRONTEND_DEBS)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y $(FRONTEND_DEBS) || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(FRONTEND_DEBS); }; \
	else \
		echo "Jupyter Notebook and nbconvert are needed: sudo apt-get install -y $(FRONTEND_DEBS)" >&2; exit 1; \
	fi

# The sample traces the notebooks open (../test/data/... from notebooks/) are
# part of the repository; restore them if a checkout lost them.
SAMPLE_TRACES = $(sort $(shell grep -ho '\.\./test/data/[^"\\ ]*' notebooks/*.ipynb))
sample-traces:
	@for f in $(SAMPLE_TRACES); do \
		test -e "notebooks/$$f" || git checkout -- test/data 2>/dev/null || true; \
		test -e "notebooks/$$f" || { echo "sample trace notebooks/$$f is missing (git checkout -- test/data)" >&2; exit 1; }; \
	done

# Jupyter Notebook on notebooks/, on loopback, with the kernel built from this
# tree registered for you (as `make install` does). It prints the URL with its token.
NOTEBOOK_FLAGS := --ip=127.0.0.1 $(if $(DISPLAY)$(WAYLAND_DISPLAY),,--no-browser) \
                  $(if $(filter 0,$(shell id -u)),--allow-root)
notebook: install frontend sample-traces
	@echo "starting Jupyter Notebook on notebooks/; open the address with ?token= that it prints (Ctrl-C twice stops it)"
	cd notebooks && $(if $(USER_JUPYTER_PATH),JUPYTER_PATH="$(USER_JUPYTER_PATH)",env -u JUPYTER_PATH) jupyter notebook $(NOTEBOOK_FLAGS)

# Executes one notebook headless and writes an HTML report, for machines without
# a browser at hand: make demo [NB=01-traces.ipynb | NB=path/to/any.ipynb].
NB ?= alignment.ipynb
NB_PATH := $(if $(findstring /,$(NB)),$(NB),notebooks/$(NB))
DEMO := $(BUILD)/demo
demo: build frontend sample-traces
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	mkdir -p $(DEMO)
	jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 --output-dir $(DEMO) $(NB_PATH)
	jupyter nbconvert --to html --output-dir $(DEMO) $(DEMO)/$(notdir $(NB_PATH))
	@echo "report: $(DEMO)/$(basename $(notdir $(NB_PATH))).html"

test-deps:
	@bash test/deps.sh $(TEST_DEBS)

test: test-deps lint test-go test-yardstick test-fuzz test-kernel test-scripts test-notebooks test-render

# Each fuzz target explores for a few seconds beyond its checked-in corpus
# (go test replays the corpus in test-go). FUZZTIME=1m make test-fuzz digs deeper.
FUZZTIME ?= 8s
FUZZ_TARGETS := ./arrowio:FuzzReadCSV ./arrowio:FuzzReadParquet ./arrowio:FuzzReadIPC \
                ./builtins/trace/otf2:FuzzReadAnchor ./builtins/trace/otf2:FuzzReadGlobalDefs \
                ./builtins/trace/otf2:FuzzReadLocalDefs ./builtins/trace/otf2:FuzzReadEvents \
                ./builtins/trace:FuzzFromTable ./builtins/trace:FuzzReadChrome ./builtins/ccg:FuzzLoad \
                ./builtins/trace/hpctoolkit:FuzzReadHPCToolkit ./builtins/trace/projections:FuzzReadLog \
                ./builtins/trace/projections:FuzzReadSts ./builtins/trace/nsight:FuzzReadNsightCSV \
                ./builtins/trace:FuzzLoadNsightCSV ./builtins/internal/sqlite:FuzzReadSQLite \
                ./builtins/internal/sqlite:FuzzParseCreate
test-fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) bash test/fuzz.sh $(FUZZ_TARGETS)

# The MPI tests run the worker `make build` made (TRACEBOOK_MPI_WORKER).
test-go: build
	$(TEST_ENV) TRACEBOOK_REQUIRE_MPI=1 TRACEBOOK_MPI_WORKER=$$(test -x $(BUILD)/tracebook-mpi && echo $(BUILD)/tracebook-mpi) $(GO) test ./...
	cd third_party/zmq4 && $(GO) test -vet=off ./...
	cd third_party/yaegi && $(GO) test ./...

# Go's own runnable test programs ($(GO) env GOROOT)/test) through the session:
# the programs of kernel/session/testdata/yardstick/pass.txt must pass, and the
# counts per directory are printed (kernel/session/yardstick_test.go).
test-yardstick:
	TRACEBOOK_YARDSTICK=1 $(GO) test -count=1 -timeout 30m -run '^TestYardstick$$' ./kernel/session

test-kernel: build
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	cd test/kernel && TRACEBOOK_BINARY=$(abspath $(BUILD))/tracebook $(PY) -m unittest -v test_conformance test_client test_hostile test_repl 2>&1

# Scripts and CI (README "Scripts and CI"): examples/nightly.go under tracebook run,
# tracebook check on generated runs.
test-scripts: build
	bash test/scripts.sh $(BUILD)/tracebook $(BUILD)/scripts

test-notebooks: build
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	$(PY) test/kernel/run_notebooks.py notebooks $(BUILD)/notebooks
	$(PY) test/kernel/compare_run.py $(BUILD)/tracebook notebooks $(BUILD)/notebooks $(BUILD)/run-notebooks

# What an analyst sees, in headless Chromium (test/render/render.mjs): the HTML
# reports of the notebooks test-notebooks executed and of `make demo`, and the
# live pages of a Notebook server it starts (all cells run from the browser in
# the notebooks that raise no errors). Figures must not be blank, tables must
# have rows, and their numbers must match the notebooks' outputs.
# Then the interactive figures (test/render/vega.mjs): the Vega-Lite specs of example figures
# (written by the Go test) and of the executed notebooks, validated against the vendored schema
# and rendered by Vega in Chromium (marks per data row, not blank, wheel zoom, hover tooltip).
test-render: build demo
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	node test/render/render.mjs --executed $(BUILD)/notebooks --source notebooks --out $(BUILD)/render \
		--kernel-binary $(BUILD)/tracebook --report $(DEMO)/$(notdir $(NB_PATH))
	rm -rf $(BUILD)/vega
	TRACEBOOK_VEGA_OUT=$(BUILD)/vega $(GO) test -count=1 -run '^TestVegaWriteExamples$$' ./plotting
	node test/render/vega.mjs --specs $(BUILD)/vega --executed $(BUILD)/notebooks \
		--schema plotting/testdata/vega-lite-v5.schema.json --out $(BUILD)/vega-render

bench: build
	$(BUILD)/tracebook install --prefix $(TEST_JUPYTER)
	$(GO) test -run '^$$' -bench . -benchmem ./... | tee $(BUILD)/bench-go.txt
	$(PY) test/kernel/bench_kernel.py | tee $(BUILD)/bench-kernel.txt
	TRACEBOOK_YARDSTICK=1 TRACEBOOK_YARDSTICK_MODES=session,evalpath $(GO) test -count=1 -timeout 30m \
		-run '^TestYardstick$$' ./kernel/session | grep '^yardstick' | tee $(BUILD)/bench-yardstick.txt

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@test -x $(BUILD)/bin/goimports || GOBIN=$(BUILD)/bin $(GO) install $(GOIMPORTS)
	@out=$$($(BUILD)/bin/goimports -l -local github.com/tracebook/tracebook \
		$$(git ls-files '*.go' | grep -v '^third_party/' | xargs grep -L '^// Code generated .* DO NOT EDIT\.$$')); \
		if [ -n "$$out" ]; then echo "imports need grouping (goimports -local github.com/tracebook/tracebook):"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@test -x $(BUILD)/bin/staticcheck || GOBIN=$(BUILD)/bin $(GO) install $(STATICCHECK)
	$(BUILD)/bin/staticcheck ./...

generate:
	$(GO) generate ./builtins/symbols

clean:
	rm -rf $(BUILD)
