/* daemon/target.c: the poller of one target (see target.h).
 *
 * Owns a probe, the format's reader (proto/reader.h, driven only through its ops) and a libuv
 * timer, whatever the source (a file in a format's own layout read while it is written, such
 * as kev:PATH, is one more probe backend and reader). Starting a target: check
 * the source and pick the reader (check_source), the format's configuration from the ELF, a
 * layout file and options, where its control structure is (locate_buffer), then the reader
 * and the probe (open_reading). One poll cycle is a chain of plan -> tt_probe_read -> ingest
 * steps that runs until the reader says the cycle is over; the next cycle starts `interval`
 * after this one started (or at once, an early cycle, when the reader held entries back: pace.h;
 * the interval then counts from the last cycle that was not early), so a slow link polls back to
 * back and an idle target is polled rarely. Probe failures back off (doubling up to poll_max, at least 50 ms)
 * and are logged rate-limited; the reader reports losses itself as gap records.
 */
#include "gaplog.h"
#include "layout.h"
#include "pace.h"
#include "stackread.h"
#include "target.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fw/fw.h"
#include "../probe/filesrc.h"
#include "../proto/reader.h"
#include "export.h"
#include "log.h"

enum phase {
	PH_RESOLVE = 0, /* reading the pointer to the header (ELF symbol / --pointer) */
	PH_READING,     /* reader cycles */
};

struct tt_target {
	uv_loop_t *loop;
	struct tt_target_config cfg;
	char *strs[8];   /* owned copies of the config strings */
	char **oargs;    /* owned copy of openocd_args */
	char **fopts;    /* owned copy of format_opts */
	struct tt_probe *probe;
	const char *stream;      /* a stream source (reader.h: cfg.stream): its path */
	const struct tt_reader_ops *fmt;
	struct tt_format_cfg fcfg; /* format_cfg points here (or is NULL) */
	const void *format_cfg;
	void *rd;
	uv_timer_t timer;
	tt_target_record_cb record_cb;
	tt_target_status_cb status_cb;
	void *arg;
	tt_target_close_cb close_cb;
	void *close_arg;
	struct tt_target_status st;
	enum phase phase;
	uint64_t ptr_addr;       /* where the header pointer lives (PH_RESOLVE) */
	uint8_t ptr_buf[4];
	bool ptr_was_null;       /* the pointer read NULL: tracing was off while we watched */
	uint64_t ptr_null_ns;    /* uv_hrtime() when the last such read was sent */
	uint64_t header_addr;
	struct tt_plan plan;
	int reading;             /* a probe read is pending */
	int stopping;
	int pending_closes;
	uint64_t cycle_start;    /* uv_now at the start of the cycle */
	uint64_t base_start;     /* uv_now at the start of the last cycle that was not early */
	bool early;              /* the cycle runs at once after the last (tt_pace_early) */
	uint64_t read_sent_ns;   /* uv_hrtime when the pending read went out (stage lines) */
	uint64_t last_time;      /* time of the newest event emitted (stage lines) */
	unsigned backoff_ms;
	/* rate over a sliding second */
	uint64_t rate_t0, rate_n0;
	/* rate-limited error logging */
	uint64_t err_logged_at;
	unsigned err_suppressed;
	struct tt_gaplog gaplog; /* losses in the log */
	/* reads failing while the link is up: since when, and when to rebuild the link next */
	uint64_t fail_since;
	unsigned relink_ms;
	/* what OpenOCD reported about the core (tcl_notifications) */
	bool halted;             /* halted by a debugger: reading goes on, the state says so */
	/* An OpenOCD reset: its record goes out when the reader sees the buffer rewritten (in
	 * place of the reader's own) or at the end of the first poll cycle that started after
	 * the notification, whichever comes first: events the core wrote before the reset are
	 * read out before it, and it precedes everything of the new run. */
	int reset_pending;       /* 1: notified; 2: and a cycle has started since */
	bool reset_announced;    /* went out early: the reader's own record for the same reset,
				    when it sees the buffer rewritten, is not a second one (a
				    firmware that never rewrites it keeps this set until the next
				    OpenOCD reset: a reset the reader alone sees meanwhile is
				    taken for that one) */
	char reset_reason[64];
	char halt_by[80];        /* a halt asked for (tt_target_halt): by whom; "" = none */
	struct tt_stackread *stacks; /* the painted stacks, read at the end of cycles, or NULL */
};

