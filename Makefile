# The two commands: `make run` and `make test`. Everything they need is set up here.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

BIN        := bin/socialapi
GO         ?= go
RUN_DIR    := .data/pg
RUN_PORT   := 54329
RUN_DB     := social
TEST_DIR   := .data/pgtest
TEST_PORT  := 54330
# A hot standby of the test cluster that replays 250ms late: the read-replica tests' replica.
TEST_REPLICA_DIR  := .data/pgtest-standby
TEST_REPLICA_PORT := 54331
DEMO_TOKEN := snw_demoAliceWrite000000000000000000000000000004PZ6uC

export DATABASE_URL ?=
export TEST_DATABASE_URL ?=
export TEST_REPLICA_URL ?=

.PHONY: help build run test generate check-generate lint lint-spec breaking vet clean db-stop bench bench-ab bench-cores bench-growth sdk contract fuzz soak

help: ## list targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

build: ## build the binary into bin/
	$(GO) build -o $(BIN) .

run: build ## serve the API on :8080 with a local PostgreSQL and the demo data
	@if [[ -z "$$DATABASE_URL" ]]; then \
	  scripts/localpg.sh start $(RUN_DIR) $(RUN_PORT); \
	  scripts/localpg.sh createdb $(RUN_PORT) $(RUN_DB); \
	fi
	@url="$${DATABASE_URL:-$$(scripts/localpg.sh url $(RUN_PORT) $(RUN_DB))}"; \
	DATABASE_URL="$$url" $(BIN) migrate >/dev/null; \
	DATABASE_URL="$$url" $(BIN) seed --if-empty; \
	echo; \
	echo "Try it (demo member @alice, write token):"; \
	echo "  curl -s -H 'Authorization: Bearer $(DEMO_TOKEN)' http://localhost:$${ADDR##*:}/api/v1/me"; \
	echo; \
	DATABASE_URL="$$url" LOG_FORMAT=$${LOG_FORMAT:-text} exec $(BIN) serve
run: export ADDR ?= :8080

test: ## build, provision a throwaway PostgreSQL with a streaming standby (and redis-server), run the whole suite with -race
	$(GO) build ./...
	@scripts/need.sh redis-server redis-server
	@if [[ -z "$$TEST_DATABASE_URL" ]]; then \
	  scripts/localpg.sh start $(TEST_DIR) $(TEST_PORT) fast; \
	  scripts/localpg.sh standby $(TEST_PORT) $(TEST_REPLICA_DIR) $(TEST_REPLICA_PORT) 250ms; \
	fi
	@# The standby's URL first: it is the local one only when TEST_DATABASE_URL was not given.
	TEST_REPLICA_URL="$${TEST_REPLICA_URL:-$$( [[ -n "$$TEST_DATABASE_URL" ]] || scripts/localpg.sh url $(TEST_REPLICA_PORT))}" \
	TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$(scripts/localpg.sh url $(TEST_PORT))}" \
	  $(GO) test -race -count=1 ./...

fuzz: ## run every go test -fuzz target for FUZZTIME each (default 10s); crashers land in testdata/fuzz
	@if [[ -z "$$TEST_DATABASE_URL" ]]; then scripts/localpg.sh start $(TEST_DIR) $(TEST_PORT) fast; fi
	TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$(scripts/localpg.sh url $(TEST_PORT))}" scripts/fuzz.sh $${FUZZTIME:-10s}

soak: ## bounded loopback load test (SOAK_DURATION, default 2m): RSS, goroutines, fds, DB connections over time
	SOAK_DURATION=$${SOAK_DURATION:-2m} $(GO) test -count=1 -run '^TestSoak$$' -timeout 0 -v ./internal/faults

generate: ## regenerate gen/ and the SDKs (sdk/go, sdk/ts) from openapi.yaml
	$(GO) generate ./gen/...
	@$(MAKE) --no-print-directory sdk

sdk: ## regenerate the Go and TypeScript client SDKs from openapi.yaml
	cd sdk/go && $(GO) generate ./...
	cd sdk/ts && { [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error; } && npm run -s generate

contract: ## SDK drift, ogen + hey-api generate and compile, swagger-parser, Go + TypeScript SDK sessions and Prism against a live server, /docs in Chromium
	tools/contract/run.sh

check-generate: generate ## fail when gen/ or the SDKs differ from what openapi.yaml generates
	@git diff --exit-code -- gen/ sdk/ || { echo "gen/ or sdk/ is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- gen/ sdk/)" || { git status --porcelain -- gen/ sdk/; echo "gen/ or sdk/ has untracked changes"; exit 1; }

lint: vet lint-spec breaking ## go vet, the OpenAPI linters (with the bounds and formats check) and the breaking-change guard

vet:
	$(GO) vet ./...

lint-spec: ## kin-openapi, Redocly, Spectral and the bounds and formats check on openapi.yaml (zero errors, zero warnings)
	tools/lint.sh

breaking: ## fail when openapi.yaml breaks clients of the last release (api/baseline/openapi.yaml), unless the major version changed
	tools/breaking.sh

bench: ## load benchmark on a synthetic data set (BENCH_SCALE=small for the CI smoke run); writes bench/out/
	bench/bench.sh

bench-ab: ## paired A/B of two servers (BENCH_AB_OLD=rev|binary, default HEAD, against this tree): per-pair ratios, 95 % interval, verdict; writes bench/out-ab/
	bench/ab.sh

bench-cores: ## the read scenarios with the server at GOMAXPROCS=1, then 2 (the defaults follow); writes bench/out-cores/
	bench/cores.sh

bench-growth: ## the benchmark on the default data set and on 3x (BENCH_GROWTH_SCALE): per-request cost at each size; writes bench/out-growth/
	bench/growth.sh

db-stop: ## stop the local PostgreSQL clusters
	scripts/localpg.sh stop $(RUN_DIR)
	scripts/localpg.sh stop $(TEST_REPLICA_DIR)
	scripts/localpg.sh stop $(TEST_DIR)

clean: db-stop ## remove build output and local databases
	rm -rf bin .data
