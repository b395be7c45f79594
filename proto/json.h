/* proto/json.h: the JSON encoding of records (schema: proto/PROTOCOL.md), the one encoder
 * every consumer's bytes come from. No allocation, no printf; one record becomes one JSON object
 * on one line (no trailing newline).
 */
#ifndef TT_JSON_H
#define TT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* Upper bound of one encoded record (names are truncated to TT_JSON_MAX_NAME bytes; argument
 * texts, gap reasons and bases to TT_JSON_MAX_TEXT; raw words to TT_JSON_MAX_RAW: a NuttX note
 * is up to 255 bytes, its printf/mark text up to 240 characters, its data up to 480 hex digits). */
#define TT_JSON_MAX_NAME 64
#define TT_JSON_MAX_TEXT 512
#define TT_JSON_MAX_RAW 64
#define TT_JSON_MAX_RECORD 8192

/* Encodes rec as {"type":"event"|"gap"|"reset","target":...,"seq":...,...} into buf.
 * target is borrowed (NULL: omitted). Returns the length written (no NUL added unless room is
 * left) or -ENOSPC when cap is too small (nothing usable written). */
int tt_json_record(char *buf, size_t cap, const struct tt_record *rec, const char *target,
		   uint64_t seq);

/* Appends s as a JSON string literal (quotes included), escaping as needed, truncated to max
 * bytes of input. Returns bytes written or -ENOSPC. */
int tt_json_string(char *buf, size_t cap, const char *s, size_t max);

#endif