/* Reads that keep failing on a link that looks up (OpenOCD answers, the target does not) are
 * rebuilt after this long, then after twice as long, up to a minute. */
#define RELINK_FIRST_MS 3000u
#define RELINK_MAX_MS 60000u

static void poll_cycle(struct tt_target *t);
static void step(struct tt_target *t);
static void on_timer(uv_timer_t *h);

/* A new state or message goes to status_cb (which logs it): returns true; a repeat: false. */
static bool set_state(struct tt_target *t, enum tt_target_state st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool set_state(struct tt_target *t, enum tt_target_state st, const char *fmt, ...)
{
	char msg[sizeof(t->st.message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->st.state == st && !strcmp(t->st.message, msg))
		return false;
	t->st.state = st;
	memcpy(t->st.message, msg, sizeof(msg));
	t->err_logged_at = uv_now(t->loop); /* the same error from the next polls: see below */
	t->err_suppressed = 0;
	if (t->status_cb)
		t->status_cb(t, t->arg);
	return true;
}

/* Errors repeat every poll while a link is down: log the first, then one line per 10 s. */
static void log_poll_error(struct tt_target *t, const char *what)
{
	uint64_t now = uv_now(t->loop);

	if (t->err_logged_at && now - t->err_logged_at < 10000) {
		t->err_suppressed++;
		return;
	}
	if (t->err_suppressed)
		tt_log(TT_LOG_WARNING, "target %s: %s (%u similar errors suppressed)", t->cfg.name,
		       what, t->err_suppressed);
	else
		tt_log(TT_LOG_WARNING, "target %s: %s", t->cfg.name, what);
	t->err_logged_at = now;
	t->err_suppressed = 0;
}

static void schedule(struct tt_target *t, unsigned delay_ms)
{
	if (!t->stopping)
		uv_timer_start(&t->timer, on_timer, delay_ms, 0);
}

static void on_timer(uv_timer_t *h)
{
	poll_cycle(h->data);
}

static void emit(void *arg, const struct tt_record *rec)
{
	struct tt_target *t = arg;
	struct tt_record own = { .kind = TT_REC_RESET };

	switch (rec->kind) {
	case TT_REC_EVENT:
		t->st.events++;
		t->last_time = rec->u.ev.time;
		break;
	case TT_REC_GAP:
		t->st.gaps++;
		t->st.lost += rec->u.gap.lost;
		tt_gaplog_add(&t->gaplog, t->cfg.name, &rec->u.gap, uv_now(t->loop));
		break;
	case TT_REC_RESET:
		if (rec->u.reset.reason != t->reset_reason && (t->reset_announced || t->reset_pending)) {
			tt_log(TT_LOG_INFO, "target %s: the reader saw the reset OpenOCD announced (%s)",
			       t->cfg.name, rec->u.reset.reason);
			if (t->reset_announced) {
				t->reset_announced = false;
				return;
			}
			/* one record, OpenOCD's reason, where the reader saw the new run begin */
			t->reset_pending = 0;
			own.u.reset.reason = t->reset_reason;
			rec = &own;
		}
		t->st.resets++;
		if (t->stacks)
			tt_stackread_restart(t->stacks); /* painted anew by the new run */
		set_state(t, TT_TARGET_RESET, "%s", rec->u.reset.reason);
		break;
	}
	t->record_cb(t, rec, t->arg);
}

static void update_rate(struct tt_target *t)
{
	uint64_t now = uv_now(t->loop);

	tt_gaplog_tick(&t->gaplog, t->cfg.name, now, 0);
	if (now - t->rate_t0 >= 1000) {
		t->st.rate = (double)(t->st.events - t->rate_n0) * 1000.0 / (double)(now - t->rate_t0);
		t->rate_t0 = now;
		t->rate_n0 = t->st.events;
	}
}

/* The next interval (daemon/pace.c) from what the last poll found and how long it took, and
 * whether the next cycle is an early one. An early cycle's own (shorter) duration and findings
 * leave the interval as it was. */
static unsigned next_interval(struct tt_target *t, double poll_ms, bool *early)
{
	struct tt_reader_stats s;
	struct tt_pace_in in = { .interval_ms = t->st.interval_ms, .min_ms = t->cfg.poll_min_ms,
				 .max_ms = t->cfg.poll_max_ms, .latency_ms = t->cfg.latency_ms,
				 .poll_ms = poll_ms, .repoll = t->early };

	t->fmt->stats(t->rd, &s);
	t->st.skipped = s.skipped;
	in.held = s.held;
	*early = tt_pace_early(&in);
	if (t->early)
		return t->st.interval_ms;
	t->st.fill = s.capacity ? (double)s.last_new / s.capacity : 0;
	in.fill = t->st.fill;
	t->st.interval_ms = tt_pace_next(&in);
	return t->st.interval_ms;
}

/* End of a poll cycle: an OpenOCD reset still pending after a whole cycle read since the
 * notification goes out now, before the firmware's new run shows in the buffer. */
static void announce_reset(struct tt_target *t)
{
	struct tt_record rec = { .kind = TT_REC_RESET };

	if (t->reset_pending != 2)
		return;
	t->reset_pending = 0;
	rec.u.reset.reason = t->reset_reason;
	emit(t, &rec);
	t->reset_announced = true;
}

static void cycle_done(struct tt_target *t)
{
	uint64_t now = uv_now(t->loop);
	uint64_t spent = now - t->cycle_start, since;
	bool early;
	unsigned iv = next_interval(t, (double)spent, &early);

	if (!t->early)
		t->st.poll_ms_last = (double)spent;
	t->st.polls++;
	t->backoff_ms = 0;
	t->fail_since = 0;
	t->relink_ms = RELINK_FIRST_MS;
	update_rate(t);
	t->early = early;
	/* an interval after the last regular cycle started (an early one runs in between) */
	since = now - t->base_start;
	schedule(t, early || since >= iv ? 0 : (unsigned)(iv - since));
}

/* OpenOCD never reconnects an adapter whose connection died (a replugged probe, a restarted
 * remote_bitbang peer): every read then fails like a bus fault. After RELINK_FIRST_MS of nothing
 * but failures, rebuild the link (a spawned OpenOCD is restarted); backends without a link of
 * their own decline. */
static void maybe_relink(struct tt_target *t, int status)
{
	uint64_t now = uv_now(t->loop);
	char why[96];

	if (status != -EFAULT && status != -ETIMEDOUT && status != -EPROTO)
		return;
	if (!t->fail_since) {
		t->fail_since = now;
		return;
	}
	if (now - t->fail_since < t->relink_ms)
		return;
	snprintf(why, sizeof(why), "every read failed for %.1f s", (double)(now - t->fail_since) / 1000);
	if (tt_probe_relink(t->probe, why) == 0) {
		tt_log(TT_LOG_WARNING, "target %s: %s: rebuilding the probe link", t->cfg.name, why);
		t->relink_ms = t->relink_ms * 2 > RELINK_MAX_MS ? RELINK_MAX_MS : t->relink_ms * 2;
	}
	t->fail_since = now;
}

static void cycle_failed(struct tt_target *t, enum tt_target_state st, const char *msg)
{
	unsigned floor = t->cfg.poll_max_ms > 50 ? 50 : t->cfg.poll_max_ms;

	if (!set_state(t, st, "%s", msg)) /* a new state or message is logged as such */
		log_poll_error(t, msg);
	t->early = false;
	t->backoff_ms = t->backoff_ms ? t->backoff_ms * 2 : floor;
	if (t->backoff_ms > t->cfg.poll_max_ms * 4 + 1000)
		t->backoff_ms = t->cfg.poll_max_ms * 4 + 1000;
	update_rate(t);
	schedule(t, t->backoff_ms);
}

static int make_reader(struct tt_target *t)
{
	struct tt_reader_config rc = {
		.address = t->header_addr,
		.start_at_now = t->cfg.start_at_now,
		.tick_hz = t->cfg.tick_hz,
		.time_wrap = t->cfg.time_wrap,
		.time_dir = t->cfg.time_dir,
		.format_cfg = t->format_cfg,
		.file_source = !strncmp(t->cfg.probe, "file:", 5),
		.stream = t->stream,
		.since_enable = t->ptr_was_null,
		.since_enable_ns = t->ptr_was_null ? t->ptr_null_ns : 0,
		.ptr_ranges = true, /* tt_probe_read resolves them, on every backend */
	};

	if (t->rd)
		t->fmt->destroy(t->rd);
	t->rd = NULL;
	return t->fmt->create(&rc, &t->rd);
}

/* A stack read (daemon/stackread.h) ended the cycle. */
static void on_stacks_read(void *arg)
{
	struct tt_target *t = arg;

	t->reading = 0;
	t->st.bytes_read = t->probe->bytes_read;
	t->st.stack_bytes = tt_stackread_bytes(t->stacks);
	if (!t->stopping)
		cycle_done(t);
}

static void on_read(struct tt_probe *p, int status, void *arg)
{
	struct tt_target *t = arg;
	char msg[512];

	t->reading = 0;
	t->st.bytes_read = p->bytes_read;
	if (t->stopping)
		return;
	if (status < 0) {
		snprintf(msg, sizeof(msg), "%s", tt_probe_error(p)); /* it names the probe */
		if (t->phase == PH_READING)
			t->fmt->read_failed(t->rd, status);
		cycle_failed(t, status == -EFAULT ? TT_TARGET_STALLED : TT_TARGET_DISCONNECTED,
			     msg);
		maybe_relink(t, status);
		return;
	}
	if (t->phase == PH_RESOLVE) {
		uint32_t v = tt_target_header_ptr(t->ptr_buf);
		if (!v) {
			snprintf(msg, sizeof(msg),
				 "trace header pointer at 0x%08" PRIx64
				 " is NULL: tracing not enabled yet (tx_trace_enable not called)",
				 t->ptr_addr);
			t->ptr_was_null = true;
			/* when the read went out, not when its reply was taken: a daemon descheduled
			 * (or stopped) in between would otherwise date "tracing off" after the enable
			 * and cap the loss since it far too low */
			t->ptr_null_ns = t->read_sent_ns;
			cycle_failed(t, TT_TARGET_ATTACHING, msg);
			return;
		}
		if (v != t->header_addr || !t->rd) {
			t->header_addr = v;
			if (make_reader(t) < 0) {
				cycle_failed(t, TT_TARGET_ATTACHING, "out of memory creating reader");
				return;
			}
			tt_log(TT_LOG_INFO, "target %s: trace header at 0x%08" PRIx32 " (from 0x%08" PRIx64 ")",
			       t->cfg.name, v, t->ptr_addr);
		}
		t->ptr_was_null = false; /* consumed, or the reader already runs (it sees the reset) */
		t->phase = PH_READING;
		step(t);
		return;
	}
	uint64_t done_ns = uv_hrtime(), events0 = t->st.events;
	if (t->fmt->set_host_time)
		t->fmt->set_host_time(t->rd, done_ns);
	int rc = t->fmt->ingest(t->rd, emit, t);
	/* where a batch's latency goes (bench/README.md, "stages"): the read's request and
	 * return, and the end of decoding (the records are in the hub, JSON encoded) */
	if (t->st.events != events0 && tt_log_level >= TT_LOG_DEBUG)
		tt_log(TT_LOG_DEBUG, "target %s: stage read sent=%" PRIu64 " done=%" PRIu64
		       " decoded=%" PRIu64 " events=%" PRIu64 " last_time=%" PRIu64, t->cfg.name,
		       t->read_sent_ns, done_ns, uv_hrtime(), t->st.events - events0, t->last_time);
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "%s", t->fmt->error(t->rd));
		/* A buffer that vanished may have moved: resolve the pointer again. */
		if (t->ptr_addr)
			t->phase = PH_RESOLVE;
		cycle_failed(t, TT_TARGET_ATTACHING, msg);
		return;
	}
	if (t->halted)
		set_state(t, TT_TARGET_HALTED, "core halted by the debugger; still reading 0x%08" PRIx64,
			  t->header_addr);
	else if (t->st.state != TT_TARGET_CONNECTED && t->stream)
		set_state(t, TT_TARGET_CONNECTED, "following %s", t->stream);
	else if (t->st.state != TT_TARGET_CONNECTED)
		set_state(t, TT_TARGET_CONNECTED, "streaming from 0x%08" PRIx64, t->header_addr);
	if (rc == TT_READER_MORE) {
		step(t);
		return;
	}
	t->st.bytes_read = p->bytes_read;
	announce_reset(t);
	if (t->stacks && tt_stackread_start(t->stacks, t->probe, t->fmt, t->rd, on_stacks_read, t))
		t->reading = 1;
	else
		cycle_done(t);
}

