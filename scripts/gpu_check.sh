#!/usr/bin/env bash
# The checks that need a CUDA GPU, for a machine that has one (CI has none).
#
# With one GPU, NCCL runs a world of one (NCCL refuses two ranks on one device); with two or
# more, two ranks. Per bundled example: the original (DataParallel on the visible GPUs) and
# the committed migration under torchrun with NCCL, each in its own copy of the example, their
# `final` lines side by side; then `dp2ddp verify --backend nccl` on three examples, and the
# suite's own GPU test where two GPUs are visible.
#
# Usage (repository root; libcst and jinja2 importable, torch with CUDA):
#   scripts/gpu_check.sh OUT_DIR
set -u
out=${1:?usage: scripts/gpu_check.sh OUT_DIR}
mkdir -p "$out"
root=$(pwd)
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
gpus=$(python3 -c "import torch; print(torch.cuda.device_count())")
nproc=$((gpus >= 2 ? 2 : 1))
python3 - <<'PY'
import libcst, torch
nccl = torch.cuda.nccl.version() if torch.cuda.is_available() else None
print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count(),
      "nccl", nccl, "libcst", getattr(libcst, "__version__", "?"))
PY
echo "nproc $nproc"

# entry of each example: single scripts (train.py / train_ddp.py) and projects (original/, migrated/)
declare -A entry=(
  [project_classifier]=train.py [project_importlib_task]=main.py
  [project_init_paths]=tools/train.py [project_script_module]=fit.py
  [project_trainer_package]=run.py
)
run_example() {
  local ex=$1 work=/tmp/gpu_check/$1
  rm -rf "$work" && mkdir -p "$work" && cp -r "examples/$ex" "$work/src"
  if [[ -n "${entry[$ex]:-}" ]]; then
    local e=${entry[$ex]}
    (cd "$work/src/original" && timeout 300 python3 "$e") >"$out/$ex.orig.log" 2>&1
    echo "rc $?" >>"$out/$ex.orig.log"
    (cd "$work/src/migrated" && timeout 300 torchrun --standalone --nproc_per_node=$nproc "$e") \
      >"$out/$ex.ddp.log" 2>&1
    echo "rc $?" >>"$out/$ex.ddp.log"
  else
    (cd "$work/src" && timeout 300 python3 train.py) >"$out/$ex.orig.log" 2>&1
    echo "rc $?" >>"$out/$ex.orig.log"
    (cd "$work/src" && timeout 300 torchrun --standalone --nproc_per_node=$nproc train_ddp.py) \
      >"$out/$ex.ddp.log" 2>&1
    echo "rc $?" >>"$out/$ex.ddp.log"
  fi
}
examples=${EXAMPLES:-$(cd examples && ls -d */ | tr -d /)}
# all examples at once (16 cores; --standalone picks a free rendezvous port per launch)
for ex in $examples; do run_example "$ex" & done
wait
printf '%-26s %-8s %-8s %s\n' example orig ddp "final line: original | migrated"
for ex in $examples; do
  o=$(grep -a -m1 -E '^final' "$out/$ex.orig.log" | tail -1)
  d=$(grep -a -E '^final' "$out/$ex.ddp.log" | tail -1)
  printf '%-26s %-8s %-8s %s | %s\n' "$ex" "$(tail -1 "$out/$ex.orig.log")" \
    "$(tail -1 "$out/$ex.ddp.log")" "$o" "$d"
done

verified=${VERIFIED:-cnn_trainer trainer_class padded_sequences}
for ex in $verified; do
  rm -rf "/tmp/gpu_check/verify_$ex" && mkdir -p "/tmp/gpu_check/verify_$ex" \
    && cp examples/$ex/train.py "/tmp/gpu_check/verify_$ex/"
  (timeout 400 python3 -m dp2ddp verify "/tmp/gpu_check/verify_$ex/train.py" --nproc $nproc \
    --backend "${BACKEND:-nccl}" --steps 3 --json "$out/verify_$ex.json" >"$out/verify_$ex.log" 2>&1
   echo "rc $?" >>"$out/verify_$ex.log") &
done
wait
for ex in $verified; do
  echo "verify $ex $(tail -1 "$out/verify_$ex.log"): $(grep -a -m1 -E 'EQUIVALENT|rror' "$out/verify_$ex.log")"
done

if [[ $gpus -ge 2 ]]; then
  timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_verify.py 2>&1 | tail -5
fi
