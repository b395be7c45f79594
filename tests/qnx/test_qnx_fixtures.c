/* tests/qnx/test_qnx_fixtures.c: the decoder on the qnx-openqnx fixtures (../shared/fixtures, or
 * TT_FIXTURES): .kev files and a kernel ring image written the way QNX 6.4's kernel and
 * tracelogger write them (its README and facts.json). Each check names what it proves; the
 * expected values come from the fixture's facts and QNX's own traceprinter text of the same
 * files, never from this decoder. Skipped (77) when the fixtures are not there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "kevw.h"
#include "reader.h"

static char dir[1024];

/* The whole file dir/name, malloc'ed, a NUL after it; NULL (and a failed check) when
 * unreadable. */
static uint8_t *load(const char *name, size_t *len)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		FAIL("%s: cannot open", path);
		return NULL;
	}
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			uint8_t *nb = realloc(buf, cap);
			REQUIRE(nb != NULL);
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	if (n == cap) {
		uint8_t *nb = realloc(buf, cap + 1);
		REQUIRE(nb != NULL);
		buf = nb;
	}
	buf[n] = 0; /* the texts are read as strings */
	*len = n;
	return buf;
}

/* Replaces the first `from` in buf[0..len) with `to` (the same length). */
static void patch(uint8_t *buf, size_t len, const char *from, const char *to)
{
	size_t n = strlen(from);
	REQUIRE(strlen(to) == n);
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(buf + i, from, n)) {
			memcpy(buf + i, to, n);
			return;
		}
	FAIL("'%s' not in the file", from);
}

static int decode(const uint8_t *buf, size_t len, struct klog *l, struct tt_qnx_stats *st)
{
	char err[256] = "";
	l->n = 0;
	int rc = tt_qnx_decode_file(buf, len, 0, klog_cb, l, st, err, sizeof(err));
	if (rc)
		fprintf(stderr, "decode: %d %s\n", rc, err);
	return rc;
}

static size_t count_named(const struct klog *l, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].kind == TT_REC_EVENT && !strcmp(l->v[i].name, name);
	return n;
}

/* TRACE_VER_MAJOR/MINOR are tracelogger's version (1/01 in every fixture); the OS release, which
 * decides kernel-call and thread-state numbering, is TRACE_SYS_RELEASE (6.4.0). */
static void check_release(void)
{
	size_t len;
	uint8_t *buf = load("syn_le_fast.kev", &len);
	struct tt_qnx_header h;
	struct klog l = { 0 };
	char err[256];

	if (!buf)
		return;
	CHECK_EQ(tt_qnx_parse_header(buf, len, &h, err, sizeof(err)), 0);
	CHECK_EQ(h.ver_major, 1);
	CHECK_EQ(h.ver_minor, 1);
	CHECK_EQ(h.os_major, 6);
	CHECK_EQ(h.os_minor, 4);
	CHECK_EQ(decode(buf, len, &l, NULL), 0);
	/* traceprinter names every call of this file: 30 SYNC_MUTEX_LOCK/80 entries, 34 THCREATE */
	size_t mutex = count_named(&l, "KER_CALL_SYNC_MUTEX_LOCK");
	size_t creates = count_named(&l, "THREAD_CREATE");
	CHECK_EQ(mutex, 30);
	CHECK(creates > 0);
	CHECK_EQ(count_named(&l, "KER_CALL") + count_named(&l, "KER_EXIT"), 0);

	/* a tracelogger version of 8 changes nothing: the OS is still 6.4 */
	patch(buf, len, "TRACE_VER_MAJOR::1", "TRACE_VER_MAJOR::8");
	CHECK_EQ(decode(buf, len, &l, NULL), 0);
	CHECK_EQ(count_named(&l, "KER_CALL_SYNC_MUTEX_LOCK"), mutex);
	CHECK_EQ(count_named(&l, "THREAD_CREATE"), creates);

	/* a 7.1 system (tracelogger 1.01 again): 6.4's call numbers do not apply, 80 is not named
	 * after 6.4's table */
	patch(buf, len, "TRACE_VER_MAJOR::8", "TRACE_VER_MAJOR::1");
	patch(buf, len, "TRACE_SYS_RELEASE::6.4.0", "TRACE_SYS_RELEASE::7.1.0");
	CHECK_EQ(tt_qnx_parse_header(buf, len, &h, err, sizeof(err)), 0);
	CHECK_EQ(h.os_major, 7);
	CHECK_EQ(h.os_minor, 1);
	CHECK_EQ(decode(buf, len, &l, NULL), 0);
	CHECK_EQ(count_named(&l, "KER_CALL_SYNC_MUTEX_LOCK"), 0);
	CHECK(count_named(&l, "KER_CALL") >= mutex);
	klog_free(&l);
	free(buf);
}

