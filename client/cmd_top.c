/* client/cmd_top.c: `tracetap top [URL]`: a target's threads live, like top.
 *
 * Once a second it asks the daemon for the target's live analysis (/api/stats, the analysis of
 * every record since attach) and shows what changed since the last screen: each thread's share
 * of the target's time over that interval (ticks of the target's own clock, so a slow link does
 * not distort it), context switches per second of host time, preemptions, stack bytes free
 * (read from RAM where the stacks are painted, "N p", else the lowest traced stack pointer
 * against the registry's bounds, "N t"; "nofill": no fill pattern) and inversions; the first screen
 * shows the totals since attach. Laid out to the terminal's width (80 columns and up; narrower
 * terminals cut the name column), redrawn in place on a terminal, one screen after another
 * otherwise. Names come from the target: they reach the terminal as tt_textfmt_clean makes them.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "textfmt.h"

#define MAX_THREADS 256

struct prev {
	bool have;
	double span, wall, idle, isr;
	struct { double id, ticks, switches; } t[MAX_THREADS];
	int n;
};

static volatile sig_atomic_t top_stop;

static void on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int term_width(void)
{
	struct winsize w;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 40)
		return w.ws_col > 200 ? 200 : w.ws_col;
	return 80;
}

/* name as the terminal may show it (textfmt.h), cut to width columns, padded. */
static void put_name(char *out, size_t cap, const char *name, int width)
{
	char clean[TT_TEXTFMT_CAP(64)];

	tt_textfmt_cell(out, cap, tt_textfmt_clean(clean, sizeof(clean), name, 64), width, false,
			true);
}

