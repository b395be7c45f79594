/* daemon/trigger_capture.c: captures (trigger.h): the records around a trigger, from the
 * target's history and then live, written as JSONL, .trx and Perfetto JSON by the exporters
 * (export/export.h, the same as /api/export, the .trx with the reader's registry) into a
 * directory of their own under capture_dir, with meta.json saying what the capture holds.
 *
 * A capture is built in `.NAME.partial` and renamed to NAME when its window closes, so a
 * capture that is listed is whole. The size and count limits then remove the oldest captures,
 * and only captures (directories holding meta.json and nothing but capture files).
 */
#include "trigger_int.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../proto/json.h"
#include "export.h"
#include "hub.h"
#include "log.h"

enum { F_JSONL, F_TRX, F_PERFETTO, NFILES };
static const char *const files[] = { "capture.jsonl", "capture.trx", "capture.perfetto.json",
				     "meta.json" };
static const enum tt_export_format formats[] = { TT_EXPORT_JSONL, TT_EXPORT_TRX,
						 TT_EXPORT_PERFETTO };

struct trig_cap {
	struct trig_cap *next;
	struct tt_trig_def d;          /* a copy: a reload may free the set */
	char dir[512];                 /* capture_dir when it opened (a reload may change it) */
	char name[256], part[1024];    /* NAME, and DIR/.NAME.partial */
	char when[40];
	uint64_t seq, first, last, end_seq, end_ms, records, gaps, lost, resets, missing;
	FILE *f[NFILES + 1];           /* the exports' files, then meta.json */
	struct tt_export *ex[NFILES];
	int err;                       /* the first write error */
};

static int file_put(void *arg, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -EIO;
}

static int feed(void *arg, uint64_t seq, const char *json, size_t len)
{
	struct trig_cap *c = arg;

	for (int k = 0; k < NFILES && !c->err; k++) {
		int rc = tt_export_record(c->ex[k], json, len);
		if (rc < 0 && rc != -EINVAL)
			c->err = rc;
	}
	if (!c->first)
		c->first = seq;
	c->last = seq;
	c->records++;
	/* the hub's JSON starts with the type (proto/json.c) */
	if (!strncmp(json, "{\"type\":\"gap\"", 13)) {
		const char *l = strstr(json, "\"lost\":");
		c->gaps++;
		c->lost += l ? strtoull(l + 7, NULL, 10) : 0;
	} else if (!strncmp(json, "{\"type\":\"reset\"", 15)) {
		c->resets++;
	}
	return 0;
}

/* Closes c's files and exports (c itself stays). */
static void cap_release(struct trig_cap *c)
{
	for (int k = 0; k <= NFILES; k++) {
		if (k < NFILES)
			tt_export_free(c->ex[k]);
		if (c->f[k])
			fclose(c->f[k]);
		c->f[k] = NULL;
	}
}