/* CONTROL/BUFFER's second word is the buffer's num_events (traceprinter: "BUFFER sequence = 1,
 * num_events = 714"); a lost buffer (the sequence skips one) is counted from it: 714 events, an
 * estimate, not "at least 1". */
static void check_buffer_counts(void)
{
	static const char *const files[] = { "syn_inter_le.kev", "syn_be_wide.kev" };

	for (unsigned f = 0; f < 2; f++) {
		size_t len, gaps = 0;
		uint8_t *buf = load(files[f], &len);
		struct klog l = { 0 };
		if (!buf)
			continue;
		CHECK_EQ(decode(buf, len, &l, NULL), 0);
		const struct krec *b = klog_find(&l, 0, "CONTROL_BUFFER");
		CHECK(b && krec_u(b, "seq") == 1 && krec_u(b, "num_events") == 714);
		for (size_t i = 0; i < l.n; i++) {
			const struct krec *r = &l.v[i];
			if (r->kind != TT_REC_GAP)
				continue;
			gaps++;
			CHECK_MSG(r->lost == 714 && !r->exact, "%s: gap of %" PRIu64 " (exact %d)",
				  files[f], r->lost, r->exact);
			CHECK_SUBSTR(r->json, "\"basis\":\"events per kernel buffer");
		}
		CHECK_EQ(gaps, 1);
		klog_free(&l);
		free(buf);
	}
}

/* Every event traceprinter prints (its "t:0x%08x CPU:%02d" stamps, in order; a line glued after a
 * failed KER_EXIT counted too) is one complete event here, in the same order: combine events are
 * joined by their parts' common time as QNX's traceparser joins them. What traceprinter drops,
 * a combine event cut by a lost buffer, comes flagged incomplete: syn_inter_le has one, the ring
 * one (its oldest buffer begins inside a combine event). */
static void check_events_in_order(void)
{
	static const struct {
		const char *kev, *txt;
		size_t incomplete;
	} files[] = {
		{ "syn_le_fast.kev", "syn_le_fast.traceprinter-n.txt", 0 },
		{ "syn_be_wide.kev", "syn_be_wide.traceprinter-n.txt", 0 },
		{ "syn_inter_le.kev", "syn_inter_le.traceprinter-n.txt", 1 },
		{ "ring_le_expected.kev", "ring_le_expected.traceprinter-n.txt", 1 },
	};

	for (unsigned f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len, tlen, incomplete = 0, k = 0, matched = 0;
		uint8_t *buf = load(files[f].kev, &len), *txt = load(files[f].txt, &tlen);
		struct klog l = { 0 };
		if (!buf || !txt) {
			free(buf);
			free(txt);
			continue;
		}
		CHECK_EQ(decode(buf, len, &l, NULL), 0);
		const char *p = (const char *)txt, *end = p + tlen;
		for (size_t i = 0; i < l.n; i++) {
			const struct krec *r = &l.v[i];
			if (r->kind != TT_REC_EVENT)
				continue;
			if (krec_has(r, "incomplete")) {
				incomplete++;
				continue;
			}
			unsigned ts, cpu;
			const char *t = NULL;
			for (const char *q = p; q + 20 < end && !t; q++)
				if (!memcmp(q, "t:0x", 4) && !memcmp(q + 12, " CPU:", 5))
					t = q;
			if (!t || sscanf(t, "t:0x%8x CPU:%2u", &ts, &cpu) != 2) {
				FAIL("%s: event %zu (%s) past traceprinter's last", files[f].kev, i, r->name);
				break;
			}
			p = t + 17;
			k++;
			if (ts != r->ev.ts_raw || (int)cpu != r->ev.core) {
				FAIL("%s: event %zu (%s) t:0x%08x CPU:%02d, traceprinter's %zu-th "
				     "t:0x%08x CPU:%02u", files[f].kev, i, r->name, r->ev.ts_raw,
				     r->ev.core, k, ts, cpu);
				break;
			}
			matched++;
		}
		CHECK_MSG(matched > 700, "%s: %zu events matched", files[f].kev, matched);
		for (const char *q = p; q + 20 < end; q++)
			if (!memcmp(q, "t:0x", 4) && !memcmp(q + 12, " CPU:", 5)) {
				FAIL("%s: traceprinter has events past ours: %.40s", files[f].kev, q);
				break;
			}
		CHECK_EQ(incomplete, files[f].incomplete);
		klog_free(&l);
		free(buf);
		free(txt);
	}
}

/* User events of more payload words than there are argument slots (event 33 of syn_le_fast: up
 * to 10 words, 0x1000 on) show what fits as word1.. and say how many words are not shown (all
 * are in raw): never cut without a mark. */
