/* proto/threadx_analysis.c: what ThreadX events mean to the live analysis (analysis_ops.h).
 *
 * The rules are TraceX's (eclipse-threadx/tracex, tml_library.cpp), so that `tracetap analyze`
 * of a .trx gives TraceX's numbers: which info word of which event is the stack pointer
 * (tml_thread_stack_usage_get), which events open and close a priority inversion window
 * (tml_calculate_priority_inversions: a MUTEX_GET whose info 3 names another owner; a MUTEX_PUT
 * whose info 3, the own count, is 1), and which FileX and NetX events add to which of TraceX's
 * statistics, by how much (tml_system_filex/netx_performance_statistics_get). Where tracetap
 * counts differently from TraceX, proto/README-threadx.md "Analysis" says where and why.
 */
#include <errno.h>
#include <string.h>

#include "analysis_ops.h"
#include "reader.h"
#include "threadx.h"

#define TX_ISR 0xFFFFFFFFu
#define TX_INIT 0xF0F0F0F0u
#define TX_OBJ_THREAD 1u

enum { ID_RESUME = 1, ID_SUSPEND = 2, ID_ISR_ENTER = 3, ID_ISR_EXIT = 4, ID_TIME_SLICE = 5,
       ID_MUTEX_GET = 52, ID_MUTEX_PUT = 57 };

/* The info word (1-4) holding the stack pointer, per event id (TraceX's table); 0: none. */
static int sp_word(uint32_t id)
{
	switch (id) {
	case 3: case 4: case 109:
		return 1;
	case 12: case 22: case 30: case 31: case 40: case 51: case 61: case 62: case 82:
	case 101: case 120: case 125: case 127:
		return 2;
	case 1: case 2: case 16: case 26: case 50: case 56: case 67: case 81: case 87: case 100:
	case 102: case 111: case 112: case 114: case 115: case 117:
		return 3;
	case 17: case 21: case 57: case 83: case 88:
		return 4;
	default:
		return 0;
	}
}

enum {
	C_MEDIA_OPEN, C_MEDIA_CLOSE, C_MEDIA_ABORT, C_MEDIA_FLUSH, C_DIR_READ, C_DIR_WRITE,
	C_DIR_MISS, C_FILE_OPEN, C_FILE_CLOSE, C_FILE_READ, C_FILE_WRITE, C_SEC_READ, C_SEC_WRITE,
	C_SEC_MISS,
	C_ARP_REQ_TX, C_ARP_RSP_TX, C_ARP_REQ_RX, C_ARP_RSP_RX, C_PKT_ALLOC, C_PKT_RELEASE,
	C_PKT_EMPTY, C_PKT_INVALID, C_PING_TX, C_PING_RSP, C_IP_TX, C_IP_TX_BYTES, C_IP_RX,
	C_IP_RX_BYTES, C_TCP_CLIENT, C_TCP_SERVER, C_TCP_TX, C_TCP_TX_BYTES, C_TCP_RX,
	C_TCP_RX_BYTES, C_UDP_TX, C_UDP_TX_BYTES, C_UDP_RX, C_UDP_RX_BYTES, C_N
};

