#!/usr/bin/env bash
# Table 3's LM rows on a GPU, end to end, in stages of at most 10 minutes each (docs/generators.md, section 5).
#
#   here (CPU):   bash benchmarks/gpu_table3.sh prep       # graph -> out/gpu-bundle (ingest first if needed)
#   GPU (run tool, carry out/gpu-bundle and .whl; issue the three calls back to back: the machine keeps
#        out/gpu-work between calls only while warm):
#                 bash benchmarks/gpu_table3.sh train      # ~8.5 min: LM "mini" and "base", MLM -> $OUT
#                 bash benchmarks/gpu_table3.sh generate   # <= 9 min: gpt2-d, gpt2-dr, delorean -> $OUT
#                 bash benchmarks/gpu_table3.sh educat     # <= 7 min: educat, time-boxed -> $OUT
#   here (CPU):   bash benchmarks/gpu_table3.sh score      # eval crg + generators_gpu.json + loss PNG
#
#   GPU, one call (a lease of 15 minutes of device time, start included, leaves room for one call of ~8 min):
#                 bash benchmarks/gpu_table3.sh lease      # train, generate, educat in LEASE_S (460 s) -> $OUT/<stage>.tgz
#                 (copy the call's files_at/*.tgz to out/gpu-run, then score here)
#   a later lease continues (the second, 2026-11-26): SMALL_MIN=0 LARGE_STEPS=640 D_MIN=0|0.8 DR_MIN=0
#                 DEL_FROM=<first position not yet generated> LEASE_STAGES="train educat generate" ... lease
#                 (docs/generators.md section 5 has the exact calls; score with RUN=... RESULTS=...)
#
#   TINY=1 bash benchmarks/gpu_table3.sh all               # CPU dry run of every stage with tiny settings
#   TINY=1 bash benchmarks/gpu_table3.sh lease             # CPU dry run of the one-call path
#
# The GPU side needs only python3 with torch, transformers, tokenizers, typer, rich (and matplotlib for the
# plot): training and generation read the bundle's files, never the graph database or a segmenter.
# Every figure of a TINY run is a CPU dry-run figure and goes under out/gpu-tiny, never into benchmarks/results.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export TOKENIZERS_PARALLELISM=false

STAGE="${1:-}"
TINY="${TINY:-0}"
# the shared virtualenv here; the GPU machine's python3 (torch, transformers, typer, rich preinstalled)
if [ -z "${PY:-}" ]; then
  if [ -x /work/main/.venv/bin/python ]; then PY=/work/main/.venv/bin/python; else PY=python3; fi
fi
DG="$PY -m dishgraph.cli"

if [ "$STAGE" = lease ] && [ "$TINY" != 1 ]; then
  # One call holds all three GPU stages: their boxes are shares of LEASE_S (training 37 %, the three
  # generators 40 %, EduCat 10 %; the rest is start-up and writing), unless set one by one. Outputs are written
  # when a generator ends, so DeLorean and EduCat run in small batches: the time box can stop between them.
  # Measured on the H200 (2026-11-26): gpt2-d 2,500 in 28 s, gpt2-dr in 68 s once warm; DeLorean 1.5
  # recipes/s (a batch of 250 took 169 s, past its box, as a first batch always runs).
  LEASE_S="${LEASE_S:-460}"
  share() { awk -v l="$LEASE_S" -v f="$1" -v d="$2" 'BEGIN { if (d == "m") printf "%.2f", l * f / 60; else printf "%d", l * f }'; }
  SMALL_MIN="${SMALL_MIN:-$(share 0.10 m)}"; LARGE_MIN="${LARGE_MIN:-$(share 0.22 m)}"; MLM_MIN="${MLM_MIN:-$(share 0.05 m)}"
  GEN_BUDGET_S="${GEN_BUDGET_S:-$(share 0.40 s)}"; EDU_BUDGET_S="${EDU_BUDGET_S:-$(share 0.10 s)}"
  D_MIN="${D_MIN:-0.8}"; DR_MIN="${DR_MIN:-1.5}"; BATCH_DEL="${BATCH_DEL:-50}"; BATCH_EDU="${BATCH_EDU:-25}"
  export LEASE_S SMALL_MIN LARGE_MIN MLM_MIN GEN_BUDGET_S EDU_BUDGET_S D_MIN DR_MIN BATCH_DEL BATCH_EDU
