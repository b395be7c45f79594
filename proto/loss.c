/* proto/loss.c: the shared ring-loss estimator (see loss_int.h).
 *
 * The ring positions give lb + j * lap, exactly but for the whole laps j. The time stamps give
 * the ticks across the gap modulo their wrap; the host's clock, scaled by the target's clock
 * rate as measured against it, says how many wraps; the rate turns ticks into units. A wrap (and
 * so a lap) is only counted when that evidence needs it: a host clock that ran on while the
 * target's was slow or stopped adds none by itself once the clock rate is measured. The upper
 * bound is what could have been written in the host's window (or the stamps' span when they do
 * not wrap) at twice the fastest rate seen, with the target's clock allowed 10% over nominal.
 * A target clock measured more than 1.5 times ahead of nominal (snapshots replayed, a wrong tick
 * rate), or before it is measured, stamps that span more than the host's time at nominal, make
 * the host's clock no evidence at all. Where the units kept right after the gap were written
 * much faster than the mean (a burst the gap cut), the evidence does not say how much of the
 * time across the gap the burst took: the estimate is the geometric mean of the mean rate's
 * reading and the burst's, off by no more than the square root of their ratio whichever holds;
 * but a writer seen idle after the last unit before the gap was not writing at its mean (the
 * burst began in the host's window since, taken at its middle), and one as fast in the batch
 * before the gap as after it was bursting across it.
 */
#include <math.h>

#include "loss_int.h"
#include "record.h"

/* Margins of the upper bound: bursts faster than any batch seen, a clock faster than nominal. */
#define TT_LOSS_PEAK_MARGIN 2.0
#define TT_LOSS_CLOCK_MARGIN 1.1
#define TT_LOSS_CLOCK_AHEAD 1.5

/* Whole laps in units beyond lb, rounded (nearest) or down; saturating. */
static double laps_of(double units, uint64_t lb, uint64_t lap)
{
	return units > (double)lb ? (units - (double)lb) / (double)lap : 0.0;
}

/* Ticks across the gap the estimate rests on: d plus the wraps the host's clock needs (no more
 * than t_hi), no more than the window the lost units were written in holds at the measured clock
 * rate; -1 when nothing says. *by_host: the host's clock set them (the start in its window, wraps
 * it added, or the window's cut). */
static double est_ticks(const struct tt_loss_in *in, uint64_t host, uint64_t window, double c,
			double t_hi, bool *by_host)
{
	*by_host = true;
	if (!in->have_d) {
		/* no time stamp before the gap (the first read after tracing was started): the
		 * start lies somewhere in the host's window before the units kept */
		double h = (double)window * c - (double)in->rest;
		return !window ? -1 : h > 0 ? h / 2 : 0;
	}
	double t = (double)in->d;
	if (in->mod && host) {
		double h = (double)host * c - (double)in->rest;
		double w = h > t + (double)in->mod / 2 ? floor((h - t) / (double)in->mod + 0.5) : 0;
		while (w > 0 && t + w * (double)in->mod > t_hi)
			w--;
		t += w * (double)in->mod;
	}
	/* the lost units were written in the window, before the units kept: time before it was
	 * quiet (a writer that paused with its clock running, as a descheduled process does) */
	double w_ticks = (double)window * c - (double)in->rest;
	if (window && t > w_ticks)
		t = w_ticks > 0 ? w_ticks : 0;
	*by_host = t != (double)in->d;
	return t;
}

/* A rate after the gap faster than the mean by more than this is a second reading (est_units). */
#define TT_LOSS_SPLIT_RATE 4.0
/* A reading more than this fraction of a lap above lb, and more than this fraction of itself,
 * is not rounded down to lb. */
#define TT_LOSS_FLOOR_LAP 0.25
#define TT_LOSS_FLOOR_MOVE 0.125

/* The units the evidence reads over t ticks: at the mean rate; where the units kept after the gap
 * were written much faster (a burst of unknown length: see enum tt_loss_reading), the burst's
 * reading (no more than upper) from the middle of the host's window when the writer was seen
 * idle at its start (TT_LOSS_IDLE_START), over all of t when the batch before the gap was as
 * fast (TT_LOSS_ACROSS, at the slower of the two), else the geometric mean of the mean rate's
 * reading (no less than lb) and the burst's (TT_LOSS_SPLIT). windowed: t is within the host's window. */
static double est_units(const struct tt_loss_in *in, double t, double upper, bool windowed,
			struct tt_loss_out *out)
{
	const double fast = in->rate * TT_LOSS_SPLIT_RATE;
	double lo = in->rate * t, hi = in->after * t;

	if (!(in->after > fast))
		return lo;
	if (hi > upper)
		hi = upper;
	if (in->idle && windowed) {
		out->reading = TT_LOSS_IDLE_START;
		return hi / 2;
	}
	if (!in->idle && in->before > fast) {
		out->reading = TT_LOSS_ACROSS;
		double b = in->before * t;
		return b < hi ? b : hi;
	}
	out->reading = TT_LOSS_SPLIT;
	if (lo < (double)in->lb)
		lo = (double)in->lb;
	return hi > lo ? sqrt(lo * hi) : lo;
}