#define FX "FileX Performance Statistics"
#define NX "NetX Performance Statistics"
static const struct tt_an_counter counters[C_N] = {
	[C_MEDIA_OPEN] = { "filex_media_opens", FX, "Media Statistics", "Opens" },
	[C_MEDIA_CLOSE] = { "filex_media_closes", FX, "Media Statistics", "Closes" },
	[C_MEDIA_ABORT] = { "filex_media_aborts", FX, "Media Statistics", "Aborts" },
	[C_MEDIA_FLUSH] = { "filex_media_flushes", FX, "Media Statistics", "Flushes" },
	[C_DIR_READ] = { "filex_directory_reads", FX, "Directory Statistics", "Reads" },
	[C_DIR_WRITE] = { "filex_directory_writes", FX, "Directory Statistics", "Writes" },
	[C_DIR_MISS] = { "filex_directory_cache_misses", FX, "Directory Statistics",
			 "Cache Misses" },
	[C_FILE_OPEN] = { "filex_file_opens", FX, "File Statistics", "Opens" },
	[C_FILE_CLOSE] = { "filex_file_closes", FX, "File Statistics", "Closes" },
	[C_FILE_READ] = { "filex_file_bytes_read", FX, "File Statistics", "Bytes Read" },
	[C_FILE_WRITE] = { "filex_file_bytes_written", FX, "File Statistics", "Bytes Written" },
	[C_SEC_READ] = { "filex_sector_reads", FX, "Logical Sector Statistics", "Reads" },
	[C_SEC_WRITE] = { "filex_sector_writes", FX, "Logical Sector Statistics", "Writes" },
	[C_SEC_MISS] = { "filex_sector_cache_misses", FX, "Logical Sector Statistics",
			 "Cache Misses" },
	[C_ARP_REQ_TX] = { "netx_arp_requests_sent", NX, "ARP Statistics", "Requests Sent" },
	[C_ARP_RSP_TX] = { "netx_arp_responses_sent", NX, "ARP Statistics", "Responses Sent" },
	[C_ARP_REQ_RX] = { "netx_arp_requests_received", NX, "ARP Statistics",
			   "Requests Received" },
	[C_ARP_RSP_RX] = { "netx_arp_responses_received", NX, "ARP Statistics",
			   "Responses Received" },
	[C_PKT_ALLOC] = { "netx_packet_allocations", NX, "Packet Pool Statistics", "Allocations" },
	[C_PKT_RELEASE] = { "netx_packet_releases", NX, "Packet Pool Statistics", "Releases" },
	[C_PKT_EMPTY] = { "netx_packet_empty_allocations", NX, "Packet Pool Statistics",
			  "Empty Allocation Requests" },
	[C_PKT_INVALID] = { "netx_packet_invalid_releases", NX, "Packet Pool Statistics",
			    "Invalid Releases" },
	[C_PING_TX] = { "netx_pings_sent", NX, "Ping Statistics", "Pings Sent" },
	[C_PING_RSP] = { "netx_ping_responses", NX, "Ping Statistics", "Ping Responses" },
	[C_IP_TX] = { "netx_ip_packets_sent", NX, "IP Statistics", "Packets Sent" },
	[C_IP_TX_BYTES] = { "netx_ip_bytes_sent", NX, "IP Statistics", "Total Bytes Sent" },
	[C_IP_RX] = { "netx_ip_packets_received", NX, "IP Statistics", "Packets Received" },
	[C_IP_RX_BYTES] = { "netx_ip_bytes_received", NX, "IP Statistics", "Total Bytes Received" },
	[C_TCP_CLIENT] = { "netx_tcp_client_connections", NX, "TCP Statistics",
			   "Client Connections" },
	[C_TCP_SERVER] = { "netx_tcp_server_connections", NX, "TCP Statistics",
			   "Server Connections" },
	[C_TCP_TX] = { "netx_tcp_packets_sent", NX, "TCP Statistics", "Packets Sent" },
	[C_TCP_TX_BYTES] = { "netx_tcp_bytes_sent", NX, "TCP Statistics", "Total Bytes Sent" },
	[C_TCP_RX] = { "netx_tcp_packets_received", NX, "TCP Statistics", "Packets Received" },
	[C_TCP_RX_BYTES] = { "netx_tcp_bytes_received", NX, "TCP Statistics",
			     "Total Bytes Received" },
	[C_UDP_TX] = { "netx_udp_packets_sent", NX, "UDP Statistics", "Packets Sent" },
	[C_UDP_TX_BYTES] = { "netx_udp_bytes_sent", NX, "UDP Statistics", "Total Bytes Sent" },
	[C_UDP_RX] = { "netx_udp_packets_received", NX, "UDP Statistics", "Packets Received" },
	[C_UDP_RX_BYTES] = { "netx_udp_bytes_received", NX, "UDP Statistics",
			     "Total Bytes Received" },
};