static void check_long_events(void)
{
	static const char *const wn[] = { "word1", "word2", "word3", "word4", "word5", "word6" };
	size_t len, nlong = 0;
	uint8_t *buf = load("syn_le_fast.kev", &len);
	struct klog l = { 0 };

	if (!buf)
		return;
	CHECK_EQ(decode(buf, len, &l, NULL), 0);
	for (size_t i = 0; i < l.n; i++) {
		const struct krec *r = &l.v[i];
		unsigned nw = r->ev.nraw - 2u, shown = 0;
		if (r->kind != TT_REC_EVENT || strcmp(r->name, "USER_EVENT") || krec_has(r, "text") ||
		    nw <= 6)
			continue;
		nlong++;
		while (shown < 6 && krec_has(r, wn[shown])) {
			CHECK_EQ(krec_u(r, wn[shown]), r->raw[2 + shown]);
			shown++;
		}
		CHECK_MSG(shown + krec_u(r, "more_words") == nw, "event %zu: %u words, %u shown, "
			  "more_words %u", i, nw, shown, krec_u(r, "more_words"));
	}
	CHECK(nlong > 0);
	klog_free(&l);
	free(buf);
}

#define RING_ADDR 0x80100000u

/* ring_le.bin through the reader `tracetap decode --format qnx --address` uses, the layout left
 * at its defaults (QNX's tracebuf_t, 32-bit). */
static int ring_decode(const uint8_t *img, size_t len, uint64_t address, struct klog *l,
		       char *err, size_t errlen)
{
	const struct tt_reader_ops *ops = tt_reader_find("qnx");
	struct tt_qnx_layout lo;

	tt_qnx_layout_default(&lo);
	lo.ver_major = 6;
	struct tt_reader_config cfg = { .address = address, .format_cfg = &lo };
	l->n = 0;
	err[0] = 0;
	return ops->decode_image(img, len, RING_ADDR, &cfg, klog_cb, l, err, errlen);
}

/* The kernel's ring in RAM (four 16 KiB buffers in ring mode, 32-bit little-endian): read with
 * the default layout it gives ring_le_expected.kev's events, oldest surviving buffer first, word
 * for word; --address at another buffer is refused naming where the first is; a slot counted
 * but not written (num_events one higher: the slot past the writer's holds an older lap's
 * event) is not taken. */
static void check_ring(void)
{
	size_t len, klen;
	uint8_t *img = load("ring_le.bin", &len), *kev = load("ring_le_expected.kev", &klen);
	struct klog got = { 0 }, want = { 0 };
	char err[400];

	if (!img || !kev) {
		free(img);
		free(kev);
		return;
	}
	CHECK_EQ(decode(kev, klen, &want, NULL), 0);
	for (unsigned pass = 0; pass < 2; pass++) {
		if (pass) { /* buffer 3 (the newest, 11 events): count one more, unwritten */
			CHECK_EQ(img[3 * 16384 + 12], 11);
			img[3 * 16384 + 12] = 12;
		}
		int rc = ring_decode(img, len, RING_ADDR, &got, err, sizeof(err));
		CHECK_MSG(rc == 0, "ring_le.bin: %d %s", rc, err);
		CHECK_MSG(got.n == want.n, "pass %u: %zu records, the .kev has %zu", pass, got.n,
			  want.n);
		for (size_t i = 0; i < got.n && i < want.n; i++) {
			const struct krec *a = &got.v[i], *b = &want.v[i];
			if (a->kind != b->kind || strcmp(a->name, b->name) ||
			    a->ev.nraw != b->ev.nraw ||
			    memcmp(a->raw, b->raw, a->ev.nraw * sizeof(uint32_t))) {
				FAIL("pass %u: record %zu: %s, the .kev's %s", pass, i, a->json,
				     b->json);
				break;
			}
		}
	}
	int rc = ring_decode(img, len, RING_ADDR + 0x8000, &got, err, sizeof(err));
	CHECK_MSG(rc == -EPROTO && strstr(err, "the buffer at --address 0x80108000 is not the "
					   "ring's first: its baseaddr is 0x80100000") &&
		  strstr(err, "the first is at --address - 0x8000"), "wrong --address: %d %s",
		  rc, err);
	klog_free(&got);
	klog_free(&want);
	free(img);
	free(kev);
}

int main(void)
{
	const char *fx = getenv("TT_FIXTURES");
	snprintf(dir, sizeof(dir), "%s/qnx-openqnx", fx ? fx : TT_SOURCE_ROOT "/../shared/fixtures");
	char facts[1100];
	snprintf(facts, sizeof(facts), "%s/facts.json", dir);
	FILE *f = fopen(facts, "r");
	if (!f)
		tt_test_skip("no QNX fixtures at %s (set TT_FIXTURES to the fixtures folder)", dir);
	fclose(f);
	check_release();
	check_buffer_counts();
	check_events_in_order();
	check_long_events();
	check_ring();
	return tt_test_done();
}
