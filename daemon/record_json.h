/* daemon/record_json.h: a record object from the wire (proto/PROTOCOL.md) back into a
 * struct tt_record, so clients print what they receive with the same formatter as
 * `tracetap decode` (daemon/textfmt.h). */
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

/* Fills out from o. Every string stays borrowed from o: keep o alive while using out.
 * Returns 0, or -EINVAL when o is not a record (no or unknown "type"). */
int tt_record_from_json(const cJSON *o, struct tt_record_json *out);

#endif
