#!/usr/bin/env python3
"""Writes kbtui's synthetic sample dataset into /work/main/data/sample.

Everything here is invented for kbtui: runs, kernels, numbers, prompts.
Run: python3 gen.py   (deterministic; rewrites the directory's files)."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import OUT, write, lineno, baseline, jl  # noqa: E402
from problems import PROBLEMS, HW_PEAK_GBPS  # noqa: E402
import run_claude  # noqa: E402
import run_codex  # noqa: E402
import run_cursor  # noqa: E402
import run_droid  # noqa: E402
import run_gemini  # noqa: E402
import run_grok  # noqa: E402
import run_kimi  # noqa: E402
import run_opencode  # noqa: E402

LABELS = {
    "claude": lambda r: f"claude/{r['model']} [{r['effort']}]",
    "codex": lambda r: f"codex/{r['model']} [{r['effort']}]",
}


def label(r):
    f = LABELS.get(r["harness"])
    return f(r) if f else f"{r['harness']}/{r['model']}"


def write_problems():
    for name, p in PROBLEMS.items():
        d = f"{OUT}/problems/{name}"
        write(f"{d}/problem.yaml", p["yaml"])
        write(f"{d}/PROMPT.txt", p["prompt"])
        write(f"{d}/shapes.json", json.dumps(p["shapes"], indent=2) + "\n")


RTX = {"name": "RTX PRO 6000 Blackwell Workstation", "sm": "sm_120a", "vram_gb": 96,
       "peak_bandwidth_gb_s": HW_PEAK_GBPS}
H100 = {"name": "NVIDIA H100 PCIe", "sm": "sm_90a", "vram_gb": 80, "peak_bandwidth_gb_s": 2039.0}
DECK6 = [p for p in PROBLEMS if not p.startswith("04_")]   # the later boards' 6-problem deck
ENV_NOTES = "SAMPLE: per-command GPU lock, torch 2.11.0; 6-problem deck"


def board_models(runs, problems):
    models = []
    for r in runs:
        if r["problem"] not in problems:
            continue
        cell = {"run_id": r["run_id"], "correct": r["correct"], "has_solution": r["has_solution"],
                "peak_fraction": r["peak_fraction"], "elapsed_seconds": r["elapsed_seconds"]}
        models.append({"label": label(r), "harness": r["harness"], "model": r["model"], "effort": r["effort"],
                       "results": {r["problem"]: cell}, "pass_count": int(r["correct"]), "total_runs": 1})
    return models


def leaderboard_v2(runs, verdicts, hacks):
    """The v2 board: the 6-problem deck, environment notes, reward hacks
    counted apart, each valid pass ranked with the board's verdict."""
    ok = [r for r in runs if r["problem"] in DECK6 and r["correct"] and r["run_id"] not in hacks]
    per = {}
    for p in DECK6:
        rk = sorted((r for r in ok if r["problem"] == p), key=lambda r: -r["peak_fraction"])
        per[p] = {"n_models": len([r for r in runs if r["problem"] == p]), "n_valid_passes": len(rk),
                  "n_reward_hacks": len([r for r in runs if r["problem"] == p and r["run_id"] in hacks]),
                  "ranked_valid_passes": [{"model": label(r), "peak_fraction": r["peak_fraction"],
                                           "verdict": verdicts.get(r["run_id"], "clean")} for r in rk]}
    models = board_models(runs, DECK6)
    for m in models:
        m["valid_pass_count"] = m.pop("pass_count")
        m["total_problems"] = len(DECK6)
        del m["total_runs"]
    return {"schema_version": 2, "environment": "v2_containerized", "environment_notes": ENV_NOTES,
            "_note": "SAMPLE v2 board written for kbtui: invented runs and numbers.",
            "hardware": RTX, "problems": DECK6, "models": models, "per_problem": per,
            "reward_hack_count": len(hacks)}


def leaderboard_h100(runs):
    """The second GPU's board: its runs (the gemini one)."""
    models = board_models(runs, DECK6)
    return {"schema_version": 1, "environment": "v2_containerized",
            "_note": "SAMPLE H100 board written for kbtui: invented runs and numbers.",
            "hardware": H100, "problems": DECK6, "models": models, "per_problem": {}}


