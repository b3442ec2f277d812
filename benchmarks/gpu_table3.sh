#!/usr/bin/env bash
# Table 3's LM rows on a GPU, end to end, in stages of at most 10 minutes each (docs/generators.md, section 5).
#
#   here (CPU):   bash benchmarks/gpu_table3.sh prep       # graph -> out/gpu-bundle (ingest first if needed)
#   GPU (run tool, carry out/gpu-bundle; issue the three calls back to back: the machine keeps
#        out/gpu-work between calls only while warm):
#                 bash benchmarks/gpu_table3.sh train      # ~8.5 min: LM "mini" and "base", MLM -> $OUT
#                 bash benchmarks/gpu_table3.sh generate   # <= 9 min: gpt2-d, gpt2-dr, delorean -> $OUT
#                 bash benchmarks/gpu_table3.sh educat     # <= 7 min: educat, time-boxed -> $OUT
#   here (CPU):   bash benchmarks/gpu_table3.sh score      # eval crg + generators_gpu.json + loss PNG
#
#   TINY=1 bash benchmarks/gpu_table3.sh all               # CPU dry run of every stage with tiny settings
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
  SMALL_MIN=2; LARGE_MIN=2; MLM_MIN=2
  GEN_D="--instances spread --limit 6 --batch-size 3 --max-new-tokens 48"
  GEN_DR="--instances spread --limit 6 --batch-size 3 --max-new-tokens 48"
  GEN_DEL="--instances spread --limit 4 --batch-size 2"; DEL_MIN=0.001   # stops after one batch: tests the time box
  GEN_EDU="--instances spread --limit 2 --batch-size 2 --sample-time 10 --drop-time 5"; EDU_MIN=5
  EVAL_LIMIT_NOTE="TINY CPU dry run (tiny models, few steps, few instances): NOT GPU figures"
else
  WORK="${WORK:-out/gpu-work}"; RUN="${RUN:-out/gpu-run}"
  DEVICE="${DEVICE:-cuda}"; DTYPE="${DTYPE:-bfloat16}"
  RESULTS="${RESULTS:-benchmarks/results/generators_gpu.json}"; PLOT="${PLOT:-docs/lm-gpu-loss.png}"
  # packed 1024-character blocks, 32 per step; both runs see the bundle's fixed validation split
  SMALL="--preset mini --max-length 1024 --batch-size 32 --lr 1e-3 --warmup-steps 100 --epochs ${SMALL_EPOCHS:-20} --eval-every 40"
  LARGE="--preset base --max-length 1024 --batch-size 32 --lr 6e-4 --warmup-steps 100 --epochs ${LARGE_EPOCHS:-12} --eval-every 40"
  MLM="--preset mini --max-length 256 --batch-size 128 --lr 1e-3 --warmup-steps 50 --epochs ${MLM_EPOCHS:-10} --eval-every 40"
  SMALL_MIN="${SMALL_MIN:-2}"; LARGE_MIN="${LARGE_MIN:-4}"; MLM_MIN="${MLM_MIN:-1}"
  # the paper's (reference implementations') hyper-parameters; --max-minutes time-boxes each generator:
  # gpt2-d and gpt2-dr get fixed boxes, delorean and educat whatever is left of their stage's budget
  GEN_D="--instances spread --batch-size ${BATCH_D:-500} --max-minutes ${D_MIN:-1}"
  GEN_DR="--instances spread --batch-size ${BATCH_DR:-250} --max-minutes ${DR_MIN:-1.5}"
  GEN_DEL="--instances spread --batch-size ${BATCH_DEL:-500}"; DEL_MIN="${DEL_MIN:-}"
  GEN_EDU="--instances spread --batch-size ${BATCH_EDU:-250}"; EDU_MIN="${EDU_MIN:-}"
  EVAL_LIMIT_NOTE="${NOTE:-}"
fi
GEN_BUDGET_S="${GEN_BUDGET_S:-530}"       # the generate stage ends within this (the run tool allows 600 s)
EDU_BUDGET_S="${EDU_BUDGET_S:-420}"       # the educat stage likewise (keeps the three calls near 25 minutes)
COMMON_TRAIN="--source bundle --data $BUNDLE --device $DEVICE --dtype $DTYPE --pack --keep-best --save-every 100000"
GEN_COMMON="--data $BUNDLE --device $DEVICE --dtype $DTYPE --json"

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
}