/* Start the next read of the cycle. */
static void step(struct tt_target *t)
{
	char msg[512];
	int rc;

	if (t->phase == PH_RESOLVE) {
		t->plan.n = 1;
		t->plan.r[0].addr = t->ptr_addr;
		t->plan.r[0].len = 4;
		t->plan.r[0].dst = t->ptr_buf;
	} else {
		if (t->fmt->set_host_time) /* the reader may plan by how long ago it last read */
			t->fmt->set_host_time(t->rd, uv_hrtime());
		t->fmt->plan(t->rd, &t->plan);
	}
	t->read_sent_ns = uv_hrtime();
	rc = tt_probe_read(t->probe, &t->plan, on_read, t);
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "probe %s: %s", t->cfg.probe, tt_probe_error(t->probe));
		cycle_failed(t, TT_TARGET_DISCONNECTED, msg);
		return;
	}
	t->reading = 1;
}

static void on_halted(struct tt_probe *p, int status, void *arg)
{
	struct tt_target *t = arg;

	t->reading = 0;
	if (status < 0)
		tt_log(TT_LOG_ERR, "target %s: halt (%s) failed: %s", t->cfg.name, t->halt_by,
		       tt_probe_error(p));
	else
		tt_log(TT_LOG_NOTICE, "target %s: core halted (%s)", t->cfg.name, t->halt_by);
	t->halt_by[0] = 0;
	if (!t->stopping)
		poll_cycle(t);
}

