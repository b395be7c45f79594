/* probe/openocd_read.c: a plan's reads as OpenOCD TCL commands and their replies (for
 * probe/openocd.c): the plan's ranges merged into runs and cut into read_memory calls, as many
 * as fit in one command, a TT_RANGE_TO_PTR range read by TT_TCL_RING in the same command as its
 * pointer when it can be, the whole wrapped with OpenOCD's background polling off while the
 * reads run; every reply parsed strictly and scattered into the plan's buffers.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "openocd_int.h"

/* The next read_memory of the plan (0), or 1 when the plan is read. A TT_RANGE_TO_PTR range
 * is a run of its own, [pos, end) = [0, 1) until it is taken (pos = end). */
static int ocd_next_read(struct ocd *o, struct ocd_op *op)
{
	const struct tt_plan *plan = &o->base.plan;
	const struct tt_range *r;

	if (o->pos == o->end) {
		if (o->run_end == plan->n)
			return 1;
		o->run_first = o->run_end;
		r = &plan->r[o->run_first];
		o->run_end = r->kind == TT_RANGE_FIXED ? tt_tcl_run_end(plan, o->run_first)
						       : o->run_first + 1;
		o->pos = r->kind == TT_RANGE_FIXED ? r->addr : 0;
		o->end = r->kind == TT_RANGE_FIXED
				 ? plan->r[o->run_end - 1].addr + plan->r[o->run_end - 1].len : 1;
	}
	r = &plan->r[o->run_first];
	if (r->kind != TT_RANGE_FIXED) {
		*op = (struct ocd_op){ .addr = r->addr, .len = r->len, .width = 32, .ring = 1,
				       .run_first = o->run_first, .run_end = o->run_end };
		return 0;
	}
	*op = (struct ocd_op){ .addr = o->pos, .run_first = o->run_first, .run_end = o->run_end };
	tt_tcl_next_op(o->pos, o->end, o->max_chunk, &op->len, &op->width);
	return 0;
}

/* The Tcl word giving the pointer of ring op: the result of a read in this batch (ops[0, n)
 * are in it) that read the pointer's word alone at width 32, or its value when an earlier
 * command read it. 0, or -EAGAIN when the ring must start a command of its own. */