train() {  # GPU: two LM sizes in the same minutes, keep the lower validation loss; MLM on its vocabulary
  need "$BUNDLE/corpus/train.jsonl" "carry the bundle (run the prep stage here first)"
  local out; out="$(stage_out train)"; mkdir -p "$out" "$WORK"
  $DG gpu device --out "$out/device.json"
  $DG train lm --out "$WORK/lm-small" $COMMON_TRAIN $SMALL --max-minutes "$SMALL_MIN" --json
  $DG train lm --out "$WORK/lm-large" $COMMON_TRAIN $LARGE --max-minutes "$LARGE_MIN" --json
  $DG gpu pick "$WORK/lm-small" "$WORK/lm-large" > "$WORK/chosen"
  echo "chosen LM: $(cat "$WORK/chosen")"
  $DG train mlm --out "$WORK/mlm" --tokenizer-from "$(cat "$WORK/chosen")" $COMMON_TRAIN $MLM \
      --max-minutes "$MLM_MIN" --json
  cp "$WORK/lm-small/train_log.json" "$out/lm-small.json"
  cp "$WORK/lm-large/train_log.json" "$out/lm-large.json"
  cp "$WORK/mlm/train_log.json" "$out/mlm.json"
  $DG gpu report "$out" --plot "$out/val-loss.png" --out "$out/train-report.json"
}

generate() {  # GPU: the three LM generators on the 2,500 instances ('spread': any prefix covers every pair)
  need "$WORK/chosen" "no trained LM on this machine (run the train stage first, in the same warm lease)"
  local out model t0; out="$(stage_out generate)"; mkdir -p "$out" "$WORK/gen"; model="$(cat "$WORK/chosen")"
  t0=$(date +%s)
  $DG gpu device --out "$out/device.json"
  $DG generate gpt2-d   --model "$model" $GEN_COMMON $GEN_D   --out "$out/gpt2-d.jsonl"   > "$WORK/gen/gpt2-d.json"
  $DG generate gpt2-dr  --model "$model" $GEN_COMMON $GEN_DR  --out "$out/gpt2-dr.jsonl"  > "$WORK/gen/gpt2-dr.json"
  $DG generate delorean --model "$model" $GEN_COMMON $GEN_DEL --max-minutes "${DEL_MIN:-$(minutes_left "$GEN_BUDGET_S" "$t0" 40)}" \
      --out "$out/delorean.jsonl" > "$WORK/gen/delorean.json"
  combine "$WORK/gen/gpt2-d.json" "$WORK/gen/gpt2-dr.json" "$WORK/gen/delorean.json" > "$out/generate-summaries.json"
  cat "$out/generate-summaries.json"
}

educat() {  # GPU: EduCat on as many instances as its time box allows
  need "$WORK/mlm/config.json" "no trained MLM on this machine (run the train stage first, in the same warm lease)"
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
  local t="$RUN/train" g="$RUN/generate" e="$RUN/educat" files=()
  need "$t/lm-small.json" "copy the train stage's fetched files to $t"
  need "$g/gpt2-d.jsonl" "copy the generate stage's fetched files to $g"
  for f in "$g/gpt2-d.jsonl" "$g/gpt2-dr.jsonl" "$g/delorean.jsonl" "$e/educat.jsonl"; do
    [ -e "$f" ] && files+=("$f")
  done
  $DG eval crg "${files[@]}" ${DATA:+--data "$DATA"} --db "$DB" --json-out "$RUN/scores.json"
  local dirs=("$t" "$g"); [ -d "$e" ] && dirs+=("$e")
  $DG gpu report "${dirs[@]}" --scores "$RUN/scores.json" --bundle "$BUNDLE" --out "$RESULTS" --plot "$PLOT" \
      ${EVAL_LIMIT_NOTE:+--note "$EVAL_LIMIT_NOTE"}
  echo "wrote $RESULTS and $PLOT"
}

case "$STAGE" in
  prep) prep ;;
  train) train ;;
  generate) generate ;;
  educat) educat ;;
  score) score ;;
  all)
    [ "$TINY" = 1 ] || { echo "error: 'all' is the CPU dry run (TINY=1); on the GPU run train, generate, educat as separate calls" >&2; exit 2; }
    prep; train; generate; educat; score ;;
  *) echo "usage: [TINY=1] bash benchmarks/gpu_table3.sh prep|train|generate|educat|score|all" >&2; exit 2 ;;
esac
