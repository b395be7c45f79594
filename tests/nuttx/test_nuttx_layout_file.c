/* tests/nuttx/test_nuttx_layout_file.c: NuttX's own members of a layout file through the
 * reader's ops (reader.h: layout_write, layout_load), without the file's JSON: what layout_write
 * gives for a layout with syscall names and read-only data (expected items written here by
 * hand), the same read back by layout_load, and each refusal with its message. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "../../proto/nuttx.h"
#include "../../proto/reader.h"
#include "../tt_test.h"

#define MAXI 64

/* What layout_write wrote: options and items, each with the member it went into. */
struct rec {
	size_t n;
	struct {
		char what; /* 'o' option, 'b' begin (array: text "[]", object "{}"), 'i' item */
		char key[32];
		char text[64];
		bool null;
	} e[MAXI];
};

static int add(struct rec *r, char what, const char *key, const char *text)
{
	if (r->n == MAXI)
		return -ENOMEM;
	r->e[r->n].what = what;
	snprintf(r->e[r->n].key, sizeof(r->e[r->n].key), "%s", key ? key : "");
	snprintf(r->e[r->n].text, sizeof(r->e[r->n].text), "%s", text ? text : "");
	r->e[r->n].null = !text;
	r->n++;
	return 0;
}

static int rec_option(void *arg, const char *key, const char *value)
{
	return add(arg, 'o', key, value);
}

static int rec_begin(void *arg, const char *key, bool array)
{
	return add(arg, 'b', key, array ? "[]" : "{}");
}

static int rec_item(void *arg, const char *key, const char *text)
{
	return add(arg, 'i', key, text);
}

/* A format object for layout_load: members of up to 8 items, written by the test. */
struct member {
	const char *key;
	enum tt_layout_kind kind;
	size_t n;
	struct tt_layout_item item[8];
};
struct object {
	const struct member *m;
	size_t n;
	size_t asked_max[4]; /* the max each get was called with */
	unsigned gets;
};

static int obj_get(void *arg, const char *key, size_t max, struct tt_layout_value *v)
{
	struct object *o = arg;

	if (o->gets < 4)
		o->asked_max[o->gets] = max;
	o->gets++;
	for (size_t i = 0; i < o->n; i++) {
		if (strcmp(o->m[i].key, key))
			continue;
		*v = (struct tt_layout_value){ o->m[i].kind, o->m[i].n,
					       o->m[i].n > max ? NULL : o->m[i].item };
		return 0;
	}
	return -ENOENT;
}

static const struct tt_reader_ops *nuttx(void)
{
	const struct tt_reader_ops *r = tt_reader_find("nuttx");

	REQUIRE(r && r->layout_write && r->layout_load && r->cfg_free);
	return r;
}

/* Writing: the options first (release first), then syscalls as an array with null for the
 * unread entry, then the read-only strings with a conversion, keyed by address. */
static void test_write(void)
{
	static const char *const names[] = { "_exit", NULL, "getpid" };
	const struct tt_nuttx_syscalls sc = { 3, names };
	/* "x", "%d items" at +2, a byte that is not text then "bad %s" at +12, "plain" */
	static const uint8_t ro_bytes[] = "x\0%d items\0\001bad %s\0plain";
	const struct tt_nuttx_seg seg = { 0x1000, sizeof(ro_bytes), ro_bytes };
	const struct tt_nuttx_mem ro = { 1, &seg };
	struct tt_nuttx_layout lo;
	struct rec r = { 0 };
	const struct tt_layout_out out = { &r, rec_option, rec_begin, rec_item };

	tt_nuttx_layout_default(&lo, 4);
	lo.syscalls = &sc;
	lo.rodata = &ro;
	REQUIRE_EQ(nuttx()->layout_write(&lo, &out), 0);
	REQUIRE(r.n > 8);
	CHECK_EQ(r.e[0].what, 'o');
	CHECK_STR(r.e[0].key, "release");
	size_t i = 0;
	while (i < r.n && r.e[i].what == 'o')
		i++;
	REQUIRE_EQ(r.n - i, (size_t)7);
	CHECK(r.e[i].what == 'b' && !strcmp(r.e[i].key, "syscalls") && !strcmp(r.e[i].text, "[]"));
	CHECK(r.e[i + 1].what == 'i' && !strcmp(r.e[i + 1].text, "_exit") && !r.e[i + 1].key[0]);
	CHECK(r.e[i + 2].what == 'i' && r.e[i + 2].null);
	CHECK(r.e[i + 3].what == 'i' && !strcmp(r.e[i + 3].text, "getpid"));
	CHECK(r.e[i + 4].what == 'b' && !strcmp(r.e[i + 4].key, "strings") &&
	      !strcmp(r.e[i + 4].text, "{}"));
	CHECK_STR(r.e[i + 5].key, "0x1002");
	CHECK_STR(r.e[i + 5].text, "%d items");
	CHECK_STR(r.e[i + 6].key, "0x100c");
	CHECK_STR(r.e[i + 6].text, "bad %s");
}

