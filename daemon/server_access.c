/* daemon/server_access.c: who may connect, and how many.
 *
 * The Host, Origin and token checks every WebSocket upgrade and API request passes (with what a
 * client was admitted with kept, so a SIGHUP that changes the token or the origins can close
 * those that no longer pass), and the descriptor budget that keeps libwebsockets from accepting
 * into EMFILE.
 */
#include "server_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

/* ---- checks ---- */

static bool secret_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < lb; i++)
		d |= (unsigned char)(a[la ? i % la : 0] ^ b[i]);
	return d == 0 && la == lb;
}

/* host[:port] (a Host header, or an Origin after "scheme://") names this server by a loopback
 * name or its listen address; with any_port, on any port (a tunnel: ssh -L 9000:localhost:7733),
 * else on its own (none = the scheme's default). */
static bool local_host(struct tt_server *s, const char *hp, bool any_port)
{
	static const char *const names[] = { "127.0.0.1", "localhost", "[::1]" };
	const char *colon = hp[0] == '[' ? strchr(hp, ']') : strchr(hp, ':');
	size_t hl;
	long port = s->tls_cert ? 443 : 80;

	if (hp[0] == '[' && colon)
		colon = colon[1] == ':' ? colon + 1 : colon[1] ? "" : NULL;
	if (colon && *colon != ':')
		return false;
	hl = colon ? (size_t)(colon - hp) : strlen(hp);
	if (colon) {
		char *end;
		if (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
			return false;
		port = strtol(colon + 1, &end, 10);
	}
	if ((!any_port && port != s->port) || !hl)
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == hl && !strncasecmp(hp, names[i], hl))
			return true;
	return strcmp(s->listen, "0.0.0.0") && strlen(s->listen) == hl &&
	       !strncasecmp(hp, s->listen, hl);
}

/* Without a token, the Host a browser sends must name this server: a page on another site
 * whose name was rebound to 127.0.0.1 sends its own name (DNS rebinding). The port is not the
 * point (tunnels and proxies change it). With a token, the token is the guard. */
static bool host_ok(struct tt_server *s, const char *host)
{
	if (!host || s->token || local_host(s, host, true))
		return true;
	for (size_t i = 0; i < s->cfg.norigins; i++) {
		const char *o = s->origins[i], *hp = strstr(o, "://");
		if (!strcmp(o, "*") || (hp && !strcasecmp(hp + 3, host)))
			return true;
	}
	return false;
}

static bool origin_ok(struct tt_server *s, const char *origin, const char *host)
{
	const char *scheme = s->tls_cert ? "https://" : "http://";
	size_t sl = strlen(scheme);

	for (size_t i = 0; i < s->cfg.norigins; i++)
		if (!strcmp(s->origins[i], "*") || !strcasecmp(s->origins[i], origin))
			return true;
	if (strncasecmp(origin, scheme, sl))
		return false;
	if (local_host(s, origin + sl, false))
		return true;
	/* the page came from where the client reached this server (a tunnel's port): that Host
	 * passed host_ok, or a token guards. Another local site (another port) does not pass. */
	return host && !strcasecmp(origin + sl, host);
}

int tt_server_access(struct tt_server *s, const char *origin, const char *host, bool token_ok,
		     char *why, size_t whylen)
{
	if (!host_ok(s, host)) {
		snprintf(why, whylen, "Host %.200s is not served (allowed: 127.0.0.1, localhost, "
				      "[::1], the listen address, the hosts of the origins list; or "
				      "set a token)", host);
		return HTTP_STATUS_FORBIDDEN;
	}
	if (origin && !origin_ok(s, origin, host)) {
		snprintf(why, whylen,
			 "Origin %.200s is not allowed (allowed: %s://127.0.0.1, localhost or [::1] "
			 "with port %d, the Host the client used, or the configuration's origins "
			 "list)", origin, s->tls_cert ? "https" : "http", s->port);
		return HTTP_STATUS_FORBIDDEN;
	}
	if (s->token && !token_ok) {
		snprintf(why, whylen, "a valid token is required (Authorization: Bearer TOKEN, or "
				      "?token=TOKEN)");
		return HTTP_STATUS_UNAUTHORIZED;
	}
	return 0;
}

static bool token_given(struct tt_server *s, struct lws *wsi)
{
	char buf[512];

	if (!s->token)
		return false;
	if (tt_server_header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, buf, sizeof(buf)) > 0 &&
	    !strncmp(buf, "Bearer ", 7) && secret_eq(buf + 7, s->token))
		return true;
	return tt_server_url_arg(wsi, "token=", buf, sizeof(buf)) > 0 && secret_eq(buf, s->token);
}

