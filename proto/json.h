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
 * bytes of input. Returns bytes written or -ENOSPC.
 *
 * Text rule (tt_json_record too): whatever bytes a target, a file or a broker put in a name,
 * the JSON is valid UTF-8. Each byte that does not start a valid UTF-8 character (a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, a sequence cut short by a
 * NUL) becomes U+FFFD, and the max-byte cut falls between characters, never inside one.
 * Control characters, C0 and C1 (U+0080..U+009F), are written as \u escapes. */
int tt_json_string(char *buf, size_t cap, const char *s, size_t max);

/* The UTF-8 character at s, of which at most n bytes may be read (reading also stops at a
 * NUL): its length 1 to 4 when valid; 0 when the byte at s starts no valid character; -1 when
 * it starts a valid one that n cuts short. The one UTF-8 check the encoders and the client's
 * text output share. */
int tt_json_utf8_len(const char *s, size_t n);

#endif
