/* proto/nuttx_loss.c: how many notes a gap in the noteram ring took: the evidence a NuttX
 * reader has (ring positions in bytes, time stamps, the host's clock, the byte rate) for the
 * shared estimator (loss.c), and its bytes turned into notes. */
#include "nuttx_int.h"

#define NX_ESTIMATE_BASIS "ring position and mean note size; laps from the time stamps and " \
			  "the note rate"

/* The time stamps' nominal rate: ns for sec + nsec stamps, else the configured tick rate. */
static uint64_t nx_hz(const struct tt_nuttx *rd)
{
	if (rd->cfg.host_clock_unrelated)
		return 0; /* no host evidence (tt_loss_host_ticks gives 0, no clock rate) */
	return rd->d.lay.off_nsec ? 1000000000u : rd->d.tick_hz;
}

double nx_run_peak(const struct tt_nuttx *rd, uint32_t from, uint32_t last)
{
	const struct nx_dec *d = &rd->d;
	uint64_t t[NX_PEAK_RUN + 1], at[NX_PEAK_RUN + 1]; /* times and byte offsets, a ring */
	double peak = 0;
	unsigned n = 0;

	for (uint32_t o = from; o <= last; o += nx_alignup(rd->ring[o], d->lay.align), n++) {
		unsigned i = n % (NX_PEAK_RUN + 1);
		t[i] = nx_rec_time(d, rd->ring + o);
		at[i] = o;
		if (n < NX_PEAK_RUN)
			continue;
		unsigned j = (n - NX_PEAK_RUN) % (NX_PEAK_RUN + 1); /* the run's first note */
		uint64_t span = nx_time_diff(d, t[j], t[i]);
		/* the bytes written after the first note's time: the notes after it */
		uint64_t bytes = at[i] - at[j] - nx_alignup(rd->ring[at[j]], d->lay.align) +
				 nx_alignup(rd->ring[o], d->lay.align);
		if (span && (double)bytes / (double)span > peak)
			peak = (double)bytes / (double)span;
	}
	return peak;
}

/* The rate (bytes per tick) right after the gap: over the first half of the bytes kept [from,
 * last] (at least NX_PEAK_RUN notes); 0 when their time does not move. A burst the gap cut
 * shows here even when slower notes after it dilute the copy's mean. */
static double nx_rate_after(const struct tt_nuttx *rd, uint32_t from, uint32_t last)
{
	const struct nx_dec *d = &rd->d;
	uint64_t t0 = nx_rec_time(d, rd->ring + from);
	unsigned n = 0;
	uint32_t o = from;

	while (o < last && (n < NX_PEAK_RUN || o - from < (last - from) / 2)) {
		o += nx_alignup(rd->ring[o], d->lay.align);
		n++;
	}
	uint64_t span = nx_time_diff(d, t0, nx_rec_time(d, rd->ring + o));
	return span ? (double)(o - from) / (double)span : 0;
}

bool nx_lap_estimate(const struct tt_nuttx *rd, uint64_t bytes_min, uint32_t from,
		     uint32_t last, uint32_t nrec, struct tt_gap *g)
{
	const struct nx_dec *d = &rd->d;
	struct tt_loss_out o;

	if (!d->have_time || nrec < 2 || last <= from)
		return false;
	uint64_t t_first = nx_rec_time(d, rd->ring + from), t_last = nx_rec_time(d, rd->ring + last);
	uint64_t span = nx_time_diff(d, t_first, t_last), kept = (uint64_t)(last - from);
	uint64_t total = kept + nx_alignup(rd->ring[last], d->lay.align); /* nrec notes' bytes */
	uint64_t proven = rd->host_proven > rd->host_last ? rd->host_proven : rd->host_last;
	if (!span)
		return false;
	struct tt_loss_in in = {
		.lb = bytes_min, .lap = rd->size, .have_d = true,
		.d = nx_time_diff(d, d->last_raw, t_first),
		.mod = d->lay.time_size == 4 && !d->lay.off_nsec ? (uint64_t)1 << 32 : 0,
		.rest = span,
		/* the head read's time lies between its plan and this ingest: the earlier for the
		 * wraps the host's clock says (none too many), the later for the window the lost
		 * notes were written in (none left out) */
		.host = tt_loss_host_ticks(nx_host_at(rd), rd->host_last, nx_hz(rd)),
		.window = tt_loss_host_ticks(rd->host_now, proven, nx_hz(rd)),
		.clock = tt_loss_clock_ratio(&rd->clock, nx_hz(rd)),
		.rate = (double)(kept + rd->rate_bytes) / (double)(span + rd->rate_time),
		.after = nx_rate_after(rd, from, last),
		.peak = rd->peak,
		.before = rd->rate_before,
		/* a read since the last note published found nothing new, or the ring cleared */
		.idle = (rd->host_last && rd->host_proven > rd->host_last) ||
			(rd->why == WHY_RESET && rd->clear_known),
	};
	double run = nx_run_peak(rd, from, last);
	if (run > in.peak)
		in.peak = run;
	tt_loss_estimate(&in, &o);
	if (!o.from_time)
		return false;
	__extension__ typedef unsigned __int128 u128;
	uint64_t est = (uint64_t)(((u128)o.est * nrec + total / 2) / total);
	uint64_t min_rec = nx_alignup(d->lay.hdr, d->lay.align);
	if (o.upper != TT_GAP_NO_UPPER)
		g->upper = o.upper / (min_rec ? min_rec : 1);
	g->lost = est < g->lower ? g->lower : est > g->upper ? g->upper : est;
	g->basis = tt_loss_basis(&o, NX_ESTIMATE_BASIS);
	return true;
}

