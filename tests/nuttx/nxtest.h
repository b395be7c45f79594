/* tests/nuttx/nxtest.h: collecting emitted records for checks (copies, since records are only
 * valid during the callback), and driving a live reader over an nxw target. */
#ifndef NXTEST_H
#define NXTEST_H

#include "nxwriter.h"
#include "record.h"

struct nxrec {
	enum tt_rec_kind kind;
	char name[40];
	uint32_t id, thread, nraw;
	int32_t prio;
	int16_t core;
	char thread_name[40];
	uint64_t time, ns, addr, lost;
	uint32_t ts;
	bool has_ns, exact;
	unsigned nargs;
	char argname[TT_MAX_ARGS][16];
	char argtext[TT_MAX_ARGS][170]; /* text, or the value in decimal/hex as JSON shows it */
	char reason[96];
	char basis[96];       /* a gap's: what its estimate rests on; "" for a lower bound */
	uint64_t lower, upper; /* a gap's range (upper 0: none stated) */
};

struct nxlog {
	struct nxrec *r;
	size_t n, cap;
};

void nxlog_cb(void *arg, const struct tt_record *rec);
void nxlog_clear(struct nxlog *l);
/* The text of argument name of record r, or NULL. */
const char *nxarg(const struct nxrec *r, const char *name);

#endif