static int ocd_ring_ptr(const struct ocd *o, const struct ocd_op *op, unsigned n, char *out,
			size_t outlen)
{
	const struct tt_plan *plan = &o->base.plan;
	const struct tt_range *r = &plan->r[op->run_first], *pr = &plan->r[r->ptr_range];
	uint64_t wa = pr->addr + r->ptr_off;

	for (unsigned j = 0; j < n; j++) {
		const struct ocd_op *q = &o->ops[j];
		if (!q->ring && q->width == 32 && q->run_first <= r->ptr_range &&
		    r->ptr_range < q->run_end && q->addr <= wa && wa + 4 <= q->addr + q->len &&
		    (wa - q->addr) % 4 == 0) {
			snprintf(out, outlen, "[lindex $tt_%u %u]", j, (unsigned)((wa - q->addr) / 4));
			return 0;
		}
	}
	if (n > 0 && r->ptr_range >= o->b_run_first)
		return -EAGAIN; /* read by this command, but not as one word */
	const uint8_t *b = pr->dst + r->ptr_off; /* as tt_tcl_parse_words stored it */
	snprintf(out, outlen, "0x%" PRIx32, (uint32_t)b[0] | (uint32_t)b[1] << 8 |
		 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
	return 0;
}

/* Sends the next reads of the plan as one command: "join [list [set tt_0 [read_memory ..]]
 * .. [tt_ring ..]] |", as many as fit in max_chunk bytes (a ring's bytes not counted: the
 * reply's limit allows for them), OCD_BATCH_MAX calls and the command buffer. The first
 * command of a link that reads a ring defines TT_TCL_RING first. */
void ocd_send_reads(struct ocd *o)
{
	const char *verb = o->md_fallback ? TT_TCL_READ_MD : "read_memory";
	uint32_t total = 0;
	size_t n = 0, start;
	struct ocd_op op;

	o->nops = 0;
	o->ring_sent = 0;
	o->b_run_first = o->run_first;
	o->b_run_end = o->run_end;
	o->b_pos = o->pos;
	o->b_end = o->end;
	if (!o->ring_defined) {
		for (unsigned i = 0; i < o->base.plan.n; i++)
			o->ring_sent |= o->base.plan.r[i].kind != TT_RANGE_FIXED;
		if (o->ring_sent)
			n = (size_t)snprintf(o->cmd, o->cmdcap, "%s\n", tt_tcl_ring_proc);
	}
	start = n;
	n += (size_t)snprintf(o->cmd + n, o->cmdcap - n, "join [list");
	while (o->nops < (o->one_by_one ? 1u : OCD_BATCH_MAX) && ocd_next_read(o, &op) == 0) {
		char one[192], ptr[48];
		int k;

		if (op.ring) {
			if (ocd_ring_ptr(o, &op, o->nops, ptr, sizeof(ptr)) < 0)
				break;
			k = tt_tcl_format_ring(one + 1, sizeof(one) - 1, verb, ptr,
					       &o->base.plan.r[op.run_first], o->max_chunk);
			assert(k > 0); /* one holds the longest */
			one[0] = ' ';
			k++;
		} else {
			k = snprintf(one, sizeof(one), " [set tt_%u [%s 0x%" PRIx64 " %u %" PRIu32 "]]",
				     o->nops, verb, op.addr, op.width, op.len / (op.width / 8));
		}
		if (o->nops > 0 && ((!op.ring && total + op.len > o->max_chunk) ||
				    n + (size_t)k + 8 + TT_TCL_POLL_WRAP > o->cmdcap))
			break;
		memcpy(o->cmd + n, one, (size_t)k + 1);
		n += (size_t)k;
		if (!op.ring)
			total += op.len;
		o->pos = op.ring ? o->end : o->pos + op.len;
		o->ops[o->nops++] = op;
	}
	if (o->nops == 0) {
		ocd_finish(o, 0);
		return;
	}
	if (o->poll_wrap) { /* the reads inside: "poll off; ..." (TT_TCL_POLL_OFF) */
		size_t pre = strlen(TT_TCL_POLL_OFF), post = strlen(TT_TCL_POLL_ON);
		memmove(o->cmd + start + pre, o->cmd + start, n - start);
		memcpy(o->cmd + start, TT_TCL_POLL_OFF, pre);
		n += pre;
		memcpy(o->cmd + n, "] |", 3);
		memcpy(o->cmd + n + 3, TT_TCL_POLL_ON, post + 1);
	} else {
		memcpy(o->cmd + n, "] |", 4);
	}
	ocd_send(o, o->cmd);
}

/* The reply to a batch of reads: one result per read_memory (a TT_RANGE_TO_PTR range: one per
 * read TT_TCL_RING made), separated by '|'. Each is scattered as it is parsed, so a ring's
 * pointer read by the same command is in place when the ring's results are parsed. */
int ocd_batch_reply(struct ocd *o, const struct tt_tcl_msg *m)
{
	const struct tt_plan *plan = &o->base.plan;
	struct tt_tcl_segs g;
	const char *seg;
	size_t sn;
	char perr[160];

	tt_tcl_segs_init(&g, m->body, m->blen);
	for (unsigned i = 0; i < o->nops; i++) {
		const struct ocd_op *op = &o->ops[i];

		if (op->ring) {
			const struct tt_range *r = &plan->r[op->run_first];
			if (tt_tcl_parse_ring(&g, r, plan->r[r->ptr_range].dst + r->ptr_off,
					      o->max_chunk, perr, sizeof(perr)) < 0)
				goto bad;
			continue;
		}
		if (tt_tcl_segs_next(&g, &seg, &sn) < 0) {
			snprintf(perr, sizeof(perr), "no result");
			goto bad;
		}
		if (tt_tcl_parse_words(seg, sn, op->width, op->len / (op->width / 8), o->scratch,
				       perr, sizeof(perr)) < 0)
			goto bad;
		tt_tcl_scatter(plan, op->run_first, op->run_end, op->addr, o->scratch, op->len);
		continue;
bad:
		ocd_fail(o, -EPROTO, "bad reply to %s 0x%" PRIx64 " %u %" PRIu32
			 " (%u of %u in one command): %s", op->ring ? "the ring read at" : "read_memory",
			 op->addr, op->width, op->len / (op->width / 8), i + 1, o->nops, perr);
		return -EPROTO;
	}
	if (!g.done) {
		ocd_fail(o, -EPROTO, "more results than the %u reads of the command", o->nops);
		return -EPROTO;
	}
	if (o->ring_sent)
		o->ring_defined = 1;
	ocd_next_op(o);
	return 0;
}
