// kbsimd: bench/kbbench scan's figures with simdjson (Debian's
// libsimdjson-dev), built by `make bench` where configure found it: the
// numbers that chose the scan pass's parser (README, "the scan pass").
// One core, each file read whole first (its padding is simdjson's own).
//   kbsimd FILE...   lines parsed to a DOM, then each record's kind (its
//                    top-level "type") read on demand, records streamed
// Lines with a kind are counted as kbbench scan counts them: the two
// figures agree or the script says they differ.
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string_view>

static double now_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
	double dom_ms = 0, kind_ms = 0;
	size_t bytes = 0, dom_ok = 0, kinds = 0, kind_bytes = 0, lines = 0;
	simdjson::dom::parser dp;
	simdjson::ondemand::parser op;
	for (int i = 1; i < argc; i++) {
		simdjson::padded_string buf;
		if (simdjson::padded_string::load(argv[i]).get(buf)) {
			std::fprintf(stderr, "kbsimd: %s: cannot read it\n", argv[i]);
			return 1;
		}
		const char *s = buf.data();
		size_t len = buf.size();
		bytes += len;
		// a DOM per line, as jx_parse builds a tree per line
		double t0 = now_ms();
		for (size_t p = 0; p < len;) {
			const char *q = static_cast<const char *>(std::memchr(s + p, '\n', len - p));
			size_t e = q ? static_cast<size_t>(q - s) : len;
			if (e > p) {
				simdjson::dom::element el;
				dom_ok += !dp.parse(s + p, e - p, false).get(el);
			}
			lines++;
			p = e + 1;
		}
		double t1 = now_ms();
		// the kind of each record on demand, over the whole stream
		simdjson::ondemand::document_stream docs;
		if (op.iterate_many(buf, 16u << 20).get(docs)) {
			std::fprintf(stderr, "kbsimd: %s: iterate_many failed\n", argv[i]);
			return 1;
		}
		for (auto doc : docs) {
			simdjson::ondemand::object o;
			std::string_view k;
			if (doc.get_object().get(o) || o.find_field_unordered("type").get_string().get(k))
				continue;
			kinds++;
			kind_bytes += k.size();
		}
		kind_ms += now_ms() - t1;
		dom_ms += t1 - t0;
	}
	std::printf("simdjson %d.%d.%d: %.1f MB, %zu lines: DOM per line %.1f ms, %.2f GB/s (%zu parsed); kind on demand %.1f ms, %.2f GB/s; %zu kinds (%zu bytes)\n",
	            int(simdjson::SIMDJSON_VERSION_MAJOR), int(simdjson::SIMDJSON_VERSION_MINOR), int(simdjson::SIMDJSON_VERSION_REVISION), bytes / 1e6, lines, dom_ms,
	            bytes / 1e6 / (dom_ms > 0 ? dom_ms : 1e-3), dom_ok, kind_ms, bytes / 1e6 / (kind_ms > 0 ? kind_ms : 1e-3), kinds, kind_bytes);
	std::printf("RESULT simd bytes %zu dom_gbps %.2f kind_gbps %.2f kinds %zu kind_bytes %zu end\n", bytes,
	            bytes / 1e6 / (dom_ms > 0 ? dom_ms : 1e-3), bytes / 1e6 / (kind_ms > 0 ? kind_ms : 1e-3), kinds, kind_bytes);
	return 0;
}
