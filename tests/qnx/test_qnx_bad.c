/* tests/qnx/test_qnx_bad.c: untrusted .kev bytes: truncated or malformed headers, a syspage
 * longer than the file, a trailing partial event and garbage give clear errors naming what and
 * where; every prefix and thousands of mutations of a good file decode without reading out of
 * bounds (run under ASan+UBSan: meson setup -Db_sanitize=address,undefined). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "kevw.h"

static struct kev_opts opts = { .cps = 1000000, .cpus = 2, .os_major = 6, .syspage_len = 64 };

static void good_file(struct kevw *k)
{
	uint32_t w[3] = { 1, 77, 0 };

	kevw_init(k, &opts);
	kevw_simple(k, 0, K_CONTROL, 1, 0x10, 0, 0x10);
	kevw_simple(k, 0, K_CONTROL, 2, 0x11, 1, 0);
	kevw_combine_str(k, 0, K_PRTH, 192, 0x20, w, 2, "/bin/sh");
	kevw_simple(k, 0, K_PRTH, 1, 0x30, 77, 1);
	kevw_simple(k, 1, K_KER, 11, 0x40, 1, 2);
	kevw_combine(k, 1, K_KER, 15, 0x50, w, 3);
	kevw_simple(k, 0, K_INT, 1, 0x60, 3, 4);
}

static void expect_error(const char *what, const uint8_t *p, size_t n, const char *want)
{
	struct kevw k = { .buf = (uint8_t *)p, .len = n };
	struct klog l = { 0 };
	char err[256];
	int rc = kev_decode(&k, 0, &l, NULL, err, sizeof(err));

	if (rc != -EPROTO || !strstr(err, want)) {
		FAIL("%s: rc %d, message \"%s\" lacks \"%s\"", what, rc, err, want);
	}
	klog_free(&l);
}

static void check_headers(void)
{
	struct kevw k;
	struct tt_qnx_header h;
	char err[256];

	good_file(&k);
	CHECK_EQ(tt_qnx_parse_header(k.buf, k.len, &h, err, sizeof(err)), 0);
	CHECK_EQ(h.syspage_len, 64);
	CHECK_EQ(h.cycles_per_sec, 1000000);
	CHECK_EQ(h.cpu_num, 2);
	CHECK(!h.big_endian);
	CHECK_EQ(h.nattrs, 16);
	/* VER_MAJOR/MINOR are tracelogger's (1/01); the OS is SYS_RELEASE's "6.0.0" */
	CHECK_EQ(h.ver_major, 1);
	CHECK_EQ(h.ver_minor, 1);
	CHECK_EQ(h.os_major, 6);
	CHECK_EQ(h.os_minor, 0);
	CHECK_EQ(h.events_off, h.header_len + 64);

	/* Every cut inside the header or the syspage is an error; inside the events, whole events
	 * decode and a partial one is reported with its offset. */
	for (size_t n = 0; n < k.len; n++) {
		struct klog l = { 0 };
		struct kevw c = { .buf = k.buf, .len = n };
		int rc = kev_decode(&c, 0, &l, NULL, err, sizeof(err));
		if (n < h.header_len) {
			CHECK_EQ(rc, -EPROTO);
			if (n < 20)
				CHECK_SUBSTR(err, n ? "TRACE_HEADER_BEGIN::" : "no TRACE_HEADER_BEGIN");
			else
				CHECK_SUBSTR(err, "no TRACE_HEADER_END::");
		} else if (n < h.events_off) {
			CHECK_EQ(rc, -EPROTO);
			CHECK_SUBSTR(err, "TRACE_SYSPAGE_LEN 64 runs past the end of the file");
		} else if ((n - h.events_off) % 16) {
			char want[96];
			snprintf(want, sizeof(want), "trailing partial event: %zu bytes at byte offset %zu",
				 (n - h.events_off) % 16, n - (n - h.events_off) % 16);
			CHECK_EQ(rc, -ENODATA); /* cut short: the events before it stand */
			CHECK_SUBSTR(err, want);
			CHECK(l.n > 0 || n < h.events_off + 16);
		} else {
			CHECK_EQ(rc, 0);
		}
		klog_free(&l);
	}
	kevw_free(&k);