/* TARGET_TRIGGER_YYYYMMDDTHHMMSS.mmmZ, the target cut to file-name characters. */
static void cap_name(struct trig_cap *c, const char *target)
{
	struct timespec ts;
	struct tm tm;
	char tn[65], stamp[32];
	size_t n = 0;

	for (const char *p = target; *p && n + 1 < sizeof(tn); p++)
		tn[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-",
				 *p) ? *p : '-';
	tn[n] = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(c->name, sizeof(c->name), "%s_%s_%s.%03ldZ", n ? tn : "target", c->d.name, stamp,
		 ts.tv_nsec / 1000000);
	strftime(c->when, sizeof(c->when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(c->when + strlen(c->when), sizeof(c->when) - strlen(c->when), ".%03ldZ",
		 ts.tv_nsec / 1000000);
}

/* The first seq of the window before seq: N records, or the first sample T before now. */
static uint64_t window_start(const struct tt_trig *t, const struct trig_tgt *g,
			     const struct tt_trig_def *d, uint64_t seq)
{
	if (!d->before_ms)
		return seq > d->before_records ? seq - d->before_records : 1;
	uint64_t now = uv_now(t->loop), from = seq;
	for (size_t i = 0; i < g->nsamples; i++) {
		size_t k = (g->head + TRIG_SAMPLES - 1 - i) % TRIG_SAMPLES;
		if (now - g->samples[k].ms > d->before_ms)
			break;
		from = g->samples[k].seq;
	}
	return from;
}

static int cap_files(struct tt_trig *t, struct trig_cap *c, struct tt_hub *hub)
{
	char path[1100];

	snprintf(c->dir, sizeof(c->dir), "%s", t->set.capture_dir);
	if (mkdir(c->dir, 0750) < 0 && errno != EEXIST)
		return -errno;
	snprintf(c->part, sizeof(c->part), "%s/.%s.partial", c->dir, c->name);
	if (mkdir(c->part, 0750) < 0)
		return -errno;
	for (int k = 0; k <= NFILES; k++) {
		snprintf(path, sizeof(path), "%s/%s", c->part, files[k]);
		if (!(c->f[k] = fopen(path, "wxe")))
			return -errno;
		int rc = k < NFILES ? tt_export_new(formats[k], file_put, c->f[k], &c->ex[k]) : 0;
		if (rc < 0)
			return rc;
	}
	tt_hub_export_prepare(hub, c->ex[F_TRX]);
	return 0;
}

static void on_tick(uv_timer_t *h)
{
	struct tt_trig *t = h->data;

	for (size_t i = 0; i < t->ntgts; i++)
		if (t->tgts[i]->caps)
			trig_cap_tick(t, t->tgts[i], false);
}

void trig_cap_open(struct tt_trig *t, struct trig_tgt *g, const struct tt_trig_def *d,
		   uint64_t seq, char *name, size_t namecap)
{
	struct trig_cap *c = calloc(1, sizeof(*c));
	struct tt_hub_stats st;
	int rc;

	if (!c) {
		t->capture_errors++;
		tt_log(TT_LOG_ERR, "trigger %s: out of memory: no capture", d->name);
		return;
	}
	c->d = *d;
	c->seq = seq;
	cap_name(c, tt_hub_target(g->hub));
	if ((rc = cap_files(t, c, g->hub)) < 0) {
		t->capture_errors++;
		tt_log(TT_LOG_ERR, "trigger %s: capture %s/%s: %s", d->name, t->set.capture_dir,
		       c->name, strerror(-rc));
		cap_release(c);
		for (size_t k = 0; c->part[0] && k < sizeof(files) / sizeof(files[0]); k++) {
			char path[1100];
			snprintf(path, sizeof(path), "%s/%s", c->part, files[k]);
			unlink(path);
		}
		if (c->part[0])
			rmdir(c->part);
		free(c);
		return;
	}
	uint64_t from = window_start(t, g, d, seq);
	tt_hub_get_stats(g->hub, &st);
	c->missing = st.oldest_seq > from ? st.oldest_seq - from : 0;
	tt_hub_history_range(g->hub, from, (size_t)(seq - from + 1), feed, c, NULL);
	c->end_seq = d->after_records ? seq + d->after_records : 0;
	c->end_ms = d->after_records ? 0 : uv_now(t->loop) + d->after_ms;
	c->next = g->caps;
	g->caps = c;
	t->ncaps++;
	if (!t->timer_on) {
		uv_timer_start(&t->timer, on_tick, 20, 20);
		t->timer_on = true;
	}
	snprintf(name, namecap, "%s", c->name);
	if (!d->after_records && !d->after_ms)
		trig_cap_tick(t, g, false);
}

static void write_meta(struct trig_cap *c, const char *target, bool cut)
{
	uint64_t lost_markers = 0, markers = tt_export_trx_gaps(c->ex[F_TRX], &lost_markers);
	cJSON *m = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(m, "target", target);
	cJSON_AddStringToObject(m, "trigger", c->d.name);
	cJSON_AddStringToObject(m, "condition", c->d.cond);
	cJSON_AddStringToObject(m, "time", c->when);
	cJSON_AddNumberToObject(m, "seq", (double)c->seq);
	cJSON_AddNumberToObject(m, "first", (double)c->first);
	cJSON_AddNumberToObject(m, "last", (double)c->last);
	cJSON_AddNumberToObject(m, "records", (double)c->records);
	cJSON_AddNumberToObject(m, "missing_before", (double)c->missing);
	cJSON_AddNumberToObject(m, "gaps", (double)c->gaps);
	cJSON_AddNumberToObject(m, "lost", (double)c->lost);
	cJSON_AddNumberToObject(m, "resets", (double)c->resets);
	cJSON_AddNumberToObject(m, "trx_gap_markers", (double)markers);
	cJSON_AddBoolToObject(m, "cut_short", cut);
	if ((s = cJSON_PrintUnformatted(m))) {
		fprintf(c->f[NFILES], "%s\n", s);
		free(s);
	}
	cJSON_Delete(m);
}

/* A capture directory's files and their size; -1 when it is not a capture (no meta.json, or
 * something else inside: never removed). */
static int64_t cap_size(const char *dir, struct timespec *mtime)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int64_t size = 0;
	bool meta = false;
	char path[2048];
	struct stat st;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t k;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (k = 0; k < sizeof(files) / sizeof(files[0]); k++)
			if (!strcmp(e->d_name, files[k]))
				break;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (k == sizeof(files) / sizeof(files[0]) || lstat(path, &st) < 0 ||
		    !S_ISREG(st.st_mode)) {
			size = -1;
			break;
		}
		meta |= k == sizeof(files) / sizeof(files[0]) - 1;
		if (k == sizeof(files) / sizeof(files[0]) - 1)
			*mtime = st.st_mtim;
		size += st.st_size;
	}
	closedir(d);
	return meta ? size : -1;
}