void tt_loss_estimate(const struct tt_loss_in *in, struct tt_loss_out *out)
{
	const double c = in->clock > 0 ? in->clock : 1.0;
	const double cmax = (c > 1.0 ? c : 1.0) * TT_LOSS_CLOCK_MARGIN;
	/* a target clock measured well ahead of its nominal rate against the host's (a replay of
	 * snapshots, a wrong tick rate), or, not measured yet, time stamps that span more than the
	 * host's time at that rate: the host's clock says nothing about the target's time */
	const bool host_ok = c <= TT_LOSS_CLOCK_AHEAD &&
			     !(in->clock <= 0 && in->have_d && in->host &&
			       (double)in->d > (double)in->host * TT_LOSS_CLOCK_MARGIN);
	const uint64_t host = host_ok ? in->host : 0, window = host_ok ? in->window : 0;
	/* the most ticks the lost units can have been written in */
	double t_hi = INFINITY;
	if (window)
		t_hi = (double)window * cmax;
	else if (host)
		t_hi = (double)host * cmax;
	if (in->have_d && !in->mod && (double)in->d < t_hi)
		t_hi = (double)in->d;
	double peak = in->peak > in->rate ? in->peak : in->rate;
	if (in->after > peak)
		peak = in->after;
	double j_hi = INFINITY;
	if (peak > 0 && isfinite(t_hi))
		j_hi = floor(laps_of(TT_LOSS_PEAK_MARGIN * peak * t_hi, in->lb, in->lap));

	*out = (struct tt_loss_out){ .est = in->lb, .lower = in->lb };
	out->upper = j_hi < 1e15 ? in->lb + (uint64_t)j_hi * in->lap : TT_GAP_NO_UPPER;
	if (!(in->rate > 0))
		return;
	bool by_host;
	double ticks = est_ticks(in, host, window, c, t_hi, &by_host);
	if (ticks < 0)
		return;
	out->nominal = by_host && !(in->clock > 0);
	double e = est_units(in, ticks, (double)out->upper, window != 0, out);
	double l = laps_of(e, in->lb, in->lap), j = floor(l + 0.5);
	if (j > j_hi)
		j = j_hi;
	if (!(j < 1e15))
		return; /* stamps that say nothing sensible: keep the lower bound */
	out->est = in->lb + (uint64_t)j * in->lap;
	/* a reading well above lb that rounds down to it (more than a quarter lap and an eighth
	 * of itself above): the reading itself, not the floor by a chance of rounding */
	if (j == 0 && j_hi >= 1 && l > TT_LOSS_FLOOR_LAP && e - (double)in->lb > e * TT_LOSS_FLOOR_MOVE)
		out->est = (uint64_t)(e + 0.5);
	out->from_time = true;
}

const char *tt_loss_basis(const struct tt_loss_out *out, const char *plain)
{
	switch (out->reading) {
	case TT_LOSS_IDLE_START: return TT_LOSS_BASIS_IDLE;
	case TT_LOSS_ACROSS: return TT_LOSS_BASIS_ACROSS;
	case TT_LOSS_SPLIT: return TT_LOSS_BASIS_SPLIT;
	case TT_LOSS_MEAN: break;
	}
	return out->nominal ? TT_LOSS_BASIS_NOMINAL : plain;
}

/* The clock rate is measured over about the last TT_LOSS_CLOCK_WINDOW ns of host time, and
 * trusted from TT_LOSS_CLOCK_MIN on. */
#define TT_LOSS_CLOCK_WINDOW 4000000000ull
#define TT_LOSS_CLOCK_MIN 50000000ull

void tt_loss_clock_note(struct tt_loss_clock *c, uint64_t host_ns, uint64_t t, bool gap)
{
	if (!host_ns)
		return;
	if (!gap && c->h0 && host_ns > c->h0 && t >= c->t0) {
		c->ns += host_ns - c->h0;
		c->ticks += t - c->t0;
		while (c->ns > TT_LOSS_CLOCK_WINDOW) {
			c->ns /= 2;
			c->ticks /= 2;
		}
	}
	c->h0 = host_ns;
	c->t0 = t;
}

double tt_loss_clock_ratio(const struct tt_loss_clock *c, uint64_t tick_hz)
{
	if (!tick_hz || c->ns < TT_LOSS_CLOCK_MIN)
		return 0;
	return (double)c->ticks * 1e9 / ((double)c->ns * (double)tick_hz);
}

uint64_t tt_loss_host_ticks(uint64_t now_ns, uint64_t ns, uint64_t tick_hz)
{
	if (!now_ns || !ns || ns >= now_ns || !tick_hz)
		return 0;
	return (uint64_t)((double)(now_ns - ns) * (double)tick_hz / 1e9);
}