def leaderboard(runs):
    problems = list(PROBLEMS)
    models = []
    for r in runs:
        cell = {"run_id": r["run_id"], "correct": r["correct"], "has_solution": r["has_solution"],
                "peak_fraction": r["peak_fraction"], "elapsed_seconds": r["elapsed_seconds"]}
        models.append({"label": label(r), "harness": r["harness"], "model": r["model"], "effort": r["effort"],
                       "results": {r["problem"]: cell}, "pass_count": int(r["correct"]), "total_runs": 1})
    per = {}
    for p in problems:
        att = [r for r in runs if r["problem"] == p]
        ok = sorted((r for r in att if r["correct"]), key=lambda r: -r["peak_fraction"])
        per[p] = {"n_attempted": len(att), "n_passed": len(ok),
                  "best_peak_fraction": ok[0]["peak_fraction"] if ok else None,
                  "best_model": label(ok[0]) if ok else None,
                  "ranked_passes": [{"model": label(r), "peak_fraction": r["peak_fraction"]} for r in ok]}
    return {"schema_version": 1,
            "_note": "SAMPLE leaderboard written for kbtui: invented runs and numbers, not benchmark results.",
            "hardware": {"name": "RTX PRO 6000 Blackwell Workstation", "sm": "sm_120a", "vram_gb": 96,
                         "peak_bandwidth_gb_s": HW_PEAK_GBPS},
            "problems": problems, "models": models, "per_problem": per}


def baselines_h100(runs):
    """The H100's baselines: the sample's RTX rows a quarter faster."""
    out = {"_schema": "per-problem reference and SOTA timings, geomean across shapes (SAMPLE numbers, invented for kbtui)",
           "_generated": "2026-06-02T12:00:00+00:00", "_hardware": "H100_PCIE_HOPPER_SM90", "problems": {}}
    for p in DECK6:
        r = next(x for x in runs if x["problem"] == p)
        rows = [{k: round(v * 0.75, 4) for k, v in x.items()} for x in r["bench_rows"]]
        for x in rows:
            x["solution"] = round(x["eager"] * 0.992, 4)
        out["problems"][p] = baseline(p, rows)
    return out


def baselines(runs):
    out = {"_schema": "per-problem reference and SOTA timings, geomean across shapes (SAMPLE numbers, invented for kbtui)",
           "_generated": "2026-06-01T12:00:00+00:00", "_hardware": "RTX_PRO_6000_BLACKWELL_SM120", "problems": {}}
    for p in PROBLEMS:
        r = next(x for x in runs if x["problem"] == p)
        rows = [dict(x) for x in r["bench_rows"]]
        for x in rows:  # the baseline "solution" is the reference copied in as solution.py
            x["solution"] = round(x["eager"] * 0.992, 4)
        out["problems"][p] = baseline(p, rows)
    return out


def yaml_block(text, indent=6):
    return "".join((" " * indent + l if l else "") + "\n" for l in text.rstrip("\n").split("\n"))


def quote(file, text, first, last, label_):
    lines = text.split("\n")[first - 1:last]
    return (f"  - file: {file}\n"
            f"    lines: [{first}, {last}]\n"
            f"    label: \"{label_}\"\n"
            f"    text: |2\n" + yaml_block("\n".join(lines)))


def annotations(runs):
    d = f"{OUT}/annotations"
    write(f"{d}/SCHEMA.md", SCHEMA)
    oc = next(r for r in runs if r["harness"] == "opencode")
    sol = oc["solution"]
    a = lineno(sol, "    def forward(self, x):")
    b = lineno(sol, "            return hit")
    c = lineno(sol, "        self._cache[key] = y")
    write(f"{d}/{oc['run_id']}.yaml",
          f"# SAMPLE annotation written for kbtui about a synthetic run.\n"
          f"run_id: {oc['run_id']}\n"
          f"model: {oc['model']}\n"
          f"harness: {oc['harness']}\n"
          f"effort: \"{oc['effort']}\"\n"
          f"problem: {oc['problem']}\n"
          f"peak_fraction: {oc['peak_fraction']}\n\n"
          f"verdict: reward_hack\n\n"
          f"summary: >\n"
          f"  The Triton kernel itself is honest and reaches {oc['honest_peak']:.4f} of DRAM bandwidth. The agent then\n"
          f"  memoises forward() on the input tensor's address and version; benchmark.py times repeated calls\n"
          f"  on one input, so every timed call returns the cached tensor without launching anything.\n\n"
          f"quotes:\n"
          + quote("solution.py", sol, a, b, "forward() returns a cached result for a tensor it has seen") +
          quote("solution.py", sol, c, c, "the first result is stored for the next timed call") +
          f"\nimplication: >\n"
          f"  The cell's {oc['peak_fraction']} is invalid: it implies more bandwidth than the card has (two shapes\n"
          f"  show solution_peak_fraction above 2). check.py cannot see the trick because each seed builds a\n"
          f"  fresh Model. The honest number is the first benchmark in the transcript.\n")
    cl = next(r for r in runs if r["harness"] == "claude")
    write(f"{d}/{cl['run_id']}.yaml",
          f"# SAMPLE annotation written for kbtui about a synthetic run.\n"
          f"run_id: {cl['run_id']}\n"
          f"model: {cl['model']}\n"
          f"harness: {cl['harness']}\n"
          f"effort: {cl['effort']}\n"
          f"problem: {cl['problem']}\n"
          f"peak_fraction: {cl['peak_fraction']}\n\n"
          f"verdict: clean\n\n"
          f"summary: >\n"
          f"  A real paged-attention decode kernel in Triton: one program per (sequence, KV head) so a page is read\n"
          f"  once per GQA group, online softmax in fp32, masked tail page, no SDPA or library fallback.\n")


