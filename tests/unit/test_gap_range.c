/* tests/unit/test_gap_range.c: a gap's range (lower, upper) on the wire and back.
 *
 * proto/json.c writes it, export/record_json.c reads it back (what an MQTT subscriber and
 * `tracetap tail` receive), client/textfmt.c shows it on the gap line: an estimate with both
 * bounds, one with no upper bound (nothing caps it), and an exact count (no range at all). */
#include <string.h>

#include "../tt_test.h"
#include "json.h"
#include "record.h"
#include "../../client/textfmt.h"
#include "../../export/record_json.h"

/* rec to JSON and back; *back holds the parsed record (its strings borrowed from *o). */
static void round_trip(const struct tt_record *rec, cJSON **o, struct tt_record_json *back)
{
	char buf[TT_JSON_MAX_RECORD];
	int n = tt_json_record(buf, sizeof(buf), rec, "board1", 7);
	CHECK(n > 0);
	*o = cJSON_Parse(buf);
	CHECK(*o != NULL);
	CHECK_EQ(tt_record_from_json(*o, back), 0);
}

static void line_of(const struct tt_record *rec, char *buf, size_t cap)
{
	const struct tt_textfmt tf = { 0 };
	CHECK(tt_textfmt_record(&tf, buf, cap, rec, 7) > 0);
}

int main(void)
{
	struct tt_record r = { .kind = TT_REC_GAP };
	struct tt_record_json back;
	cJSON *o;
	char line[512];

	r.u.gap = (struct tt_gap){ .lost = 177, .exact = false, .basis = "time stamps and event rate",
				   .reason = "lapped", .lower = 113, .upper = 4209 };
	round_trip(&r, &o, &back);
	CHECK_EQ(cJSON_GetObjectItemCaseSensitive(o, "lower")->valuedouble, 113);
	CHECK_EQ(cJSON_GetObjectItemCaseSensitive(o, "upper")->valuedouble, 4209);
	CHECK_EQ(back.rec.u.gap.lost, 177);
	CHECK_EQ(back.rec.u.gap.lower, 113);
	CHECK_EQ(back.rec.u.gap.upper, 4209);
	line_of(&back.rec, line, sizeof(line));
	CHECK_MSG(strstr(line, "about 177 events lost") && strstr(line, "[113..4209]"), "%s", line);
	cJSON_Delete(o);

	/* nothing caps it: no upper on the wire, none shown */
	r.u.gap.upper = TT_GAP_NO_UPPER;
	round_trip(&r, &o, &back);
	CHECK(cJSON_GetObjectItemCaseSensitive(o, "upper") == NULL);
	CHECK_EQ(back.rec.u.gap.lower, 113);
	CHECK(back.rec.u.gap.upper == TT_GAP_NO_UPPER);
	line_of(&back.rec, line, sizeof(line));
	CHECK_MSG(strstr(line, "[113 or more]") != NULL, "%s", line);
	cJSON_Delete(o);

	/* exact: no range */
	r.u.gap = (struct tt_gap){ .lost = 5, .exact = true, .reason = "lapped" };
	round_trip(&r, &o, &back);
	CHECK(cJSON_GetObjectItemCaseSensitive(o, "lower") == NULL);
	CHECK_EQ(back.rec.u.gap.upper, 0);
	line_of(&back.rec, line, sizeof(line));
	CHECK_MSG(strchr(line, '[') == NULL, "%s", line);
	cJSON_Delete(o);
	return tt_test_done();
}