/* FileX and NetX events: the counter they add to, and what: 0 adds 1, 1-4 adds that info word. */
static const struct { uint16_t id, ctr; uint8_t word; } mw[] = {
	{ 261, C_MEDIA_OPEN, 0 }, { 258, C_MEDIA_CLOSE, 0 }, { 255, C_MEDIA_ABORT, 0 },
	{ 203, C_MEDIA_FLUSH, 0 }, { 204, C_DIR_READ, 0 }, { 205, C_DIR_WRITE, 0 },
	{ 202, C_DIR_MISS, 0 }, { 247, C_FILE_OPEN, 0 }, { 243, C_FILE_CLOSE, 0 },
	{ 248, C_FILE_READ, 4 }, { 254, C_FILE_WRITE, 4 }, { 206, C_SEC_READ, 3 },
	{ 207, C_SEC_WRITE, 3 }, { 201, C_SEC_MISS, 0 },
	{ 301, C_ARP_REQ_TX, 0 }, { 303, C_ARP_RSP_TX, 0 }, { 300, C_ARP_REQ_RX, 0 },
	{ 302, C_ARP_RSP_RX, 0 }, { 386, C_PKT_ALLOC, 0 }, { 394, C_PKT_RELEASE, 0 },
	{ 362, C_PING_TX, 0 }, { 309, C_IP_TX, 0 }, { 308, C_IP_RX, 0 },
	{ 401, C_TCP_CLIENT, 0 }, { 407, C_TCP_SERVER, 0 }, { 421, C_TCP_TX, 0 },
	{ 419, C_TCP_RX, 0 }, { 436, C_UDP_TX, 0 }, { 434, C_UDP_RX, 0 },
};

static void add(struct tt_an_class *c, unsigned ctr, uint32_t v)
{
	if (c->ncount < TT_AN_MAX_COUNTS) {
		c->count[c->ncount].idx = (uint16_t)ctr;
		c->count[c->ncount++].add = v;
	}
}

/* The second counter some NetX events add to (bytes, or a condition TraceX checks). */
static void mw_second(uint32_t id, const uint32_t *info, struct tt_an_class *c)
{
	if (id == 386 && info[3] == 0)
		add(c, C_PKT_EMPTY, 1);
	else if (id == 394 && info[1] != 0xAAAAAAAAu)
		add(c, C_PKT_INVALID, 1);
	else if (id == 309)
		add(c, C_IP_TX_BYTES, info[3]);
	else if (id == 308)
		add(c, C_IP_RX_BYTES, info[3]);
	else if (id == 421)
		add(c, C_TCP_TX_BYTES, info[2]);
	else if (id == 419)
		add(c, C_TCP_RX_BYTES, info[2]);
	else if (id == 436)
		add(c, C_UDP_TX_BYTES, info[2]);
	else if (id == 434)
		add(c, C_UDP_RX_BYTES, info[3]);
}

static void mw_counts(uint32_t id, const uint32_t *info, struct tt_an_class *c)
{
	if (id == 304) { /* an ICMP receive with no code in info 4's high half: a ping reply */
		if ((info[3] & 0xFFFF0000u) == 0)
			add(c, C_PING_RSP, 1);
		return;
	}
	for (size_t i = 0; i < sizeof(mw) / sizeof(mw[0]); i++)
		if (mw[i].id == id) {
			add(c, mw[i].ctr, mw[i].word ? info[mw[i].word - 1] : 1);
			mw_second(id, info, c);
			return;
		}
}

