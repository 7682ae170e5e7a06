# Helpers shared by the run builders of kbtui's synthetic sample dataset.
import hashlib
import json
import math
import os

from problems import PROBLEMS, HW_PEAK_TFLOPS, HW_PEAK_GBPS

# data/sample beside this folder; KBTUI_SAMPLE_OUT overrides (to compare)
OUT = os.environ.get("KBTUI_SAMPLE_OUT",
                     os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sample"))
ROOT = "/home/sample/kbh"          # the (fictional) checkout the sample agents worked in


def pdir(problem):
    return f"{ROOT}/problems/{problem}"


def sid(run_id, salt=""):
    """Deterministic uuid-shaped id from the run id, so regenerating is stable."""
    h = hashlib.sha256((run_id + "/" + salt).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def hexid(run_id, salt, n=24):
    return hashlib.sha256((run_id + "/" + salt).encode()).hexdigest()[:n]


def b62(run_id, salt, n=24):
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    h = int(hashlib.sha256((run_id + "/" + salt).encode()).hexdigest(), 16)
    s = ""
    while len(s) < n:
        h, r = divmod(h, 62)
        s += alphabet[r]
    return s


def jl(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_jsonl(path, lines):
    write(path, "".join(jl(o) + "\n" for o in lines))


def numbered(text, fmt="cat"):
    """A file as a read tool shows it."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    if fmt == "claude":
        return "\n".join(f"{i:>6}\u2192{l}" for i, l in enumerate(lines, 1))
    if fmt == "opencode":
        return "\n".join(f"{i}: {l}" for i, l in enumerate(lines, 1))
    return "\n".join(f"{i:>6}\t{l}" for i, l in enumerate(lines, 1))


def replace_once(text, old, new):
    assert text.count(old) == 1, (old[:60], text.count(old))
    return text.replace(old, new)


def patch_update(path, before, edits, ctx=2):
    """An apply_patch 'Update File' envelope applying `edits` [(old, new), ...]
    (line-aligned snippets of `before`, in file order), one @@ hunk each with
    `ctx` context lines each side.  Returns (patch text, text after)."""
    out = ["*** Begin Patch", f"*** Update File: {path}"]
    after = before
    for old, new in edits:
        assert after.count(old) == 1, old[:60]
        start = after.index(old)
        assert start == 0 or after[start - 1] == "\n"
        pre = after[:start].split("\n")[:-1]
        post = after[start + len(old):].split("\n")
        if post and post[-1] == "":
            post = post[:-1]
        out.append("@@")
        out += [" " + l for l in pre[-ctx:]]
        out += ["-" + l for l in old.rstrip("\n").split("\n")]
        out += ["+" + l for l in new.rstrip("\n").split("\n")]
        out += [" " + l for l in post[:ctx]]
        after = after.replace(old, new)
    out.append("*** End Patch")
    return "\n".join(out) + "\n", after


def patch_add(path, text):
    body = text.rstrip("\n").split("\n")
    return "*** Begin Patch\n*** Add File: " + path + "\n" + "".join("+" + l + "\n" for l in body) + "*** End Patch\n"


def bench(problem, rows, sota=True, peak_gbps=None):
    """rows: one dict per shape {variant: ms}. Returns (log text, peak_fraction).
    TFLOPS and GB/s follow from the problem's formulas, so the numbers agree.
    peak_gbps: another GPU's DRAM bandwidth (the H100 run)."""
    p = PROBLEMS[problem]
    out = []
    fracs = []
    for i, (shape, ms) in enumerate(zip(p["shapes"], rows)):
        fl, by = p["flops"](shape), p["bytes"](shape)
        for var in ("eager", "compiled", "sota", "solution"):
            if var not in ms:
                continue
            t = ms[var] * 1e-3
            out.append(f"shape={i} variant={var} tflops={fl / t / 1e12:.3f} gbps={by / t / 1e9:.3f} ms={ms[var]:.3f}")
        t = ms["solution"] * 1e-3
        if p["regime"] == "compute":
            frac = fl / t / 1e12 / HW_PEAK_TFLOPS[p["peak"]]
        else:
            frac = by / t / 1e9 / (peak_gbps or HW_PEAK_GBPS)
        fracs.append(frac)
        out.append(f"shape={i} solution_peak_fraction={frac:.4f}")
    g = math.exp(sum(math.log(f) for f in fracs) / len(fracs))
    g = round(g, 4)
    out.append(f"peak_fraction: {g:.4f}")
    out.append("RESULT: " + ("OK" if g >= 0.1 else "LOW"))
    return "\n".join(out) + "\n", g


def baseline(problem, rows):
    """Geomean ms/tflops/gbps per variant over shapes, for problem_baselines.json."""
    p = PROBLEMS[problem]
    res = {}
    for var in ("eager", "compiled", "sota", "solution"):
        if var not in rows[0]:
            continue
        ms = [r[var] for r in rows]
        tf = [p["flops"](s) / (m * 1e-3) / 1e12 for s, m in zip(p["shapes"], ms)]
        gb = [p["bytes"](s) / (m * 1e-3) / 1e9 for s, m in zip(p["shapes"], ms)]
        gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
        res[var] = {"ms": round(gm(ms), 4), "tflops": round(gm(tf), 3), "gbps": round(gm(gb), 3), "n_shapes": len(ms)}
    return res


def result_json(problem, harness, model, effort, has_solution, correct, peak, elapsed, exit_code, complete, usage):
    u = {k: usage.get(k) for k in ("input_tokens", "output_tokens", "cache_read_tokens",
                                   "cache_creation_tokens", "reasoning_tokens", "total_cost_usd")}
    pf = "null" if peak is None else f"{peak:.4f}"
    return ("{\n"
            f'    "problem": {json.dumps(problem)},\n'
            f'    "harness": {json.dumps(harness)},\n'
            f'    "model": {json.dumps(model)},\n'
            f'    "reasoning_effort": {json.dumps(effort)},\n'
            f'    "has_solution": {json.dumps(has_solution)},\n'
            f'    "correct": {json.dumps(correct)},\n'
            f'    "peak_fraction": {pf},\n'
            f'    "elapsed_seconds": {elapsed},\n'
            f'    "harness_exit_code": {exit_code},\n'
            f'    "session_complete": {json.dumps(complete)},\n'
            f'    "usage": {json.dumps(u)}\n'
            "}\n")


def lineno(text, needle):
    """1-based line of the first line containing needle."""
    for i, l in enumerate(text.split("\n"), 1):
        if needle in l:
            return i
    raise KeyError(needle)