fi

BUNDLE="${BUNDLE:-out/gpu-bundle}"        # carried to the GPU machine
DB="${DB:-out/gpu-db}"                    # graph the bundle is exported from (here only)
DATA="${DATA:-}"                          # data root with counterfactual/ and xiachufang/ (default: auto)

if [ "$TINY" = 1 ]; then
  WORK="${WORK:-out/gpu-tiny/work}"; RUN="${RUN:-out/gpu-tiny/run}"
  DEVICE="${DEVICE:-cpu}"; DTYPE="${DTYPE:-bfloat16}"
  RESULTS="${RESULTS:-out/gpu-tiny/generators_gpu.json}"; PLOT="${PLOT:-out/gpu-tiny/lm-loss.png}"
  SMALL="--preset tiny --max-length 256 --batch-size 4 --lr 2e-3 --max-steps 12 --eval-every 6"
  LARGE="--preset tiny --n-layer 3 --max-length 256 --batch-size 4 --lr 2e-3 --max-steps 12 --eval-every 6"
  MLM="--preset tiny --max-length 128 --batch-size 8 --lr 2e-3 --max-steps 8 --eval-every 4"
  SMALL_MIN="${SMALL_MIN:-2}"; LARGE_MIN=2; MLM_MIN=2
  GEN_D="--instances spread --limit 6 --batch-size 3 --max-new-tokens 48"
  GEN_DR="--instances spread --limit 6 --batch-size 3 --max-new-tokens 48"
  GEN_DEL="--instances spread:${DEL_FROM:-0} --limit 4 --batch-size 2"; DEL_MIN=0.001   # stops after one batch: tests the time box
  GEN_EDU="--instances spread --limit 2 --batch-size 2 --sample-time 10 --drop-time 5"; EDU_MIN=5
  EVAL_LIMIT_NOTE="TINY CPU dry run (tiny models, few steps, few instances): NOT GPU figures"
else
  WORK="${WORK:-out/gpu-work}"; RUN="${RUN:-out/gpu-run}"
  DEVICE="${DEVICE:-cuda}"; DTYPE="${DTYPE:-bfloat16}"
  RESULTS="${RESULTS:-benchmarks/results/generators_gpu.json}"; PLOT="${PLOT:-docs/lm-gpu-loss.png}"
  # packed 1024-character blocks, 32 per step; both runs see the bundle's fixed validation split
  SMALL="--preset mini --max-length 1024 --batch-size 32 --lr 1e-3 --warmup-steps 100 --epochs ${SMALL_EPOCHS:-20} --eval-every 40"
  # LARGE_STEPS fixes the base run's length (the H200's 2-minute box made 640 steps), so that a later lease
  # trains the same recipe again and its slices of DeLorean/EduCat come from a comparable model
  LARGE="--preset base --max-length 1024 --batch-size 32 --lr 6e-4 --warmup-steps 100 --epochs ${LARGE_EPOCHS:-12} --eval-every 40${LARGE_STEPS:+ --max-steps $LARGE_STEPS}"
  # MLM_ARGS replaces the masked LM's recipe (a lease that trains it past the unigram plateau, ~6.0 nats)
  MLM="${MLM_ARGS:---preset mini --max-length 256 --batch-size 128 --lr 1e-3 --warmup-steps 50 --epochs ${MLM_EPOCHS:-10} --eval-every 40}"
  SMALL_MIN="${SMALL_MIN:-2}"; LARGE_MIN="${LARGE_MIN:-4}"; MLM_MIN="${MLM_MIN:-1}"
  # the paper's (reference implementations') hyper-parameters; --max-minutes time-boxes each generator:
  # gpt2-d and gpt2-dr get fixed boxes, delorean and educat whatever is left of their stage's budget
  GEN_D="--instances spread --batch-size ${BATCH_D:-500} --max-minutes ${D_MIN:-1}"
  GEN_DR="--instances spread --batch-size ${BATCH_DR:-250} --max-minutes ${DR_MIN:-1.5}"
  # DEL_FROM / EDU_FROM: start at that position of the 'spread' order, after what an earlier lease generated
  GEN_DEL="--instances spread:${DEL_FROM:-0} --batch-size ${BATCH_DEL:-500}"; DEL_MIN="${DEL_MIN:-}"
  GEN_EDU="--instances spread:${EDU_FROM:-0} --batch-size ${BATCH_EDU:-250}"; EDU_MIN="${EDU_MIN:-}"
  EVAL_LIMIT_NOTE="${NOTE:-}"
