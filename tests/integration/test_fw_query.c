/* tests/integration/test_fw_query.c: fw/fw.h's neutral DWARF queries on an ELF built with -g
 * from fw_query_fixture.c: what they answer is what this file's compiler says (offsetof,
 * sizeof) about the same types, and what tt_elf_symbol says about the same variables.
 * Usage: test_fw_query FIXTURE_G STRIPPED NOT_AN_ELF */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "fw.h"
#include "fw_query_fixture.h"
#include "ttest.h"

static void members(const struct tt_fw *fw)
{
	uint64_t st = tt_fw_type(fw, "tt_q_s", NULL), m, off = 99, n = 0;
	static const struct {
		const char *name;
		size_t off, size;
	} want[] = {
		{ "a", offsetof(struct tt_q_s, a), 1 },
		{ "b", offsetof(struct tt_q_s, b), sizeof(int) },
		{ "c", offsetof(struct tt_q_s, c), sizeof(long[3]) },
		{ "p", offsetof(struct tt_q_s, p), sizeof(void *) },
		{ "d", offsetof(struct tt_q_s, d), sizeof(short) },
	};

	REQUIRE(st != 0);
	REQUIRE_EQ(tt_fw_size(fw, st), sizeof(struct tt_q_s));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		REQUIRE((m = tt_fw_member(fw, st, want[i].name)) != 0);
		REQUIRE_EQ(tt_fw_member_offset(fw, m, &off), 0);
		REQUIRE_EQ(off, want[i].off);
		REQUIRE_EQ(tt_fw_size(fw, m), want[i].size);
	}
	REQUIRE_EQ(tt_fw_member(fw, st, "nope"), 0);
	REQUIRE_EQ(tt_fw_array_len(fw, tt_fw_member(fw, st, "c"), &n), 0);
	REQUIRE_EQ(n, 3);
	REQUIRE_EQ(tt_fw_array_len(fw, tt_fw_member(fw, st, "b"), &n), -1);
	REQUIRE(tt_fw_is_pointer(fw, tt_fw_member(fw, st, "p")));
	REQUIRE(!tt_fw_is_pointer(fw, tt_fw_member(fw, st, "b")));
	REQUIRE_EQ(tt_fw_size(fw, tt_fw_type(fw, "tt_q_u", NULL)), sizeof(union tt_q_u));
}

static void enums_and_vars(const struct tt_fw *fw, const char *path)
{
	uint64_t e = tt_fw_type(fw, "tt_q_e", NULL), v, sym = 0, p = 0, n = 0;
	int64_t val = 0;
	char err[256], s[16] = { 0 };

	REQUIRE(e != 0);
	REQUIRE(tt_fw_enumerator(fw, e, "TT_Q_B", &val));
	REQUIRE_EQ(val, TT_Q_B);
	REQUIRE(tt_fw_enumerator(fw, 0, "TT_Q_A", &val));
	REQUIRE_EQ(val, TT_Q_A);
	REQUIRE(!tt_fw_enumerator(fw, e, "TT_Q_C", &val));
	REQUIRE((v = tt_fw_variable(fw, "tt_q_var")) != 0);
	REQUIRE_EQ(tt_elf_symbol(path, "tt_q_var", &sym, err, sizeof(err)), 0);
	REQUIRE_EQ(tt_fw_var_addr(fw, v), sym);
	REQUIRE_EQ(tt_fw_type_of(fw, v), tt_fw_type(fw, "tt_q_s", NULL));
	REQUIRE(tt_fw_is_pointer(fw, tt_fw_variable(fw, "tt_q_ptr")));
	/* the string a pointer in .rodata points to, read from the ELF */
	REQUIRE((v = tt_fw_variable(fw, "tt_q_strs")) != 0);
	REQUIRE_EQ(tt_fw_array_len(fw, v, &n), 0);
	REQUIRE_EQ(n, 2);
	REQUIRE_EQ(tt_fw_read(fw, tt_fw_var_addr(fw, v), &p, sizeof(void *)), 0);
	REQUIRE_EQ(tt_fw_read(fw, p, s, 9), 0);
	REQUIRE_STR(s, "hello fw");
	REQUIRE_EQ(tt_fw_read(fw, 0x10, s, 4), -1); /* no section there */
	REQUIRE_EQ(tt_fw_variable(fw, "tt_q_none"), 0);
}

/* the string is in one of the read-only sections, at its address */
static void rodata(const struct tt_fw *fw)
{
	uint64_t v = tt_fw_variable(fw, "tt_q_strs"), p = 0, addr;
	const uint8_t *data;
	size_t len;
	int found = 0;

	REQUIRE_EQ(tt_fw_read(fw, tt_fw_var_addr(fw, v), &p, sizeof(void *)), 0);
	for (unsigned i = 0; tt_fw_rodata(fw, i, &addr, &data, &len) == 0; i++)
		if (p >= addr && p - addr + 9 <= len && !memcmp(data + (p - addr), "hello fw", 9))
			found = 1;
	REQUIRE(found);
}

int main(int argc, char **argv)
{
	struct tt_fw *fw;
	char err[512];

	REQUIRE(argc == 4);
	REQUIRE_EQ(tt_fw_open(argv[1], "types", &fw, err, sizeof(err)), 0);
	REQUIRE(tt_fw_has_dwarf(fw));
	REQUIRE_EQ(tt_fw_class_bytes(fw), sizeof(void *));
	REQUIRE(!tt_fw_big_endian(fw) == (*(const uint8_t *)&(const uint16_t){ 1 } == 1));
	REQUIRE_STR(tt_fw_path(fw), argv[1]);
	members(fw);
	enums_and_vars(fw, argv[1]);
	rodata(fw);
	tt_fw_close(fw);
	/* stripped: opens, no DWARF, every lookup answers none */
	REQUIRE_EQ(tt_fw_open(argv[2], "types", &fw, err, sizeof(err)), 0);
	REQUIRE(!tt_fw_has_dwarf(fw));
	REQUIRE_EQ(tt_fw_type(fw, "tt_q_s", NULL), 0);
	REQUIRE_EQ(tt_fw_variable(fw, "tt_q_var"), 0);
	tt_fw_close(fw);
	REQUIRE_EQ(tt_fw_open(argv[3], "types", &fw, err, sizeof(err)), -ENOEXEC);
	REQUIRE_SUBSTR(err, "not an ELF file (looking for types)");
	REQUIRE_EQ(tt_fw_open("/nonexistent.elf", "types", &fw, err, sizeof(err)), -ENOENT);
	printf("ok\n");
	return tt_test_done();
}
