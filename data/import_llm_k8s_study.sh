#!/bin/sh
# The example study (docs/guide/studies.md, "The example study"): the four llm-k8s runs of
# Llama-3.3-70B-Instruct as one study, the two InfiniBand runs as one setup's repeats. Run from the
# repository's root with ../shared/real2 beside it; tests/test_study_import.py runs this command and
# checks that it writes data/vllm-llm-k8s-study/SUMMARY.json byte for byte.
V=../shared/real2/vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct
AV='Data from "llm-k8s" by Suraj Deshmukh (surajssd), https://github.com/surajssd/llm-k8s, Apache-2.0. Changed: runs imported into this receipt by sitegen, per-request rows kept without generated texts, figures recomputed.'
sitegen import vllm-bench \
  --setup tp8 $V/01_tp8_pp1/*_qps_*.json \
  --setup tp4pp2-no-ib $V/02_tp4_pp2_no_IB/*_qps_*.json \
  --setup tp4pp2-ib $V/03_tp4_pp2_IB/*_qps_*.json \
  --setup tp4pp2-ib $V/04_tp4_pp2_IB/*_qps_*.json \
  --setup-label "tp8=tp8, one node" \
  --setup-label "tp4pp2-no-ib=tp4×pp2, two nodes, no InfiniBand" \
  --setup-label "tp4pp2-ib=tp4×pp2, two nodes, InfiniBand" \
  --setup-set "tp8:parallelism=tensor parallel 8 × pipeline parallel 1" \
  --setup-set "tp4pp2-no-ib:parallelism=tensor parallel 4 × pipeline parallel 2" \
  --setup-set "tp4pp2-ib:parallelism=tensor parallel 4 × pipeline parallel 2" \
  --setup-set "tp4pp2-ib:hardware=Standard_ND96asr_v4 x 2, InfiniBand" \
  --attribution "$AV" -o data/vllm-llm-k8s-study "$@"
