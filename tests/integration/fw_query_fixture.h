/* tests/integration/fw_query_fixture.h: the types of fw_query_fixture.c, also compiled into
 * test_fw_query.c so the compiler, not fw/, says what their offsets and sizes are. */
#ifndef FW_QUERY_FIXTURE_H
#define FW_QUERY_FIXTURE_H

struct tt_q_s {
	char a;
	int b;
	long c[3];
	void *p;
	short d;
};
union tt_q_u {
	int i;
	double d;
	char s[13];
};
enum tt_q_e { TT_Q_A = 3, TT_Q_B = 41 };

#endif