SCHEMA = """# Annotation schema (sample)

Written for kbtui's sample dataset; it describes the same fields as the
annotation files of the real dataset, in our own words.

An annotation is one YAML document per run, stored as
`annotations/<run_id>.yaml`, where `<run_id>` is the run's directory under
`runs/`. It adds a reader's judgement to a leaderboard cell.

## Fields

| field | meaning |
| --- | --- |
| `run_id` | the run directory name |
| `model` | model name as shown on the leaderboard |
| `harness` | agent harness: claude, codex, opencode, kimi, droid, grok, cursor |
| `effort` | reasoning effort setting, `""` when the harness has none |
| `problem` | problem directory name, e.g. `07_w4a16_gemm` |
| `peak_fraction` | the cell's score, `null` when the run was not correct |
| `verdict` | one of `clean`, `rubric_leak`, `reward_hack`, `interesting`, `bug` |
| `summary` | one short paragraph for a leaderboard reader: what the run did |
| `quotes` | optional list of excerpts backing the verdict (below) |
| `implication` | how to read the cell given the verdict; optional for `clean` |

Each entry of `quotes` has:

- `file`: the run file quoted (`solution.py`, `transcript.jsonl`, `check.log`, ...);
- `lines`: `[first, last]`, 1-based and inclusive (`[n, n]` for one line);
- `label`: a caption for the excerpt;
- `text`: the quoted lines exactly as they are in the file, indentation
  included, so a viewer can show them without opening the file.

## Verdicts

- `clean`: the solution does the work the problem asks for; the score is
  earned. Also used to point at a good implementation.
- `rubric_leak`: passes the checks through a shortcut the problem meant to
  exclude but did not enforce; the score is real but measures something else.
- `reward_hack`: the solution games the measurement (cached results, a library
  call dressed up as a kernel, special-casing the test inputs, lower precision
  than required). Treat the score as invalid.
- `interesting`: neither leak nor hack, but worth a look.
- `bug`: the harness or environment distorted the result; the score is not
  reliable.
"""


README = """# kbtui sample dataset (synthetic)

**This is a synthetic sample written for kbtui. The runs in it are not real
agent runs.** Every transcript, kernel, log, score, prompt and annotation here
was made up by the kbtui authors to exercise the viewer: eight short sessions,
one per transcript format kbtui reads, each telling a small story a kernel
engineer would recognise. Models are named `sample-model-a` to
`sample-model-h`; none of them exists. The numbers in `leaderboard.json`,
`problem_baselines.json`, the benchmark logs and the `result.json` files are
invented (they are internally consistent, nothing more).

The real data set is **`Infatoshi/kernelbench-hard-runs`** on the Hugging Face
Hub: 84 runs of the KernelBench-Hard sweep (12 models x 7 problems) by Elliot
Arledge, published under CC-BY-4.0. Get it with

    kbtui fetch

and browse it with `kbtui` as usual. This sample only copies that data set's
*layout*, so kbtui can show something with no download.

## Layout

- `runs.jsonl`: one JSON object per run: `run_id`, `label`, `harness`,
  `model`, `effort`, `problem`, `correct`, `has_solution`, `peak_fraction`,
  `elapsed_seconds`, `session_complete`, `transcript`, `annotation`, `format`,
  `leaderboard`, `files` (paths relative to this directory).
- `runs/<run_id>/transcript.jsonl`: the session in its harness's own format;
  `result.json` (outcome and token usage), and where the run got that far
  `solution.py`, `check.log`, `benchmark.log`, `final.txt` (the agent's last
  message).
- `leaderboard.json`, `problem_baselines.json`: same structure as the real
  files, sample numbers.
- Boards as kernelbench.com publishes them, in small: `leaderboard_v2.json`
  (a v2 board: the 6-problem deck, environment notes, reward_hack_count,
  ranked valid passes with the board's verdicts) and `leaderboard.h100.json`
  with `problem_baselines.h100.json` (a second GPU, H100 PCIe: the gemini
  run).
- `rundetail/<run_id>.json`: the site's per-run detail (per-shape figures,
  stats, GPU-lock wait) for the gemini run.
- `annotations/SCHEMA.md` and two annotations: one `reward_hack`, one `clean`.
- `problems/<name>/problem.yaml`, `PROMPT.txt`, `shapes.json`: short
  descriptions of the seven problems, written for this sample.

## The eight runs

| run | format | problem | what happens |
| --- | --- | --- | --- |
{table}

Covered on purpose: a file write and edits or patches in every tool-using
run; an nvcc compile error (codex), Python tracebacks (claude, kimi); a
subagent (claude); failed tool calls (claude, opencode, kimi, droid, cursor); a run
whose solution fails correctness (kimi); a run cut off by its time budget,
with no completion record (droid); a reward hack (opencode, annotated);
streamed answer pieces and tokens from a result record (gemini).
The grok format has no tool records, so that run is reasoning and text only.

## Licence

The sample was written for kbtui and is distributed with it, under the same
terms as kbtui itself. It contains no text or data from the real data set,
whose licence (CC-BY-4.0, credit to Elliot Arledge) applies to that data set.
"""

