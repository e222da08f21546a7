# The two commands of README.md: `make run` (the main job) and `make test` (everything CI runs).
# Both install into .venv first, so each works alone on a fresh machine from a clean clone.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
export SDL_VIDEODRIVER ?= dummy

SUITE  ?= quickstart-v0

.PHONY: system-deps install run test lint bench leaderboard screenshot

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Debian's chromium for the leaderboard site's browser tests (no browser is ever downloaded).
system-deps:
	@command -v chromium >/dev/null || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium; }

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, pinned to the CPU wheel: anything that pulls torch later finds it satisfied
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	# mpe2 (a stock PettingZoo env for the conformance kit's tests and bench_navigation) without its
	# pygame-ce requirement: pygame-ce installs under pygame's import name and would overwrite ours.
	# Its other requirements (pettingzoo, scipy) are already installed above.
	$(BIN)/python -m pip install --quiet --no-deps mpe2==1.1.1
	# MOMAland (its api_test and wrapper tests check every moma env: tests/envs/multiagent/test_momaland.py),
	# also without its requirements: pettingzoo[butterfly,sisl], PyOpenGL and wandb are for its own envs and
	# learning code; what its checks import (gymnasium, pettingzoo, numpy, networkx, sympy, pillow) is installed.
	$(BIN)/python -m pip install --quiet --no-deps momaland==0.2.0

# The main job: evaluate the random policy and the baselines on $(SUITE), then build leaderboard JSON
# from those results under results/ (the committed leaderboard/ is rebuilt by `make leaderboard`).
run: install
	$(BIN)/benchmarkzoo list
	rm -rf results/leaderboard results/$(SUITE)-random.json results/$(SUITE)-baseline.json
	$(BIN)/benchmarkzoo evaluate --suite $(SUITE) --policy random --out results/$(SUITE)-random.json
	$(BIN)/benchmarkzoo evaluate --suite $(SUITE) --policy baseline --out results/$(SUITE)-baseline.json
	$(BIN)/benchmarkzoo leaderboard add results/$(SUITE)-random.json results/$(SUITE)-baseline.json --reference --root results/leaderboard
	$(BIN)/benchmarkzoo leaderboard build --root results/leaderboard

# Regenerate the committed reference entries: random and baseline on every shipped suite, then the
# reference SB3 policies under leaderboard/policies/ (trained by leaderboard/policies/train.py), each
# entry added only once `leaderboard add --verify` has replayed episodes of it.
leaderboard: install
	rm -rf leaderboard/submissions leaderboard/models leaderboard/verification
	for suite in $$($(BIN)/benchmarkzoo suites list --names); do \
	  for policy in random baseline; do \
	    rm -f results/$$suite-$$policy.json && \
	    $(BIN)/benchmarkzoo evaluate --suite $$suite --policy $$policy --out results/$$suite-$$policy.json && \
	    $(BIN)/benchmarkzoo leaderboard add results/$$suite-$$policy.json --reference --verify || exit 1; \
	  done; \
	done
	# the reference SB3 policies, exported to ONNX and evaluated as data (leaderboard/policies/README.md)
	for entry in quickstart-v0:ppo-maze marl-v0:ppo-mapf mo-v0:ppo-treasure; do \
	  suite=$${entry%%:*}; policy=$${entry#*:}; \
	  rm -f results/$$suite-$$policy.json && \
	  $(BIN)/benchmarkzoo export-onnx leaderboard/policies/$$policy.zip leaderboard/policies/$$policy.onnx && \
	  $(BIN)/benchmarkzoo evaluate --suite $$suite --policy onnx:leaderboard/policies/$$policy.onnx \
	    --out results/$$suite-$$policy.json && \
	  $(BIN)/benchmarkzoo leaderboard add results/$$suite-$$policy.json --reference --verify \
	    --policy leaderboard/policies/$$policy.onnx || exit 1; \
	done
	# the bundles: one ONNX model per env id (or task), exported from their zips (leaderboard/policies/README.md)
	for bundle in ppo-single-agent ppo-marl ppo-mo; do \
	  $(BIN)/python leaderboard/policies/train.py --bundle $$bundle || exit 1; \
	done
	for entry in single-agent-v1:ppo-single-agent generalization-v1:ppo-single-agent single-agent-v2:ppo-single-agent \
	    marl-v1:ppo-marl mo-v2:ppo-mo; do \
	  suite=$${entry%%:*}; policy=$${entry#*:}; \
	  rm -f results/$$suite-$$policy.json && \
	  $(BIN)/benchmarkzoo evaluate --suite $$suite --policy onnx:leaderboard/policies/$$policy \
	    --out results/$$suite-$$policy.json && \
	  $(BIN)/benchmarkzoo leaderboard add results/$$suite-$$policy.json --reference --verify \
	    --policy leaderboard/policies/$$policy || exit 1; \
	done
	# the ratings page's data: seeded round robins of the competitive envs' scripted policies (the page shows
	# each command; tests/leaderboard/test_site_ratings.py holds these lines to the committed files)
	$(BIN)/benchmarkzoo ratings --policies passive,masher,jumper,zoner,mixer,rushdown,anti_air,punisher,blocker,champion,random --matches 40 --seed 0 --out leaderboard/ratings/fighting.json
	$(BIN)/benchmarkzoo ratings --env rps --rounds 100 --policies rock,cycle,random,frequency,baseline --matches 40 --seed 0 --out leaderboard/ratings/rps.json
	$(BIN)/benchmarkzoo leaderboard build

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy

test: system-deps lint
	$(BIN)/python -m pytest -n 2 --durations=15

# Rewrite docs/leaderboard-overview.png (README's screenshot) from a browser test run.
screenshot: system-deps install
	BENCHMARKZOO_UPDATE_SCREENSHOT=1 $(BIN)/python -m pytest -q tests/leaderboard/test_site_browser.py

bench: install
	$(BIN)/python bench/import_time.py
	for b in maze treasure quadrotor mapf navigation foraging panda traffic evaluation; do \
	  $(BIN)/python bench/bench_$$b.py || exit 1; \
	done
