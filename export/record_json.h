/* export/record_json.h: a record object from the wire (proto/PROTOCOL.md) back into a
 * struct tt_record, so clients print what they receive with the same formatter as
 * `tracetap decode` (client/textfmt.h). */
#ifndef TT_RECORD_JSON_H
#define TT_RECORD_JSON_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "../proto/record.h"

/* What the record's pointers point into besides the cJSON object itself. */
struct tt_record_json {
	struct tt_record rec;
	uint32_t raw[16];
	uint64_t seq;
	const char *target; /* borrowed from the object, or NULL */
};

/* JSON numbers (doubles) into integers, saturating: NaN and values below the range give the
 * lowest value, values above it the highest; fractions are dropped. */
uint64_t tt_json_u64(double d);
uint32_t tt_json_u32(double d);
int32_t tt_json_i32(double d);

/* Member k of object o (case-sensitive): its number, def when absent or not a number; its
 * string (borrowed from o), NULL when absent or not a string. */
double tt_json_num(const cJSON *o, const char *k, double def);
const char *tt_json_str(const cJSON *o, const char *k);

/* Fills out from o. Events without a name get "UNKNOWN", gaps and resets without a reason
 * "unknown". Every string stays borrowed from o: keep o alive while using out.
 * Returns 0, or -EINVAL when o is not a record (no or unknown "type"). */
int tt_record_from_json(const cJSON *o, struct tt_record_json *out);

#endif