/* Between two reads (the probe takes one request at a time). */
static bool start_halt(struct tt_target *t)
{
	int rc = tt_probe_halt(t->probe, on_halted, t);

	if (rc == 0) {
		t->reading = 1;
		return true;
	}
	tt_log(TT_LOG_ERR, "target %s: halt (%s) not sent: %s", t->cfg.name, t->halt_by,
	       strerror(-rc));
	t->halt_by[0] = 0;
	return false;
}

int tt_target_halt(struct tt_target *t, const char *by)
{
	if (!t->probe || !tt_probe_can_halt(t->probe))
		return -ENOTSUP;
	snprintf(t->halt_by, sizeof(t->halt_by), "%s", by && *by ? by : "asked");
	if (!t->reading)
		schedule(t, 0);
	return 0;
}

static void poll_cycle(struct tt_target *t)
{
	if (t->stopping || t->reading)
		return;
	if (t->halt_by[0] && start_halt(t))
		return;
	if (t->reset_pending)
		t->reset_pending = 2;
	t->cycle_start = uv_now(t->loop);
	if (!t->early)
		t->base_start = t->cycle_start;
	step(t);
}

/* What OpenOCD reports about the core (its tcl_notifications, passed on by the probe): a reset
 * it performs ("target_reset mode run") becomes a reset record within a poll cycle, before the
 * firmware's new run (see reset_pending); a halt or resume ("target_state state
 * halted|running") is the state. */
