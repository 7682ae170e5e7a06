#!/bin/sh
# seed.sh OUTDIR: builds one seed directory per fuzz target from our
# fixtures and, when present, ../shared/kbh (first lines of transcripts,
# annotations, logs). Seeds are generated here at run time; none is
# committed, and nothing of shared/ enters the repository.
set -eu
src=${KB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
out=${1:?usage: seed.sh OUTDIR}
kbh=${KB_SHARED:-$src/../shared}/kbh
mkdir -p "$out"
n=0
seed() { # seed TARGET FILE [LINES]: the first LINES lines (default 40)
	d=$out/$1
	mkdir -p "$d"
	n=$((n + 1))
	head -n "${3:-40}" "$2" | head -c 65536 > "$d/s$n" || true
}
for f in "$src"/tests/fixtures/*/*.jsonl "$src"/tests/fixtures/codex-exec/*.txt; do
	[ -f "$f" ] || continue
	fmt=$(basename "$(dirname "$f")" | tr - _)
	seed fuzz_transcript "$f"
	case $fmt in cli) ;; *) seed "fuzz_fmt_$fmt" "$f";; esac
done
# the real transcripts of tests/realworld, by the format their manifest names
if [ -f "$src/tests/realworld/MANIFEST.tsv" ]; then
	while IFS='	' read -r file fmt _; do
		f=$src/tests/realworld/$file
		[ -f "$f" ] || continue
		seed fuzz_transcript "$f"
		case $fmt in unsupported|format) ;; *) seed "fuzz_fmt_$(printf '%s' "$fmt" | tr - _)" "$f";; esac
	done < "$src/tests/realworld/MANIFEST.tsv"
fi
# one JSON line each for the parser's own target: a fixture's first line,
# and strings of escapes around the 16 bytes its scanner takes at a time
for f in "$src"/tests/fixtures/*/*.jsonl; do seed fuzz_jsonx "$f" 1; done
mkdir -p "$out/fuzz_jsonx"
printf '{"a":"x\\ud83d\\ude00y\\n\\"q\\/\\u00e9","b":[1,-0,1e5,2.5e-3,true,false,null,{}]}' > "$out/fuzz_jsonx/esc"
printf '["0123456789abcdef\\"0123456789abcdef\\\\","\\uD800\\uDC00\\uDBFF"]' > "$out/fuzz_jsonx/sur"
# two texts split at a NUL for the diff: a source file and an edit of it,
# a final newline taken away, a deleted line that reads as a header
mkdir -p "$out/fuzz_diff"
{ head -n 80 "$src/src/diff.c"; printf '\000'; head -n 80 "$src/src/diff.c" | sed '10d;20s/a/b/;30s/$/ and more/'; } > "$out/fuzz_diff/edit"
printf 'a\nb\nc\n\000a\nB\nc' > "$out/fuzz_diff/eol"
printf -- '-- x\n--- y\n\000+++ z\n-- x\n' > "$out/fuzz_diff/hdr"
# a pattern and a text split at a NUL, for the literal prefilter
mkdir -p "$out/fuzz_relit"
printf 'error|warning\000an ERROR, then a warning\n' > "$out/fuzz_relit/alt"
printf 'kernel|speedup\000the \342\204\252ERNEL gave a \305\277peedup\n' > "$out/fuzz_relit/fold"
printf 'tflops=\\s*[0-9]+\000shape 1: tflops= 300\nTFLOPS=2\n' > "$out/fuzz_relit/num"
printf '(?i)cuda(?!Malloc)|foo\\Kbar\000cudaMalloc CUDA fooBAR\n' > "$out/fuzz_relit/look"
# claude-session shares claude's fixtures
for f in "$src"/tests/fixtures/claude/*.jsonl; do seed fuzz_fmt_claude_session "$f"; done
if [ -d "$kbh/runs" ] && [ -f "$kbh/runs.jsonl" ]; then
	# each run's first lines go to the sniffing target and to its format's
	while IFS= read -r line; do
		id=$(printf '%s' "$line" | sed -n 's/.*"run_id": *"\([^"]*\)".*/\1/p')
		fmt=$(printf '%s' "$line" | sed -n 's/.*"format": *"\([^"]*\)".*/\1/p' | tr - _)
		t=$kbh/runs/$id/transcript.jsonl
		[ -n "$id" ] && [ -f "$t" ] || continue
		seed fuzz_transcript "$t" 12
		[ -n "$fmt" ] && seed "fuzz_fmt_$fmt" "$t" 12
		for l in "$kbh/runs/$id"/*.log; do
			[ -f "$l" ] && seed fuzz_benchlog "$l" 60
		done
	done < "$kbh/runs.jsonl"
	for a in "$kbh"/annotations/*.yaml; do
		[ -f "$a" ] && seed fuzz_annot "$a" 400
	done
	seed fuzz_textsafe "$kbh/README.md" 30
fi
# live-mode streams: first byte 0 = OpenAI, 1 = Anthropic (then the SSE bytes)
mkdir -p "$out/fuzz_sse"
{ printf '\000'
  printf 'data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Plan"}}]}\n\n'
  printf ': keep-alive\n\n'
  printf 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Writing it."}}]}\n\n'
  printf 'data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_w","type":"function","function":{"name":"write_file","arguments":"{\\"path\\": \\"a.cu\\"}"}}]}}]}\n\n'
  printf 'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
  printf 'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20}}\n\n'
  printf 'data: [DONE]\n\n'; } > "$out/fuzz_sse/openai"
{ printf '\001'
  printf 'event: message_start\r\ndata: {"type":"message_start","message":{"id":"m1","usage":{"input_tokens":10,"output_tokens":1}}}\r\n\r\n'
  printf 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}\n\n'
  printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}\n\n'
  printf 'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"bash","input":{}}}\n\n'
  printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"command\\": \\"ls\\"}"}}\n\n'
  printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}\n\n'
  printf 'event: message_stop\ndata: {"type":"message_stop"}\n\n'; } > "$out/fuzz_sse/anthropic"
# hand-written seeds for the small languages
mkdir -p "$out/fuzz_benchlog" "$out/fuzz_formula" "$out/fuzz_hub" "$out/fuzz_textsafe" "$out/fuzz_annot"
printf 'shape=0 variant=solution tflops=12.5 gbps=800 ms=0.25\nshape=0 solution_peak_fraction=0.4\npeak_fraction: 0.31\nRESULT: OK\nPASS\nFAIL: mismatch\ntime shape=1 ms=1.5 min=1.2 max=2\nbenchmark_event event=variant_end shape=2 variant=eager ms=3\nkernel 1.234 ms\n' > "$out/fuzz_benchlog/hand"
printf '2 * M * N * K' > "$out/fuzz_formula/f1"
printf 'M*K*2 + (K/2)*N' > "$out/fuzz_formula/f2"
printf -- '-(-(batch)) / 3.5e2' > "$out/fuzz_formula/f3"
printf '\000[{"type":"file","path":"a/b.txt","size":3,"oid":"0123456789abcdef0123456789abcdef01234567"},{"type":"directory","path":"a"},{"type":"file","path":"c.bin","size":9,"lfs":{"oid":"%064d","size":9}}]' 0 > "$out/fuzz_hub/tree"
printf '\001<https://huggingface.co/api/datasets/x/y/tree/main?cursor=abc>; rel="next"' > "$out/fuzz_hub/link"
printf '\002{"sha":"0123456789abcdef0123456789abcdef01234567","id":"x/y"}' > "$out/fuzz_hub/sha"
printf 'plain \033]0;title\007 \033[2J \033]52;c;aGk=\007 \302\233 \377\376 tab\there\nnl\r\n' > "$out/fuzz_textsafe/esc"
printf 'run_id: r1\nverdict: pass\nscore: 0.5\nquotes:\n  - file: transcript.jsonl\n    lines: [1, 2]\n    label: x\n    text: "a\\tb"\nnotes: |\n  multi\n  line\nunknown_key: !custom {a: 1}\n' > "$out/fuzz_annot/hand"
echo "seed.sh: $(find "$out" -type f | wc -l) seeds in $out"
