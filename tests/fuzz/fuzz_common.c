/* tests/fuzz/fuzz_common.c: the record check every reader harness uses (fuzz.h). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "json.h"

uint64_t fz_events;

void fz_check_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		int k = tt_json_utf8_len(s + i, n - i);
		if (k <= 0 || c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char)s[i + 1] < 0xa0))
			abort();
		i += (size_t)k;
	}
}

void fz_record(void *arg, const struct tt_record *rec)
{
	static char buf[TT_JSON_MAX_RECORD];
	volatile size_t sum = 0;

	(void)arg;
	int n = tt_json_record(buf, sizeof(buf), rec, "fuzz", 1);
	if (n < 0)
		abort(); /* the encoder's bound must hold for any record a reader emits */
	fz_check_text(buf, (size_t)n); /* whatever the bytes of the names: UTF-8 text */
	if (rec->kind == TT_REC_EVENT) {
		const struct tt_event *ev = &rec->u.ev;
		sum += strlen(ev->name) + (ev->thread_name ? strlen(ev->thread_name) : 0) +
		       (ev->interrupted_name ? strlen(ev->interrupted_name) : 0);
		for (unsigned i = 0; i < ev->nargs; i++)
			sum += strlen(ev->args[i].name) +
			       (ev->args[i].text ? strlen(ev->args[i].text) : 0);
		for (unsigned i = 0; i < ev->nraw; i++)
			sum += ev->raw[i];
		fz_events++;
	} else if (rec->kind == TT_REC_GAP) {
		sum += strlen(rec->u.gap.reason);
	} else {
		sum += strlen(rec->u.reset.reason);
	}
	(void)sum;
}
