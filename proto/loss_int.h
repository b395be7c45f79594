/* proto/loss_int.h: how many events a gap in a ring buffer took, from the evidence a reader has.
 *
 * ThreadX's slot ring and NuttX's byte ring lose events the same way: the ring positions prove a
 * number of units lost (slots, bytes) up to whole laps of the ring, and the time stamps, the
 * host's clock and the event rate say how many laps there were, each with its own doubt (a time
 * stamp that wraps, a target clock that runs slower than the host's or stops, a rate that
 * changes). One estimator for both readers turns that evidence into an estimate and the range
 * the evidence allows; the readers only say what they measured. Reasoning: proto/README.md,
 * "Loss estimates".
 */
#ifndef TT_LOSS_INT_H
#define TT_LOSS_INT_H

#include <stdbool.h>
#include <stdint.h>

/* What a reader knows about one gap. Units are the ring's (events for ThreadX, bytes for
 * NuttX); ticks are the target's time source's. */
struct tt_loss_in {
	uint64_t lb;   /* units the ring positions prove lost: lost = lb + j * lap, j >= 0 */
	uint64_t lap;  /* units in one whole lap of the ring (> 0) */
	/* time stamps across the gap: from the last unit before it to the first after, d + w * mod
	 * ticks for some w >= 0 (mod 0: the stamps do not wrap, the span is d) */
	bool have_d;
	uint64_t d, mod;
	uint64_t rest; /* ticks the units kept after the gap span (first to newest) */
	/* the host's clock: ticks at the nominal tick rate between the read that published the
	 * unit before the gap and this one; 0 unknown */
	uint64_t host;
	/* ticks at the nominal rate between the read that last proved the ring intact (for a
	 * first read: that last saw tracing off) and this one: every lost unit was written in
	 * them; 0 unknown */
	uint64_t window;
	double clock;  /* target ticks per nominal tick, measured against the host; 0 unknown */
	double rate;   /* units per tick written recently (the mean), 0 unknown */
	double after;  /* units per tick of the units kept right after the gap, 0 unknown */
	double peak;   /* the fastest rate seen over a batch, 0 unknown */
	/* units per tick of the batch published last before the gap, with no read seeing the
	 * writer idle since; 0 unknown */
	double before;
	/* a read after the last unit before the gap saw the writer idle (nothing new, or the
	 * ring cleared): d and the mean rate describe writing that had stopped, and window counts
	 * from that read */
	bool idle;
};

/* How an estimate reads the rate across a gap. */
enum tt_loss_reading {
	TT_LOSS_MEAN, /* the mean rate */
	/* the mean rate's reading and the burst's are two readings, est their geometric mean, at
	 * most sqrt(high / low) off whichever holds */
	TT_LOSS_SPLIT,
	/* the burst came after the writer was seen idle (in.idle), with the host's window: the
	 * burst's reading from the middle of the window to the units kept (the mean rate's is no
	 * reading of writing that had stopped) */
	TT_LOSS_IDLE_START,
	/* the burst was on both sides of the gap (in.before fast too): the slower of the two
	 * rates over the whole time across it */
	TT_LOSS_ACROSS,
};

struct tt_loss_out {
	uint64_t est;   /* lb + j * lap, the number of laps the evidence supports */
	uint64_t lower; /* lb: what the ring positions prove */
	uint64_t upper; /* the most the evidence allows; TT_GAP_NO_UPPER when nothing caps it */
	bool from_time; /* est rests on the time stamps / host clock and the rate (else est = lb) */
	/* the units kept after the gap were written much faster than the mean (a burst the gap
	 * cut, of unknown length), and how est reads it (else TT_LOSS_MEAN: at the mean rate) */
	enum tt_loss_reading reading;
	/* est rests on the host's clock (the start of tracing in its window, wraps it added, or
	 * the window's cut) with the target's clock not measured against it yet: taken at the
	 * nominal tick rate, which a slower target clock (an emulated CPU, a debugger halt, a
	 * sleep mode) turns into too many ticks */
	bool nominal;
};

/* The basis of an estimate between two readings (TT_LOSS_SPLIT), of a burst's reading after
 * the writer was seen idle (TT_LOSS_IDLE_START) or across the gap (TT_LOSS_ACROSS), and of one
 * on the host's clock at the nominal tick rate (tt_loss_out.nominal). */
#define TT_LOSS_BASIS_SPLIT "a burst cut by the gap: between the mean rate's and the burst's " \
			    "reading over the time stamps; the range is what is known"
#define TT_LOSS_BASIS_IDLE "a burst after the writer was seen idle: the burst's rate from the " \
			   "middle of the host's window since to the events kept; the range is what " \
			   "is known"
#define TT_LOSS_BASIS_ACROSS "a burst on both sides of the gap: the burst's rate over the time " \
			     "stamps; the range is what is known"
#define TT_LOSS_BASIS_NOMINAL "host clock at the nominal tick rate (the target's clock not " \
			      "measured against it yet) and the rate; the range is what is known"
/* The basis of est: TT_LOSS_BASIS_IDLE, _ACROSS, _SPLIT, _NOMINAL, or the reader's own (plain). */
const char *tt_loss_basis(const struct tt_loss_out *out, const char *plain);

/* Fills *out from *in (in->lap > 0). Never fails: without a rate est is lb. */
void tt_loss_estimate(const struct tt_loss_in *in, struct tt_loss_out *out);

/* The target's clock measured against the host's: the ticks the newest unit's time stamp moved
 * between reads that published units, over the host time between those reads (about the last
 * few seconds). Zero-initialised; kept across target resets (a property of the target). */
struct tt_loss_clock {
	uint64_t ns, ticks; /* summed */
	uint64_t h0, t0;    /* host time and unwrapped time of the newest unit of the last read */
};

/* A read published units up to unwrapped time t at host time host_ns (0: unknown). gap: a gap
 * came before them (nothing is measured across it). */
void tt_loss_clock_note(struct tt_loss_clock *c, uint64_t host_ns, uint64_t t, bool gap);
/* Target ticks per nominal tick (tick_hz); 0 until enough host time was measured. */
double tt_loss_clock_ratio(const struct tt_loss_clock *c, uint64_t tick_hz);
/* Host time since ns, in nominal ticks; 0 when either is unknown. */
uint64_t tt_loss_host_ticks(uint64_t now_ns, uint64_t ns, uint64_t tick_hz);

#endif