static void tx_classify(const struct tt_event *ev, struct tt_an_class *c)
{
	uint32_t id = ev->id, ctx;
	const uint32_t *info;
	int w;

	if (ev->nraw < 8 || !ev->raw)
		return;
	ctx = ev->raw[0];
	info = ev->raw + 4;
	if (id == ID_RESUME || id == ID_SUSPEND) {
		c->flags |= id == ID_RESUME ? TT_AN_RESUME : TT_AN_SUSPEND;
		c->obj = info[0];
	} else if (id == ID_ISR_ENTER) {
		c->flags |= TT_AN_ISR_ENTER;
	} else if (id == ID_ISR_EXIT) {
		c->flags |= TT_AN_ISR_EXIT;
	} else if (id == ID_TIME_SLICE) {
		c->flags |= TT_AN_TIME_SLICE;
	} else if (id == ID_MUTEX_GET) {
		c->flags |= TT_AN_MUTEX_GET;
		c->obj = info[0];
		c->other = info[2] != ctx ? info[2] : 0;
	} else if (id == ID_MUTEX_PUT) {
		c->flags |= TT_AN_MUTEX_PUT | (info[2] == 1 ? TT_AN_RELEASE : 0);
		c->obj = info[0];
	}
	w = sp_word(id);
	if (w && ctx != TX_ISR && ctx != TX_INIT && ctx != 0) {
		c->flags |= TT_AN_SP;
		c->sp = info[w - 1];
	}
	if (id >= 200 && id < 500)
		mw_counts(id, info, c);
}

static void each_thread(const struct tt_threadx *rd, tt_an_thread_cb cb, void *arg)
{
	struct tt_threadx_header_info h;
	struct tt_threadx_object o;

	if (tt_threadx_header_info(rd, &h) < 0)
		return;
	for (uint32_t i = 0; i < h.registry_entries; i++)
		if (tt_threadx_registry_at(rd, i, &o) == 0 && o.type == TX_OBJ_THREAD && !o.deleted)
			cb(arg, &(struct tt_an_thread){ .id = o.ptr, .name = o.name, .prio = o.prio,
							.stack_start = o.param1,
							.stack_size = o.param2 });
}

static int tx_threads(const void *rd, tt_an_thread_cb cb, void *arg)
{
	struct tt_threadx_header_info h;

	if (tt_threadx_header_info(rd, &h) < 0)
		return -ENOENT;
	each_thread(rd, cb, arg);
	return 0;
}

struct img_threads {
	tt_an_thread_cb cb;
	void *arg;
};

static void img_done(const struct tt_threadx *rd, void *arg)
{
	struct img_threads *it = arg;

	each_thread(rd, it->cb, it->arg);
}

static void no_record(void *arg, const struct tt_record *rec)
{
	(void)arg;
	(void)rec;
}

static int tx_image_threads(const uint8_t *img, size_t len, uint64_t base,
			    const struct tt_reader_config *cfg, tt_an_thread_cb cb, void *arg)
{
	struct img_threads it = { cb, arg };
	char err[256];
	size_t off;
	int rc = tt_threadx_image_locate(img, len, &base, cfg->address, &off, err, sizeof(err));

	return rc < 0 ? rc : tt_threadx_image_run(img, len, base, off, NULL, no_record, NULL,
						  img_done, &it, err, sizeof(err));
}

/* TX_STACK_FILL (tx_api.h): tx_thread_create sets every byte of the stack to 0xEF (unless built
 * with TX_DISABLE_STACK_FILLING; TX_ENABLE_RANDOM_NUMBER_STACK_FILLING uses a random byte of the
 * control block's instead, which reads as no fill pattern here), and
 * _tx_thread_stack_analyze takes the first 32-bit word from the stack start up that differs
 * from 0xEFEFEFEF as the highest use. */
static int tx_stack_fill(const void *format_cfg, uint32_t *fill)
{
	(void)format_cfg;
	*fill = 0xEFEFEFEFu;
	return 0;
}

const struct tt_analysis_ops tt_threadx_analysis = {
	.prio_low_is_urgent = true,
	.classify = tx_classify,
	.flags = TT_AN_SUSPEND | TT_AN_RESUME | TT_AN_ISR_ENTER | TT_AN_ISR_EXIT | TT_AN_TIME_SLICE |
		 TT_AN_MUTEX_GET | TT_AN_MUTEX_PUT | TT_AN_RELEASE | TT_AN_SP,
	.counters = counters,
	.ncounters = C_N,
	.threads = tx_threads,
	.image_threads = tx_image_threads,
	.stack_fill = tx_stack_fill,
};