int tt_server_check_access(struct tt_server *s, struct lws *wsi, char *why, size_t whylen)
{
	char origin[512], host[256];
	int ro = tt_server_header(wsi, WSI_TOKEN_ORIGIN, origin, sizeof(origin));
	int rh = tt_server_header(wsi, WSI_TOKEN_HOST, host, sizeof(host));

	/* too long to check is refused, never taken for absent */
	if (ro < 0 || rh < 0) {
		snprintf(why, whylen, "%s header longer than %zu bytes", ro < 0 ? "Origin" : "Host",
			 (ro < 0 ? sizeof(origin) : sizeof(host)) - 1);
		return ro < 0 ? HTTP_STATUS_FORBIDDEN : HTTP_STATUS_BAD_REQUEST;
	}
	return tt_server_access(s, ro ? origin : NULL, rh ? host : NULL, token_given(s, wsi), why,
				whylen);
}

/* ---- admission ---- */

/* What the client was admitted with, to check it again when the access settings change. */
void tt_server_keep_admission(struct conn *c, struct lws *wsi)
{
	char buf[512];

	if (tt_server_header(wsi, WSI_TOKEN_ORIGIN, buf, sizeof(buf)) > 0)
		c->origin = strdup(buf);
	if (tt_server_header(wsi, WSI_TOKEN_HOST, buf, sizeof(buf)) > 0)
		c->host = strdup(buf);
	c->token_gen = c->srv->token_gen;
}

/* ---- at run time (SIGHUP) ---- */

unsigned tt_server_max_clients(const struct tt_server *s)
{
	return s->max_clients;
}

int tt_server_set_access(struct tt_server *s, const char *token, const char *const *origins,
			 size_t norigins, unsigned max_clients)
{
	char **no = calloc(norigins + 1, sizeof(*no)), *nt = tt_server_strdup(token), why[300];
	bool changed = (nt == NULL) != (s->token == NULL) || (nt && strcmp(nt, s->token));
	int closed = 0;

	if (!no || (token && *token && !nt))
		goto fail;
	for (size_t i = 0; i < norigins; i++)
		if (!(no[i] = strdup(origins[i])))
			goto fail;
	for (size_t i = 0; i < s->cfg.norigins; i++)
		free(s->origins[i]);
	free(s->origins);
	free(s->token);
	s->origins = no;
	s->cfg.norigins = norigins;
	s->cfg.origins = (const char *const *)no;
	s->token = nt;
	s->cfg.token = nt;
	s->token_gen += changed;
	if (max_clients) {
		s->cfg.max_clients = max_clients;
		s->max_clients = max_clients < s->fd_clients ? max_clients : s->fd_clients;
	}
	for (struct conn *c = s->conns, *next; c; c = next) {
		next = c->next; /* tt_server_kick may free c */
		if (!tt_server_access(s, c->origin, c->host, c->token_gen == s->token_gen, why,
				      sizeof(why)))
			continue;
		tt_server_logf(s, 5, "closing a client that no longer passes: %s", why);
		tt_server_kick(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "access settings changed: reconnect");
		closed++;
	}
	return closed;
fail:
	for (size_t i = 0; no && i < norigins; i++)
		free(no[i]);
	free(no);
	free(nt);
	return -ENOMEM;
}

/* ---- descriptors ---- */

/* Descriptors the process has open now. */
static unsigned open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	if (!d)
		return 64; /* a guess on the safe side */
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0; /* ".", ".." and the directory's own */
}

/* lws accepts until its own table is full and then stops polling the listener; left to
 * itself it sizes that table by the whole descriptor limit, so accept() fails first (EMFILE)
 * and the loop spins on a listener that stays readable. Give lws three quarters of what is
 * free (the rest: targets, OpenOCD, exports' files), and WebSocket clients three quarters of
 * that (the rest: HTTP requests), so /healthz answers at the limit. */
void tt_server_fit_fd_limit(struct tt_server *s, struct lws_context_creation_info *info)
{
	struct rlimit rl;
	unsigned used = open_fds(), avail, lws_fds;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		rl.rlim_cur = 65536;
	if (rl.rlim_cur > 1u << 20)
		rl.rlim_cur = 1u << 20;
	avail = (unsigned)rl.rlim_cur > used + 16 ? (unsigned)rl.rlim_cur - used : 16;
	lws_fds = avail * 3 / 4;
	s->fd_clients = lws_fds * 3 / 4 > 1 ? lws_fds * 3 / 4 - 1 : 1;
	s->max_clients = s->cfg.max_clients < s->fd_clients ? s->cfg.max_clients : s->fd_clients;
	if (s->max_clients < s->cfg.max_clients)
		tt_server_logf(s, 4, "descriptor limit %llu (%u in use): at most %u clients instead of "
			       "%u (raise LimitNOFILE / ulimit -n)", (unsigned long long)rl.rlim_cur,
			       used, s->max_clients, s->cfg.max_clients);
	info->fd_limit_per_thread = lws_fds; /* lws's own sockets, the listener included */
}