static void on_target_notice(struct tt_target *t, const char *msg)
{
	char arg[32];

	if (sscanf(msg, "target_reset mode %31s", arg) == 1) {
		snprintf(t->reset_reason, sizeof(t->reset_reason), "target reset by OpenOCD (reset %s)",
			 arg);
		t->halted = false;	/* until OpenOCD says the core halted after the reset */
		t->reset_pending = 1;
		t->reset_announced = false;
		return;
	}
	if (sscanf(msg, "target_state state %31s", arg) != 1)
		return;
	t->halted = !strcmp(arg, "halted");
	if (t->halted)
		set_state(t, TT_TARGET_HALTED, "core halted by the debugger; still reading 0x%08" PRIx64,
			  t->header_addr);
	else if (t->st.state == TT_TARGET_HALTED)
		set_state(t, TT_TARGET_CONNECTED, "streaming from 0x%08" PRIx64 " (core %s)",
			  t->header_addr, arg);
}

static void on_probe_state(struct tt_probe *p, enum tt_probe_state st, const char *msg, void *arg)
{
	struct tt_target *t = arg;

	if (msg && !strncmp(msg, "target_", 7)) {
		on_target_notice(t, msg);
		return;
	}
	if (st == TT_PROBE_DISCONNECTED) {
		set_state(t, TT_TARGET_DISCONNECTED, "%s", msg); /* logged by the status callback */
	} else if (st == TT_PROBE_CONNECTED) {
		tt_log(TT_LOG_INFO, "target %s: probe connected%s%s", t->cfg.name, msg && *msg ? ": " : "",
		       msg ? msg : "");
	}
}