/* One line, cut to the terminal's width (columns, between characters). */
__attribute__((format(printf, 2, 3))) static void line(int width, const char *fmt, ...)
{
	char buf[512], cut[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		printf("%s\n", tt_textfmt_cell(cut, sizeof(cut), buf, width, false, false));
}

/* The previous screen's figures of thread id, or NULL. */
static const void *prev_of(const struct prev *p, double id, double *ticks, double *switches)
{
	for (int i = 0; p->have && i < p->n; i++)
		if (p->t[i].id == id) {
			*ticks = p->t[i].ticks;
			*switches = p->t[i].switches;
			return &p->t[i];
		}
	*ticks = *switches = 0;
	return NULL;
}

static void header(const cJSON *st, const char *target, double span, struct prev *p,
		   int width)
{
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(st, "execution");
	const cJSON *pf = cJSON_GetObjectItemCaseSensitive(st, "performance");
	char ev[16], tg[40];

	put_name(tg, sizeof(tg), target ? target : "", target ? (int)strnlen(target, 24) : 0);
	line(width, "tracetap top  %s  events %s  gaps %.0f  lost %.0f  epochs %.0f", tg,
	       tt_cli_count(ev, sizeof(ev), num(st, "events")), num(st, "gaps"), num(st, "lost"),
	       num(st, "epochs"));
	line(width, "since attach: irqs %.0f  switches %.0f  preempted %.0f  inversions %.0f/%.0f  "
	     "unknown %.1f%%", num(pf, "interrupts"), num(pf, "context_switches"),
	       num(pf, "preemptions"), num(pf, "priority_inversions"),
	       num(pf, "nondeterministic_inversions"),
	       span > 0 ? 100.0 * num(ex, "unknown_ticks") / span : 0.0);
	double idle = num(ex, "idle_ticks"), isr = num(ex, "interrupt_ticks");
	double d = p->have ? span - p->span : span;
	line(width, "last interval: idle %.2f%%  interrupts %.2f%%",
	       d > 0 ? 100.0 * (idle - (p->have ? p->idle : 0)) / d : 0.0,
	       d > 0 ? 100.0 * (isr - (p->have ? p->isr : 0)) / d : 0.0);
	p->idle = idle;
	p->isr = isr;
}

/* One screen of the analysis st; p: the previous one's figures (updated). */
/* The STACK FREE cell: the painted figure read from RAM ("N p") where there is one, else the
 * lowest traced stack pointer's ("N t"); "nofill" when the stack has no fill pattern and no
 * pointer was traced in it. */
static void stack_cell(const cJSON *t, char *out, size_t len)
{
	const cJSON *sk = cJSON_GetObjectItemCaseSensitive(t, "stack");
	const cJSON *pt = sk ? cJSON_GetObjectItemCaseSensitive(sk, "painted") : NULL;
	const cJSON *state = pt ? cJSON_GetObjectItemCaseSensitive(pt, "state") : NULL;

	snprintf(out, len, "-");
	if (pt && cJSON_GetObjectItemCaseSensitive(pt, "free"))
		snprintf(out, len, "%.0f p", num(pt, "free"));
	else if (sk && cJSON_GetObjectItemCaseSensitive(sk, "lowest_sp") &&
		 cJSON_GetObjectItemCaseSensitive(sk, "min_free"))
		snprintf(out, len, "%.0f t", num(sk, "min_free"));
	else if (cJSON_IsString(state) && !strcmp(state->valuestring, "no fill pattern"))
		snprintf(out, len, "nofill");
	else if (sk && cJSON_GetObjectItemCaseSensitive(sk, "min_free"))
		snprintf(out, len, "%.0f t", num(sk, "min_free"));
}

static void screen(const cJSON *st, const char *target, struct prev *p, int width)
{
	const cJSON *threads = cJSON_GetObjectItemCaseSensitive(st, "threads"), *t;
	double span = num(st, "span_ticks"), wall = now_s();
	double dspan = p->have ? span - p->span : span, dwall = p->have ? wall - p->wall : 0;
	int namew = width - 61, n = 0; /* the other columns take 60 */
	char name[128];

	if (namew < 8)
		namew = 8;
	if (namew > 64)
		namew = 64;
	header(st, target, span, p, width);
	put_name(name, sizeof(name), "THREAD", namew);
	line(width, "%s", "");
	line(width, "%s %5s %6s %9s %8s %9s %11s %5s", name, "PRIO", "CPU%", "SWITCH/s", "PREEMPT",
	       "SUSPEND", "STACK FREE", "INV");
	cJSON_ArrayForEach(t, threads) {
		double id = num(t, "id"), ticks = num(t, "ticks"), sw = num(t, "context_switches");
		double pt, ps;
		char free_s[24];
		prev_of(p, id, &pt, &ps);
		stack_cell(t, free_s, sizeof(free_s));
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(t, "name");
		put_name(name, sizeof(name), cJSON_IsString(nm) ? nm->valuestring : "?", namew);
		line(width, "%s %5.0f %6.2f %9.1f %8.0f %9.0f %11s %5.0f", name, num(t, "priority"),
		       dspan > 0 ? 100.0 * (ticks - pt) / dspan : 0.0,
		       dwall > 0 ? (sw - ps) / dwall : 0.0, num(t, "preemptions"),
		       num(t, "suspensions"), free_s, num(t, "inversions"));
		if (n < MAX_THREADS) {
			p->t[n].id = id;
			p->t[n].ticks = ticks;
			p->t[n++].switches = sw;
		}
	}
	p->n = n;
	p->have = true;
	p->span = span;
	p->wall = wall;
	fflush(stdout);
}

int tt_cmd_top(int argc, char **argv)
{
	struct tt_cli o;
	char path[1024] = "/api/stats";
	static struct prev p;
	bool tty = isatty(STDOUT_FILENO);
	double end;
	long long shown = 0;
	int rc = tt_cli_parse(argc, argv, "top", &o);

	if (rc)
		return rc < 0 ? 2 : 0;
	if (o.target && tt_cli_query(path, sizeof(path), "target", o.target) < 0) {
		fprintf(stderr, "tracetap top: the target's name is too long for a request\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	end = o.duration > 0 ? now_s() + o.duration : 0;
	while (!top_stop && (!o.count || shown < o.count) && (!end || now_s() < end)) {
		cJSON *st;
		if (tt_cli_get(&o, path, &st, NULL, NULL))
			return 1;
		if (tty)
			printf("\033[H\033[2J");
		screen(st, o.target, &p, term_width());
		cJSON_Delete(st);
		if (++shown == o.count)
			break;
		/* a screen a second: what it shows is a rate over that interval */
		struct timespec ts = { 1, 0 };
		while (!top_stop && nanosleep(&ts, &ts) != 0)
			;
	}
	return 0;
}
