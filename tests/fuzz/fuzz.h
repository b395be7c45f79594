/* tests/fuzz/fuzz.h: what the libFuzzer harnesses share (tests/fuzz/README.md).
 *
 * Every harness defines LLVMFuzzerTestOneInput; records a reader emits go through fz_record,
 * which encodes each one as JSON the way the hub does and reads every string it points to, so
 * the sanitizers see a bad pointer or a record that does not fit. */
#ifndef TT_FUZZ_H
#define TT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* tt_emit_cb: arg is unused (may be NULL). Aborts when a record does not encode. */
void fz_record(void *arg, const struct tt_record *rec);
/* The text rule, for output that reaches a browser or a terminal: n bytes of valid UTF-8 with
 * no control character (C0, DEL, C1); aborts otherwise. */
void fz_check_text(const char *s, size_t n);
/* Events seen by fz_record since the start (the smoke drivers check their seeds decode). */
extern uint64_t fz_events;

#endif