static char *dup_str(struct tt_target *t, unsigned i, const char *s)
{
	if (!s)
		return NULL;
	t->strs[i] = strdup(s);
	return t->strs[i];
}

static void free_argv(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

/* An owned copy of a NULL-terminated string list (NULL for NULL); -ENOMEM. */
static int dup_argv(const char *const *src, char ***out)
{
	size_t n = 0;

	*out = NULL;
	if (!src)
		return 0;
	while (src[n])
		n++;
	if (!(*out = calloc(n + 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!((*out)[i] = strdup(src[i])))
			return -ENOMEM;
	return 0;
}

static void free_target(struct tt_target *t)
{
	for (unsigned i = 0; i < sizeof(t->strs) / sizeof(t->strs[0]); i++)
		free(t->strs[i]);
	free_argv(t->oargs);
	free_argv(t->fopts);
	if (t->rd)
		t->fmt->destroy(t->rd);
	tt_format_cfg_release(&t->fcfg);
	tt_stackread_free(t->stacks);
	free(t);
}

/* The format: as given, else the layout file's, else threadx (an unreadable layout file is
 * said when it is loaded). */
const char *tt_target_format_name(const struct tt_target_config *cfg, char *buf, size_t len)
{
	char err[8];

	if (cfg->format)
		return cfg->format;
	if (cfg->layout && tt_layout_format(cfg->layout, buf, len, err, sizeof(err)) == 0)
		return buf;
	return tt_reader_default()->name;
}

static int copy_config(struct tt_target *t, const struct tt_target_config *cfg)
{
	t->cfg = *cfg;
	t->cfg.name = dup_str(t, 0, cfg->name ? cfg->name : "target");
	t->cfg.probe = dup_str(t, 1, cfg->probe);
	char lfmt[32];
	t->cfg.format = dup_str(t, 2, tt_target_format_name(cfg, lfmt, sizeof(lfmt)));
	t->cfg.elf = dup_str(t, 3, cfg->elf);
	t->cfg.openocd_log = dup_str(t, 4, cfg->openocd_log);
	t->cfg.layout = dup_str(t, 5, cfg->layout);
	if (!t->cfg.name || !t->cfg.probe || !t->cfg.format)
		return -ENOMEM;
	if (dup_argv(cfg->openocd_args, &t->oargs) < 0 || dup_argv(cfg->format_opts, &t->fopts) < 0)
		return -ENOMEM;
	t->cfg.openocd_args = (const char *const *)t->oargs;
	t->cfg.format_opts = (const char *const *)t->fopts;
	if (!t->cfg.poll_min_ms)
		t->cfg.poll_min_ms = 1;
	if (!t->cfg.poll_max_ms)
		t->cfg.poll_max_ms = 50;
	if (t->cfg.poll_max_ms < t->cfg.poll_min_ms)
		t->cfg.poll_max_ms = t->cfg.poll_min_ms;
	return 0;
}

/* The format configuration's own description, one log line each. */
static void log_format_cfg(const struct tt_target *t)
{
	char buf[1024], *line, *save = NULL;

	if (!t->fmt->cfg_describe)
		return;
	t->fmt->cfg_describe(t->format_cfg, t->cfg.elf, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		tt_log(TT_LOG_INFO, "target %s: %s", t->cfg.name, line);
}

/* file:PATH with neither --address nor --base: a file that starts with the format's header (a
 * .trx) says where it was in target memory (a HEX or S-record file by its addresses). */
static int locate_file(struct tt_target *t, char *err, size_t errlen)
{
	const char *path = t->cfg.probe + 5;
	uint8_t head[64];
	uint64_t addr;
	size_t got;
	int raw;
	int rc = tt_filesrc_head(path, head, sizeof(head), &got, &addr, &raw, err, errlen);

	if (rc < 0)
		return rc;
	if (!t->fmt->detect || !t->fmt->detect(head, got) || (raw && !t->fmt->file_base(head, got))) {
		snprintf(err, errlen, "%s: does not start with a %s header that says where it was "
			 "in target memory: give --address (and --base: the address of the file's "
			 "first byte)", path, t->fmt->name);
		return -EINVAL;
	}
	t->header_addr = raw ? t->fmt->file_base(head, got) : addr;
	if (raw)
		t->cfg.file_base = t->header_addr;
	return 0;
}

/* The probe spec checked and the reader of the format chosen: 0 or -EINVAL with a message. */
static int check_source(const struct tt_target_config *cfg, const struct tt_reader_ops **out,
			char *err, size_t errlen)
{
	const struct tt_reader_ops *stream = tt_reader_for_stream(cfg->probe);
	bool locating = cfg->address || cfg->address_is_pointer || cfg->elf ||
			cfg->start_at_now || (cfg->format_opts && *cfg->format_opts);
	char lfmt[32];
	int rc = stream ? stream->stream_check(cfg->probe, cfg->format, locating, err, errlen)
			: tt_probe_spec_check(cfg->probe, err, errlen);

	if (rc < 0)
		return rc;
	*out = stream ? stream : tt_reader_find(tt_target_format_name(cfg, lfmt, sizeof(lfmt)));
	if (*out && (*out)->create)
		return 0;
	if (*out)
		snprintf(err, errlen, "format '%s' has no live reader: decode its files with "
			 "`tracetap decode --format %s FILE`", cfg->format, cfg->format);
	else
		snprintf(err, errlen, "unknown format '%s' (formats: %s)", cfg->format,
			 tt_reader_names());
	return -EINVAL;
}

/* Where the control structure is: the ELF symbol, the layout file, --pointer, a file's own
 * header, --address or --base. Sets header_addr or ptr_addr: 0 or -errno with a message. */
static int locate_buffer(struct tt_target *t, char *err, size_t errlen)
{
	const struct tt_reader_ops *fmt = t->fmt;
	int rc;

	if (t->stream) /* the file's own header says where things are */
		return 0;
	if (t->cfg.elf && !fmt->elf_symbol) {
		snprintf(err, errlen, "--elf: format %s has no ELF symbol to find its buffer by: "
			 "give --address", fmt->name);
		return -EINVAL;
	}
	if (t->cfg.elf) {
		uint64_t v;
		rc = tt_elf_symbol(t->cfg.elf, tt_reader_elf_symbol(fmt, t->format_cfg), &v, err,
				   errlen);
		if (rc < 0)
			return rc;
		if (fmt->elf_symbol_is_pointer)
			t->ptr_addr = v;
		else
			t->header_addr = v;
	} else if (!t->cfg.address && t->fcfg.address) { /* from the layout file */
		t->header_addr = t->fcfg.address;
	} else if (t->cfg.address_is_pointer) {
		t->ptr_addr = t->cfg.address;
	} else if (!t->cfg.address && !t->cfg.file_base && fmt->file_base &&
		   !strncmp(t->cfg.probe, "file:", 5)) {
		return locate_file(t, err, errlen);
	} else if (t->cfg.address || !strncmp(t->cfg.probe, "file:", 5)) {
		t->header_addr = t->cfg.address ? t->cfg.address : t->cfg.file_base;
	} else {
		snprintf(err, errlen,
			 "where is the trace buffer? give the firmware ELF (--elf) or the address "
			 "(--address, or --pointer for the address of a pointer to it)");
		return -EINVAL;
	}
	return 0;
}

/* The format's configuration, the buffer's address, the reader (unless a pointer is to be read
 * first) and the probe: 0 or -errno with a message. */
static int open_reading(struct tt_target *t, char *err, size_t errlen)
{
	const struct tt_reader_ops *fmt = t->fmt;
	int rc = tt_target_format_cfg(&t->cfg, fmt, &t->fcfg, &t->format_cfg, err, errlen);

	if (rc < 0)
		return rc;
	if (t->format_cfg)
		log_format_cfg(t);
	if ((rc = locate_buffer(t, err, errlen)) < 0)
		return rc;
	t->phase = t->ptr_addr ? PH_RESOLVE : PH_READING;
	if (t->phase == PH_READING && (rc = make_reader(t)) < 0) {
		if (rc == -EINVAL && fmt->no_address_hint && !t->header_addr)
			snprintf(err, errlen, "%s: %s", fmt->name, fmt->no_address_hint);
		else
			snprintf(err, errlen, "cannot create the reader: %s", strerror(-rc));
		return rc;
	}
	struct tt_probe_options po = {
		.openocd_args = t->cfg.openocd_args,
		.openocd_log = t->cfg.openocd_log,
		.max_chunk = t->cfg.max_chunk,
		.file_base = t->cfg.file_base,
		.state_cb = on_probe_state,
		.state_arg = t,
	};
	return tt_probe_new(t->loop, t->cfg.probe, &po, &t->probe, err, errlen);
}

int tt_target_start(uv_loop_t *loop, const struct tt_target_config *cfg,
		    tt_target_record_cb record_cb, tt_target_status_cb status_cb, void *arg,
		    struct tt_target **out, char *err, size_t errlen)
{
	const struct tt_reader_ops *fmt;
	struct tt_target *t;
	uint32_t fill;
	int rc;

	/* Messages here do not name the target: the caller prefixes them. */
	if (!cfg->probe || !record_cb) {
		snprintf(err, errlen, "no probe given");
		return -EINVAL;
	}
	if ((rc = check_source(cfg, &fmt, err, errlen)) < 0)
		return rc;
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = copy_config(t, cfg);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail_cfg;
	}
	t->loop = loop;
	t->fmt = fmt;
	t->record_cb = record_cb;
	t->status_cb = status_cb;
	t->arg = arg;
	t->st.interval_ms = t->cfg.poll_min_ms * 4 < t->cfg.poll_max_ms ? t->cfg.poll_min_ms * 4
								       : t->cfg.poll_max_ms;
	t->relink_ms = RELINK_FIRST_MS;
	if (tt_reader_for_stream(t->cfg.probe) == fmt) {
		t->cfg.format = fmt->name; /* strs[] still owns the copy */
		t->stream = strchr(t->cfg.probe, ':') + 1;
	}
	if ((rc = open_reading(t, err, errlen)) < 0)
		goto fail_cfg;
	if (fmt->analysis && fmt->analysis->stack_fill && fmt->analysis->threads &&
	    fmt->analysis->stack_fill(t->format_cfg, &fill) == 0 && t->cfg.stack_budget >= 0 &&
	    tt_stackread_new(fill, t->cfg.stack_budget ? (uint32_t)t->cfg.stack_budget
			     : TT_STACK_BUDGET_DEFAULT, uv_now(loop), &t->stacks) < 0) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail_cfg;
	}
	uv_timer_init(loop, &t->timer);
	t->timer.data = t;
	t->rate_t0 = uv_now(loop);
	*out = t;
	schedule(t, 0);
	return 0;

fail_cfg:
	free_target(t);
	return rc;
}

static void maybe_free(struct tt_target *t)
{
	if (--t->pending_closes > 0)
		return;
	if (t->close_cb)
		t->close_cb(t, t->close_arg);
	free_target(t);
}

static void on_timer_closed(uv_handle_t *h)
{
	maybe_free(h->data);
}

static void on_probe_closed(struct tt_probe *p, void *arg)
{
	maybe_free(arg);
}

void tt_target_stop(struct tt_target *t, tt_target_close_cb cb, void *arg)
{
	if (t->stopping)
		return;
	t->stopping = 1;
	tt_gaplog_tick(&t->gaplog, t->cfg.name, uv_now(t->loop), 1);
	t->close_cb = cb;
	t->close_arg = arg;
	t->st.state = TT_TARGET_STOPPED;
	t->pending_closes = t->probe ? 2 : 1;
	uv_timer_stop(&t->timer);
	uv_close((uv_handle_t *)&t->timer, on_timer_closed);
	if (!t->probe)
		return;
	tt_probe_close(t->probe, on_probe_closed, t);
}

const char *tt_target_name(const struct tt_target *t)
{
	return t->cfg.name;
}

const struct tt_target_config *tt_target_config(const struct tt_target *t)
{
	return &t->cfg;
}

const struct tt_target_status *tt_target_status(const struct tt_target *t)
{
	return &t->st;
}

void tt_target_export_prepare(const struct tt_target *t, struct tt_export *e)
{
	/* a reader that has not accepted a header yet says so (-ENOENT): nothing to add */
	if (t->rd)
		(void)tt_export_set_source(e, t->fmt, t->rd);
}

const struct tt_reader_ops *tt_target_reader(const struct tt_target *t)
{
	return t->fmt;
}

const struct tt_stackread *tt_target_stacks(const struct tt_target *t)
{
	return t->stacks;
}

const void *tt_target_reader_state(const struct tt_target *t)
{
	return t->rd;
}