struct entry {
	char name[256];
	int64_t size;
	struct timespec mtime;
};

static int by_age(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The captures in dir, oldest first (caller frees); -errno. */
static int list(const char *dir, struct entry **out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct entry *v = NULL;
	size_t cap = 0;
	char path[1400];

	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct entry x = { .size = 0 };
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(x.name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((x.size = cap_size(path, &x.mtime)) < 0)
			continue;
		snprintf(x.name, sizeof(x.name), "%s", e->d_name);
		if (*n == cap) {
			struct entry *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = x;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_age);
	*out = v;
	return 0;
}

/* Removes the oldest captures in dir until the limits hold; keep (the newest) stays. */
static void enforce_limits(struct tt_trig *t, const char *dir, const char *keep)
{
	struct entry *v;
	size_t n, count;
	uint64_t total = 0;
	char path[1400];

	if (list(dir, &v, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		total += (uint64_t)v[i].size;
	count = n;
	for (size_t i = 0; i < n; i++) {
		bool files_over = count > t->set.capture_max_files;
		if (!files_over && total <= t->set.capture_max_bytes)
			break;
		if (!strcmp(v[i].name, keep))
			continue;
		for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
			snprintf(path, sizeof(path), "%s/%s/%s", dir, v[i].name, files[k]);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		if (rmdir(path) < 0) {
			tt_log(TT_LOG_ERR, "capture %s: cannot remove: %s", path, strerror(errno));
			continue;
		}
		count--;
		total -= (uint64_t)v[i].size;
		t->removed++;
		tt_log(TT_LOG_NOTICE, "capture %s removed: %s reached (oldest removed first)",
		       v[i].name, files_over ? "capture_max_files" : "capture_max_bytes");
	}
	free(v);
}

static void cap_close(struct tt_trig *t, struct trig_tgt *g, struct trig_cap *c, bool cut)
{
	const char *target = tt_hub_target(g->hub);
	char final[1100];

	for (int k = 0; k < NFILES && !c->err; k++)
		c->err = tt_export_finish(c->ex[k]);
	write_meta(c, target, cut);
	for (int k = 0; k <= NFILES; k++) {
		if (fclose(c->f[k]) != 0 && !c->err)
			c->err = -EIO;
		c->f[k] = NULL;
	}
	snprintf(final, sizeof(final), "%s/%s", c->dir, c->name);
	if (!c->err && rename(c->part, final) < 0)
		c->err = -errno;
	if (c->err) {
		t->capture_errors++;
		tt_log(TT_LOG_ERR, "target %s: capture %s: %s (left in %s)", target, c->name,
		       strerror(-c->err), c->part);
	} else {
		char note[200] = "";
		t->captures++;
		if (c->gaps)
			snprintf(note, sizeof(note), "; spans %" PRIu64 " gap(s), %" PRIu64
				 " events lost", c->gaps, c->lost);
		tt_log(TT_LOG_NOTICE, "target %s: capture %s written: %" PRIu64 " records, seq %"
		       PRIu64 "-%" PRIu64 "%s%s", target, final, c->records, c->first, c->last,
		       cut ? " (cut short: the daemon stopped)" : "", note);
		enforce_limits(t, c->dir, c->name);
		if (c->d.ncommand)
			trig_command(t, &c->d, target, c->seq, final);
	}
	cap_release(c);
	free(c);
}

void trig_cap_tick(struct tt_trig *t, struct trig_tgt *g, bool force)
{
	uint64_t now = uv_now(t->loop);

	for (struct trig_cap **p = &g->caps; *p;) {
		struct trig_cap *c = *p;
		if (!force && !(c->end_ms && now >= c->end_ms) && !(c->end_seq && c->last >= c->end_seq)) {
			p = &c->next;
			continue;
		}
		*p = c->next;
		t->ncaps--;
		cap_close(t, g, c, force);
	}
	if (!t->ncaps && t->timer_on) {
		uv_timer_stop(&t->timer);
		t->timer_on = false;
	}
}

static int feed_all(void *arg, uint64_t seq, const char *json, size_t len)
{
	for (struct trig_cap *c = arg; c; c = c->next)
		if (seq > c->last)
			feed(c, seq, json, len);
	return 0;
}

void trig_cap_record(struct tt_trig *t, struct trig_tgt *g, uint64_t seq)
{
	tt_hub_history_range(g->hub, seq, 1, feed_all, g->caps, NULL);
	for (struct trig_cap *c = g->caps; c; c = c->next) {
		if (c->end_seq && c->last >= c->end_seq) {
			trig_cap_tick(t, g, false);
			break;
		}
	}
}

/* ---- /api/captures ---- */

/* meta.json of capture name, parsed (caller deletes), or NULL. */
static cJSON *read_meta(const char *dir, const char *name)
{
	char path[1400], buf[8192];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s/meta.json", dir, name);
	if (!(f = fopen(path, "re")))
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	cJSON *m = cJSON_Parse(buf);
	if (m && !cJSON_IsObject(m)) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

static int http_list(const struct tt_trig *t, int (*put)(void *, const void *, size_t),
		     void *arg)
{
	struct entry *v = NULL;
	size_t n = 0;
	cJSON *arr = cJSON_CreateArray();
	char *s;

	if (t && t->set.capture_dir[0])
		list(t->set.capture_dir, &v, &n);
	for (size_t i = n; i-- > 0;) { /* newest first */
		cJSON *m = read_meta(t->set.capture_dir, v[i].name);
		if (!m)
			continue;
		cJSON_AddStringToObject(m, "name", v[i].name);
		cJSON_AddNumberToObject(m, "bytes", (double)v[i].size);
		cJSON *fl = cJSON_AddArrayToObject(m, "files");
		for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++)
			cJSON_AddItemToArray(fl, cJSON_CreateString(files[k]));
		cJSON_AddItemToArray(arr, m);
	}
	free(v);
	s = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	if (!s)
		return 500;
	put(arg, s, strlen(s));
	put(arg, "\n", 1);
	free(s);
	return 200;
}

static int http_error(int (*put)(void *, const void *, size_t), void *arg, int status,
		      const char *msg)
{
	char buf[300];
	int n = snprintf(buf, sizeof(buf), "{\"error\":\"%s\",\"status\":%d}\n", msg, status);
	put(arg, buf, (size_t)n);
	return status;
}

/* /api/captures/NAME/FILE: NAME one capture directory's name (no '/', not starting with '.'),
 * FILE one of the capture files: nothing outside capture_dir can be named. */
static int http_file(const struct tt_trig *t, const char *rest,
		     int (*put)(void *, const void *, size_t), void *arg, const char **type,
		     char *disp, size_t dcap)
{
	char name[256], path[1400], buf[65536];
	const char *slash = strchr(rest, '/');
	size_t k, nl = slash ? (size_t)(slash - rest) : 0;

	if (!slash || !nl || nl >= sizeof(name) || rest[0] == '.' ||
	    strspn(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != nl)
		return http_error(put, arg, 404, "no such capture");
	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++)
		if (!strcmp(slash + 1, files[k]))
			break;
	if (k == sizeof(files) / sizeof(files[0]))
		return http_error(put, arg, 404, "no such capture file (capture.jsonl, capture.trx, "
				  "capture.perfetto.json, meta.json)");
	memcpy(name, rest, nl);
	name[nl] = 0;
	snprintf(path, sizeof(path), "%s/%s/%s", t->set.capture_dir, name, files[k]);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return http_error(put, arg, 404, "no such capture");
	}
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (put(arg, buf, (size_t)r) < 0)
			break;
	close(fd);
	*type = k == F_TRX ? "application/octet-stream" : k == F_JSONL ? "application/x-ndjson"
							  : "application/json";
	snprintf(disp, dcap, "attachment; filename=\"%s-%s\"", name, files[k]);
	return 200;
}

int tt_trig_http(const struct tt_trig *t, const char *uri,
		 int (*put)(void *arg, const void *buf, size_t len), void *arg,
		 const char **type, char *disp, size_t dcap)
{
	static const char prefix[] = "/api/captures";

	if (strncmp(uri, prefix, sizeof(prefix) - 1) ||
	    (uri[sizeof(prefix) - 1] && uri[sizeof(prefix) - 1] != '/'))
		return 0;
	*type = "application/json";
	disp[0] = 0;
	if (!uri[sizeof(prefix) - 1] || !uri[sizeof(prefix)])
		return http_list(t, put, arg);
	if (!t || !t->set.capture_dir[0])
		return http_error(put, arg, 404, "no capture directory configured");
	return http_file(t, uri + sizeof(prefix), put, arg, type, disp, dcap);
}