fi
GEN_BUDGET_S="${GEN_BUDGET_S:-530}"       # the generate stage ends within this (the run tool allows 600 s)
EDU_BUDGET_S="${EDU_BUDGET_S:-420}"       # the educat stage likewise (keeps the three calls near 25 minutes)
COMMON_TRAIN="--source bundle --data $BUNDLE --device $DEVICE --dtype $DTYPE --pack --keep-best --save-every 100000"
GEN_COMMON="--data $BUNDLE --device $DEVICE --dtype $DTYPE --json"

# Python packages the CLI needs that the GPU image lacks (class-resolver, pydantic for typer) or holds in another
# version (typer, rich, typing-extensions): `prep` downloads wheels of the versions installed here into .whl/
# (ignored by git; carry it), and the GPU stages install them into a private folder first.
GPU_WHEELS="typer pydantic pydantic_core typing-inspection annotated-types annotated-doc typing_extensions rich class-resolver platformdirs"
WHEELS="${WHEELS:-.whl}"
wheels() {  # here: wheels of the exact versions this checkout is tested with, for the GPU's Python 3.12
  local pins; pins=$("$PY" -c 'import sys, importlib.metadata as m; print(" ".join(f"{n}=={m.version(n)}" for n in sys.argv[1:]))' $GPU_WHEELS)
  mkdir -p "$WHEELS"
  "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      -d "$WHEELS" $pins
  echo "wheels for the GPU machine: $pins ($(du -sh "$WHEELS" | cut -f1) in $WHEELS)"
}
gpu_env() {  # GPU: install the carried wheels once per machine, ahead of the image's own packages
  [ "$TINY" = 1 ] && return 0
  compgen -G "$WHEELS/*.whl" > /dev/null || { echo "note: no wheels in $WHEELS (run prep here and carry it)" >&2; return 0; }
  local site=/tmp/dishgraph-site
  [ -e "$site/.done" ] || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target "$site" "$WHEELS"/*.whl && touch "$site/.done"; }
  export PYTHONPATH="$ROOT:$site${PYTHONPATH:+:$PYTHONPATH}"
}

# where a stage's results go: the run tool's $OUT on the GPU machine, a folder of RUN elsewhere
stage_out() { if [ -n "${OUT:-}" ] && [ "$TINY" != 1 ]; then echo "$OUT"; else echo "$RUN/$1"; fi; }
need() { [ -e "$1" ] || { echo "error: $1 is missing: $2" >&2; exit 2; }; }
# minutes left of a stage's budget (seconds) that began at $2, less $3 seconds for loading and writing
minutes_left() { awk -v b="$1" -v s="$2" -v r="$3" -v now="$(date +%s)" \
    'BEGIN { m = (b - (now - s) - r) / 60; if (m < 0.05) m = 0.05; printf "%.2f", m }'; }
combine() { "$PY" -c 'import json,sys; print(json.dumps([json.load(open(f, encoding="utf-8")) for f in sys.argv[1:]], ensure_ascii=False, indent=1))' "$@"; }

prep() {  # here: the graph (CRG release + XiaChuFang sample) -> the bundle
  local xcf
  if [ ! -e "$DB" ]; then
    $DG ingest counterfactual ${DATA:+"$DATA/counterfactual"} --db "$DB" --no-parse --json > /dev/null
    xcf="${DATA:-$($PY -c 'from dishgraph import config; print(config.data_dir())')}/xiachufang/recipes.jsonl"
    $DG ingest corpus "$xcf" --source xiachufang --title-field title --db "$DB" --json > "$DB.xiachufang.json" \
        2> "$DB.xiachufang.log"   # per-record notes (emoji stripped, no Chinese character, ...)
  fi
  $DG gpu bundle "$BUNDLE" --db "$DB" ${DATA:+--data "$DATA"}
  du -sh "$BUNDLE"
  [ "$TINY" = 1 ] || wheels   # the GPU image's missing packages (pip download: needs the network here)
}

train() {  # GPU: two LM sizes in the same minutes, keep the lower validation loss; MLM on its vocabulary
  need "$BUNDLE/corpus/train.jsonl" "carry the bundle (run the prep stage here first)"
  gpu_env
  local out; out="$(stage_out train)"; mkdir -p "$out" "$WORK"
  $DG gpu device --out "$out/device.json"
  local runs=()   # SMALL_MIN=0 skips the small run (a later lease that already knows base wins)
  if [ "$SMALL_MIN" != 0 ]; then
    $DG train lm --out "$WORK/lm-small" $COMMON_TRAIN $SMALL --max-minutes "$SMALL_MIN" --json; runs+=("$WORK/lm-small")
  fi
  $DG train lm --out "$WORK/lm-large" $COMMON_TRAIN $LARGE --max-minutes "$LARGE_MIN" --json; runs+=("$WORK/lm-large")
  $DG gpu pick "${runs[@]}" > "$WORK/chosen"
  echo "chosen LM: $(cat "$WORK/chosen")"
  $DG train mlm --out "$WORK/mlm" --tokenizer-from "$(cat "$WORK/chosen")" $COMMON_TRAIN $MLM \
      --max-minutes "$MLM_MIN" --json
  [ "$SMALL_MIN" = 0 ] || cp "$WORK/lm-small/train_log.json" "$out/lm-small.json"
  cp "$WORK/lm-large/train_log.json" "$out/lm-large.json"
  cp "$WORK/mlm/train_log.json" "$out/mlm.json"
  $DG gpu report "$out" --plot "$out/val-loss.png" --out "$out/train-report.json"
}

generate() {  # GPU: the three LM generators on the 2,500 instances ('spread': any prefix covers every pair)
  need "$WORK/chosen" "no trained LM on this machine (run the train stage first, in the same warm lease)"
  gpu_env
  local out model t0; out="$(stage_out generate)"; mkdir -p "$out" "$WORK/gen"; model="$(cat "$WORK/chosen")"
  t0=$(date +%s)
  rm -f "$WORK/gen/gpt2-d.json" "$WORK/gen/gpt2-dr.json" "$WORK/gen/delorean.json"
  $DG gpu device --out "$out/device.json"
  # D_MIN=0 / DR_MIN=0 skip that generator (a later lease that only continues DeLorean)
  if [ "${D_MIN:-1}" != 0 ]; then
    $DG generate gpt2-d  --model "$model" $GEN_COMMON $GEN_D  --out "$out/gpt2-d.jsonl"  > "$WORK/gen/gpt2-d.json"
  fi
  if [ "${DR_MIN:-1}" != 0 ]; then
    $DG generate gpt2-dr --model "$model" $GEN_COMMON $GEN_DR --out "$out/gpt2-dr.jsonl" > "$WORK/gen/gpt2-dr.json"
  fi
  $DG generate delorean --model "$model" $GEN_COMMON $GEN_DEL --max-minutes "${DEL_MIN:-$(minutes_left "$GEN_BUDGET_S" "$t0" 40)}" \
      --out "$out/delorean.jsonl" > "$WORK/gen/delorean.json"
  local summaries=() n
  for n in gpt2-d gpt2-dr delorean; do [ -e "$WORK/gen/$n.json" ] && summaries+=("$WORK/gen/$n.json"); done
  combine "${summaries[@]}" > "$out/generate-summaries.json"
  cat "$out/generate-summaries.json"
}

educat() {  # GPU: EduCat on as many instances as its time box allows
  need "$WORK/mlm/config.json" "no trained MLM on this machine (run the train stage first, in the same warm lease)"
  gpu_env
  local out model mlm t0; out="$(stage_out educat)"; mkdir -p "$out" "$WORK/gen"; model="$(cat "$WORK/chosen")"
  mlm="$WORK/mlm"; [ -d "$WORK/mlm/best" ] && mlm="$WORK/mlm/best"
  t0=$(date +%s)
  $DG gpu device --out "$out/device.json"
  $DG generate educat --model "$model" --mlm "$mlm" $GEN_COMMON $GEN_EDU \
      --max-minutes "${EDU_MIN:-$(minutes_left "$EDU_BUDGET_S" "$t0" 40)}" --out "$out/educat.jsonl" > "$WORK/gen/educat.json"
  combine "$WORK/gen/educat.json" > "$out/educat-summaries.json"
  cat "$out/educat-summaries.json"
}

score() {  # here: CRG Table 3 scores of the fetched outputs, the results JSON and the loss PNG
  local t="$RUN/train" g="$RUN/generate" e="$RUN/educat" files=() a
  for a in "$RUN"/train.tgz "$RUN"/generate.tgz "$RUN"/educat.tgz; do   # a lease's archives, copied to RUN
    if [ -e "$a" ]; then tar xzf "$a" -C "$RUN"; fi
  done
  need "$t/lm-large.json" "copy the train stage's fetched files to $t"
  compgen -G "$g/*.jsonl" > /dev/null || need "$g/gpt2-d.jsonl" "copy the generate stage's fetched files to $g"
  for f in "$g/gpt2-d.jsonl" "$g/gpt2-dr.jsonl" "$g/delorean.jsonl" "$e/educat.jsonl"; do
    [ -e "$f" ] && files+=("$f")
  done
  $DG eval crg "${files[@]}" ${DATA:+--data "$DATA"} --db "$DB" --json-out "$RUN/scores.json"
  local dirs=("$t" "$g"); [ -d "$e" ] && dirs+=("$e")
  $DG gpu report "${dirs[@]}" --scores "$RUN/scores.json" --bundle "$BUNDLE" --out "$RESULTS" --plot "$PLOT" \
      ${EVAL_LIMIT_NOTE:+--note "$EVAL_LIMIT_NOTE"}
  echo "wrote $RESULTS and $PLOT"
}

lease() {  # GPU, one call: the three GPU stages with boxes scaled to LEASE_S, each stage's files in $OUT/<stage>
  # A session's device time (15 minutes, the machine's start included) leaves room for one call of ~8 minutes,
  # and the trained models live only on that machine: so train, generate and educat share one call. A stage
  # that fails is logged and the next still runs (generation needs a chosen LM; EduCat needs the MLM too).
  local base="${OUT:-$RUN}" rc=0 s
  [ "$TINY" = 1 ] || echo "lease ${LEASE_S}s: SMALL_MIN=$SMALL_MIN LARGE_MIN=$LARGE_MIN MLM_MIN=$MLM_MIN" \
      "GEN_BUDGET_S=$GEN_BUDGET_S (D_MIN=$D_MIN DR_MIN=$DR_MIN BATCH_DEL=$BATCH_DEL) EDU_BUDGET_S=$EDU_BUDGET_S" \
      "(BATCH_EDU=$BATCH_EDU)"
  # LEASE_STAGES reorders them: 'train educat generate' runs EduCat, whose pace is unmeasured, before the
  # generators whose time boxes are known
  for s in ${LEASE_STAGES:-train generate educat}; do
    echo "== $s ($(date -u +%H:%M:%S))"
    mkdir -p "$base/$s"
    if ! OUT="$base/$s" bash "$ROOT/benchmarks/gpu_table3.sh" "$s"; then   # its own process: set -e holds
      echo "== $s FAILED" >&2; rc=1
    fi
    # one archive per stage: the run tool brings back at most 8 files a call (the first lease lost 5 logs)
    [ "$TINY" = 1 ] || { tar czf "$base/$s.tgz" -C "$base" "$s" && rm -rf "${base:?}/$s"; }
  done
  echo "== done ($(date -u +%H:%M:%S))"
  return $rc
}

case "$STAGE" in
  prep) prep ;;
  train) train ;;
  generate) generate ;;
  educat) educat ;;
  score) score ;;
  lease) lease ;;
  all)
    [ "$TINY" = 1 ] || { echo "error: 'all' is the CPU dry run (TINY=1); on the GPU run train, generate, educat as separate calls" >&2; exit 2; }
    prep; train; generate; educat; score ;;
  *) echo "usage: [TINY=1] bash benchmarks/gpu_table3.sh prep|train|generate|educat|lease|score|all" >&2; exit 2 ;;
esac
