/* tests/server/synth.h: synthetic records and small checks for the server tests.
 *
 * Records are real struct tt_record values shaped like the ThreadX reader's output (a
 * context-switch workload over a few named threads, user events, a queue), so the hub, the
 * server and the exports see what they will see from a live target.
 */
#ifndef TT_TEST_SYNTH_H
#define TT_TEST_SYNTH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../proto/record.h"
#include "../tt_test.h"

struct synth {
	uint64_t n;        /* records made so far */
	uint32_t raw[8];
	uint64_t time;
	struct tt_record rec;
};

/* Makes the next record of a deterministic workload into s->rec (valid until the next call):
 * mostly THREAD_RESUME/THREAD_SUSPEND switches between "producer", "consumer" and "idle",
 * QUEUE_SEND, USER_EVENT (id 4096 + k) and ISR events; every 1000th is a gap record. */
const struct tt_record *synth_next(struct synth *s);
/* Same workload without gaps/resets (all events). */
const struct tt_record *synth_event(struct synth *s, unsigned kind);

/* Thread pointers and names used by the workload. */
extern const uint32_t synth_threads[3];
extern const char *const synth_thread_names[3];
#define SYNTH_QUEUE 0x20002000u

/* Monotonic time in seconds. */
double now_s(void);

/* A growing NUL-terminated byte buffer; synth_buf_put is a tt_export_write_cb (arg: the buffer).
 * Free p when done. */
struct synth_buf {
	char *p;
	size_t len, cap;
};
int synth_buf_put(void *arg, const void *data, size_t len);

/* Whether two JSON records are equal once the keys in skip are removed from both; prints both
 * when they differ. */
bool synth_json_same(const char *a, const char *b, const char *const *skip, size_t nskip);

#endif