/* Reading: the names and strings land in the layout (freed by cfg_free). */
static void test_load(void)
{
	const struct member m[] = {
		{ "syscalls", TT_LAYOUT_ARRAY, 3, { { NULL, "_exit", false }, { NULL, NULL, true },
						   { NULL, "getpid", false } } },
		{ "strings", TT_LAYOUT_OBJECT, 2, { { "0x1002", "%d items", false },
						   { "4108", "bad %s", false } } },
		{ "unknown", TT_LAYOUT_OTHER, 0, { { NULL, NULL, false } } },
	};
	struct object o = { m, 3, { 0 }, 0 };
	const struct tt_layout_in in = { &o, obj_get };
	struct tt_nuttx_layout lo;
	char err[256] = "";

	tt_nuttx_layout_default(&lo, 4);
	CHECK_EQ(nuttx()->layout_load(&lo, &in, err, sizeof(err)), 0);
	CHECK_EQ(o.asked_max[0], (size_t)4096);
	REQUIRE(lo.syscalls && lo.syscalls->n == 3);
	CHECK_STR(lo.syscalls->names[0], "_exit");
	CHECK(lo.syscalls->names[1] == NULL);
	CHECK_STR(lo.syscalls->names[2], "getpid");
	REQUIRE(lo.rodata && lo.rodata->n == 2);
	CHECK_EQ(lo.rodata->seg[0].addr, (uint64_t)0x1002);
	CHECK_EQ(lo.rodata->seg[0].len, 9u); /* with its NUL */
	CHECK(!memcmp(lo.rodata->seg[0].data, "%d items", 9));
	CHECK_EQ(lo.rodata->seg[1].addr, (uint64_t)4108);
	nuttx()->cfg_free(&lo);
	CHECK(!lo.syscalls && !lo.rodata);
}

/* One member, refused with msg (and what the load put in the layout still released). */
static void refused(const struct member *m, size_t n, const char *msg)
{
	struct object o = { m, n, { 0 }, 0 };
	const struct tt_layout_in in = { &o, obj_get };
	struct tt_nuttx_layout lo;
	char err[256] = "";

	tt_nuttx_layout_default(&lo, 4);
	CHECK_EQ(nuttx()->layout_load(&lo, &in, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, msg);
	nuttx()->cfg_free(&lo);
}

static void test_refused(void)
{
	const struct member obj = { "syscalls", TT_LAYOUT_OBJECT, 0, { { 0 } } };
	refused(&obj, 1, "nuttx.syscalls: expected an array of at most 4096 names (or null "
			 "entries)");
	const struct member many = { "syscalls", TT_LAYOUT_ARRAY, 4097, { { 0 } } };
	refused(&many, 1, "nuttx.syscalls: expected an array of at most 4096 names (or null "
			  "entries)");
	const struct member longname = {
		"syscalls", TT_LAYOUT_ARRAY, 2,
		{ { NULL, "ok", false },
		  { NULL, "a_name_of_sixty_four_characters_is_one_more_than_a_name_may_have", false } }
	};
	refused(&longname, 1, "nuttx.syscalls[1]: not a name of at most 63 characters, nor null");
	const struct member number = { "syscalls", TT_LAYOUT_ARRAY, 1, { { NULL, NULL, false } } };
	refused(&number, 1, "nuttx.syscalls[0]: not a name of at most 63 characters, nor null");
	/* a good syscall list, then bad strings: the names loaded first are released too */
	const struct member badkey[] = {
		{ "syscalls", TT_LAYOUT_ARRAY, 1, { { NULL, "_exit", false } } },
		{ "strings", TT_LAYOUT_OBJECT, 1, { { "zz", "%d", false } } },
	};
	refused(badkey, 2, "nuttx.strings.zz: expected an address key and a string of less than "
			   "4096 characters");
	const struct member notext = { "strings", TT_LAYOUT_OBJECT, 1, { { "0x10", NULL, false } } };
	refused(&notext, 1, "nuttx.strings.0x10: expected an address key and a string of less "
			    "than 4096 characters");
	const struct member arr = { "strings", TT_LAYOUT_ARRAY, 0, { { 0 } } };
	refused(&arr, 1, "nuttx.strings is not an object");
}

int main(void)
{
	test_write();
	test_load();
	test_refused();
	return tt_test_done();
}