#define HDR(s) (const uint8_t *)(s), strlen(s)
	expect_error("garbage", HDR("\x7f" "ELF\x02\x01\x01 not a trace at all........"),
		     "not a QNX .kev file: no TRACE_HEADER_BEGIN:: at byte 0");
	expect_error("empty", (const uint8_t *)"", 0, "byte 0");
	expect_error("no end", HDR("TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::TRUE"),
		     "truncated header: no TRACE_HEADER_END::");
	expect_error("no byte order", HDR("TRACE_HEADER_BEGIN::TRACE_CPU_NUM::1TRACE_HEADER_END::"),
		     "neither TRACE_LITTLE_ENDIAN::TRUE nor TRACE_BIG_ENDIAN::TRUE");
	expect_error("both orders", HDR("TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::TRUE"
					"TRACE_BIG_ENDIAN::TRUETRACE_HEADER_END::"),
		     "both TRACE_LITTLE_ENDIAN and TRACE_BIG_ENDIAN");
	expect_error("junk item", HDR("TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::TRUE"),
		     "no TRACE_HEADER_END");
	expect_error("junk before item", HDR("TRACE_HEADER_BEGIN::junkTRACE_LITTLE_ENDIAN::TRUE"
					     "TRACE_HEADER_END::"),
		     "malformed header at byte 20");
	expect_error("bad number", HDR("TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::TRUE"
				       "TRACE_SYSPAGE_LEN::12abTRACE_HEADER_END::"),
		     "TRACE_SYSPAGE_LEN value '12ab' is not a number");
	expect_error("huge number", HDR("TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::TRUE"
					"TRACE_SYSPAGE_LEN::99999999999999999999999TRACE_HEADER_END::"),
		     "is not a number");
	expect_error("syspage too big", HDR("TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::TRUE"
					    "TRACE_SYSPAGE_LEN::0x10000TRACE_HEADER_END::"),
		     "TRACE_SYSPAGE_LEN 65536 runs past the end of the file: the syspage would "
		     "start at byte 89");
	expect_error("encoding", HDR("TRACE_HEADER_BEGIN::TRACE_BIG_ENDIAN::TRUE"
				     "TRACE_ENCODING::32 byte eventsTRACE_HEADER_END::"),
		     "TRACE_ENCODING '32 byte events' is not supported");
	expect_error("endian FALSE", HDR("TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::FALSE"
					 "TRACE_HEADER_END::"),
		     "neither TRACE_LITTLE_ENDIAN::TRUE nor TRACE_BIG_ENDIAN::TRUE");
	expect_error("endian not a boolean", HDR("TRACE_HEADER_BEGIN::TRACE_BIG_ENDIAN::yes"
						 "TRACE_HEADER_END::"),
		     "byte order unknown");
#undef HDR

	/* need_more: a cut header (a .kev still being written) may still become valid, a
	 * malformed one never (tracetap decode --follow waits on the first, fails on the other) */
	{
		static const char *const cut[] = { "", "TRACE_HEAD", "TRACE_HEADER_BEGIN::TRACE_CPU",
			"TRACE_HEADER_BEGIN::TRACE_LITTLE_ENDIAN::TRUETRACE_SYSPAGE_LEN::8"
			"TRACE_HEADER_END::abc" };
		static const char *const bad[] = { "garbage", "TRACE_HEADER_BEGIN::TRACE_CPU_NUM::x"
			"TRACE_LITTLE_ENDIAN::TRUETRACE_HEADER_END::",
			"TRACE_HEADER_BEGIN::TRACE_HEADER_END::" };
		struct tt_qnx_header hh;
		for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
			hh.need_more = false;
			CHECK(tt_qnx_parse_header((const uint8_t *)cut[i], strlen(cut[i]), &hh, err,
						  sizeof(err)) == -EPROTO && hh.need_more);
		}
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			hh.need_more = true;
			CHECK(tt_qnx_parse_header((const uint8_t *)bad[i], strlen(bad[i]), &hh, err,
						  sizeof(err)) == -EPROTO && !hh.need_more);
		}
	}

	/* A header with no events, no syspage, and user attributes is fine. */
	const char *ok = "TRACE_HEADER_BEGIN::TRACE_BIG_ENDIAN::TRUETRACE_MY_ATTR::a::b"
			 "TRACE_HEADER_END::";
	struct kevw e = { .buf = (uint8_t *)ok, .len = strlen(ok) };
	struct klog l = { 0 };
	CHECK_EQ(kev_decode(&e, 0, &l, NULL, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 0);
	klog_free(&l);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* Mutations: random bytes anywhere (header, syspage, events), random events with every class,
 * struct type and CPU, random cuts. The checks are ASan/UBSan's and klog_cb's (args, raw and
 * JSON within bounds). */
static void check_mutations(void)
{
	struct kevw k;
	struct klog l = { 0 };
	char err[256];

	good_file(&k);
	for (unsigned i = 0; i < 300; i++)
		kevw_event(&k, rnd(), rnd() % 4096, rnd(), rnd());
	size_t len = k.len;
	uint8_t *orig = malloc(len);
	memcpy(orig, k.buf, len);
	for (unsigned it = 0; it < 4000; it++) {
		memcpy(k.buf, orig, len);
		k.len = len;
		unsigned nmut = 1 + rnd() % 8;
		for (unsigned m = 0; m < nmut; m++) {
			size_t at = it % 2 ? rnd() % 200 : rnd() % len; /* header-heavy half */
			k.buf[at] = (uint8_t)rnd();
		}
		if (it % 3 == 0)
			k.len = rnd() % (len + 1);
		int rc = kev_decode(&k, it % 5 ? 0 : 1 + rnd(), &l, NULL, err, sizeof(err));
		CHECK(rc == 0 || ((rc == -EPROTO || rc == -ENODATA) && err[0]));
	}
	/* Pure garbage of every small length. */
	for (unsigned it = 0; it < 2000; it++) {
		k.len = rnd() % 300;
		for (size_t i = 0; i < k.len; i++)
			k.buf[i] = (uint8_t)rnd();
		int rc = kev_decode(&k, 0, &l, NULL, err, sizeof(err));
		CHECK(rc == -EPROTO && err[0]);
	}
	free(orig);
	kevw_free(&k);
	klog_free(&l);
}

int main(void)
{
	check_headers();
	check_mutations();
	return tt_test_done();
}