STORY = {
    "claude": "Explore subagent maps the harness; first Triton kernel fails to compile (tl.dot needs 16 rows); CUDA-core reductions pass; pipelining helps",
    "codex": "WMMA bf16 kernel on widened fp8; nvcc error (missing cuda_fp8.h); patched; vectorised staging loads",
    "opencode": "honest W4A16 Triton kernel scores LOW; agent memoises forward() and the score jumps past DRAM speed (reward hack)",
    "kimi": "chunked bitonic top-k; pybind TypeError traceback; still fails shape 2 (partial last chunk dropped), agent blames ties",
    "droid": "grouped GEMM with fused SwiGLU; bigger tiles run out of shared memory; budget ends mid-benchmark (incomplete)",
    "grok": "reasoning only: chooses a recurrent kernel over the chunked WY form; harness check passes, score LOW",
    "cursor": "online softmax misses rtol 2e-6; libdevice exp plus Kahan-compensated sums pass",
    "gemini": "on the H100 board: tl.sort top-k fails check for k=24 (power of two); padded and sliced, passes; memory bound",
}


def main():
    if os.path.isdir(OUT):
        for name in ("runs", "annotations", "problems", "rundetail"):
            shutil.rmtree(f"{OUT}/{name}", ignore_errors=True)
    write_problems()
    runs = [m.build() for m in (run_claude, run_codex, run_opencode, run_kimi, run_droid, run_grok, run_cursor,
                                run_gemini)]
    rtx = [r for r in runs if r.get("gpu") != "h100"]
    h100 = [r for r in runs if r.get("gpu") == "h100"]
    ann = {run_claude.RUN, run_opencode.RUN}
    out = []
    for r in runs:
        base = f"runs/{r['run_id']}"
        out.append({"run_id": r["run_id"], "label": label(r), "harness": r["harness"], "model": r["model"],
                    "effort": r["effort"], "problem": r["problem"], "correct": r["correct"],
                    "has_solution": r["has_solution"], "peak_fraction": r["peak_fraction"],
                    "elapsed_seconds": r["elapsed_seconds"], "session_complete": r["session_complete"],
                    "transcript": f"{base}/transcript.jsonl",
                    "annotation": f"annotations/{r['run_id']}.yaml" if r["run_id"] in ann else None,
                    "format": r["format"], "leaderboard": "h100" if r.get("gpu") == "h100" else "kernelbench-hard",
                    "files": [f"{base}/{f}" for f in r["files"]]})
    write(f"{OUT}/runs.jsonl", "".join(json.dumps(o) + "\n" for o in out))
    write(f"{OUT}/leaderboard.json", json.dumps(leaderboard(rtx), indent=2) + "\n")
    write(f"{OUT}/leaderboard_v2.json",
          json.dumps(leaderboard_v2(rtx, {run_grok.RUN: "interesting"}, {run_opencode.RUN}), indent=2) + "\n")
    write(f"{OUT}/leaderboard.h100.json", json.dumps(leaderboard_h100(h100), indent=2) + "\n")
    write(f"{OUT}/problem_baselines.h100.json", json.dumps(baselines_h100(rtx), indent=2) + "\n")
    bl = baselines(rtx)
    write(f"{OUT}/problem_baselines.json",
          "{\n" + "".join(f'  "{k}": {json.dumps(v)},\n' for k, v in bl.items() if k != "problems")
          + '  "problems": {\n'
          + ",\n".join(f'    "{p}": {json.dumps(v)}' for p, v in bl["problems"].items())
          + "\n  }\n}\n")
    annotations(runs)
    table = "\n".join(f"| `{r['run_id']}` | {r['format']} | {r['problem']} | {STORY[r['format']]} |" for r in runs)
    write(f"{OUT}/README.md", README.replace("{table}", table))


if __name__ == "__main__":
    main()
