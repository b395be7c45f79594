/* tests/sim/fakeusb.c: libtt-fakeusb.so, a libusb-1.0 stand-in that shows one USB device, a
 * CMSIS-DAP v2 probe whose command packets tt-simtarget --cmsis-dap answers over SWD.
 *
 * LD_PRELOADed into an unmodified program (Debian's openocd, tracetap probes): it defines every
 * libusb function those import, so none reaches the real libusb with a device it never made.
 * The USB side lives here (descriptors, strings, the bulk pipes, the round trip); the probe's
 * firmware and the target live in tt-simtarget, reached over a socket (frames: sim_cmsis_dap.h,
 * tests/sim/README.md). Environment:
 *   TT_SIM_DAP=PORT|PATH    tt-simtarget's --port (on 127.0.0.1) or --unix path; unset: no device
 *   TT_SIM_DAP_USB=high|full  512-byte packets and a 125 us round trip (default), or 64-byte
 *                           packets and 1 ms (a full-speed probe: one response per USB frame)
 *   TT_SIM_DAP_RTT_US=N     the round trip instead: a response is readable N us after its
 *                           command was written, never before the one ahead of it
 * Synchronous bulk transfers only (OpenOCD 0.12's cmsis_dap_usb_bulk); asynchronous transfers
 * and hot-plug answer LIBUSB_ERROR_NOT_SUPPORTED (tracetap then polls).
 */
#include <errno.h>
#include <libusb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sim_cmsis_dap.h"

#define API __attribute__((visibility("default")))
#define VID 0x1209 /* pid.codes test id: no real product claims it */
#define PID 0x0001
#define EP_OUT 0x01
#define EP_IN 0x81
#define QUEUE 16

static const char *const strings[] = {
	NULL, "tracetap", "tracetap simulated CMSIS-DAP", TT_SIM_DAP_SERIAL, "CMSIS-DAP v2",
};

struct libusb_context {
	int unused;
};

struct libusb_device {
	int unused;
};

struct response {
	uint64_t ready_ns;
	uint16_t len;
	uint8_t data[TT_SIM_DAP_MAX_PACKET];
};

struct libusb_device_handle {
	int fd;                        /* to tt-simtarget, or -1 */
	unsigned head, count;
	struct response q[QUEUE];
};

static struct libusb_device g_dev;

struct link_cfg {
	unsigned packet;
	uint64_t rtt_ns;
};

static struct link_cfg link_cfg(void)
{
	const char *usb = getenv("TT_SIM_DAP_USB"), *rtt = getenv("TT_SIM_DAP_RTT_US");
	bool full = usb && !strcmp(usb, "full");
	struct link_cfg c = { full ? 64 : 512, full ? 1000000 : 125000 };

	if (rtt && *rtt)
		c.rtt_ns = strtoull(rtt, NULL, 0) * 1000;
	return c;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

static int sim_connect(const char *where)
{
	char *end;
	unsigned long port = strtoul(where, &end, 10);
	int fd, one = 1;

	if (*where && !*end && port && port < 65536) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			return fd;
		}
	} else {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (strlen(where) >= sizeof(sa.sun_path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		strcpy(sa.sun_path, where);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
	}
	if (fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

static int io_all(int fd, uint8_t *p, size_t n, bool wr)
{
	while (n) {
		ssize_t r = wr ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* ---- context and device list ---- */

API int libusb_init(libusb_context **ctx)
{
	if (ctx && !(*ctx = calloc(1, sizeof(**ctx))))
		return LIBUSB_ERROR_NO_MEM;
	return 0;
}

API void libusb_exit(libusb_context *ctx)
{
	free(ctx);
}

API ssize_t libusb_get_device_list(libusb_context *ctx, libusb_device ***list)
{
	bool present = getenv("TT_SIM_DAP") && *getenv("TT_SIM_DAP");

	(void)ctx;
	if (!(*list = calloc(2, sizeof(**list))))
		return LIBUSB_ERROR_NO_MEM;
	(*list)[0] = present ? &g_dev : NULL;
	return present ? 1 : 0;
}

API void libusb_free_device_list(libusb_device **list, int unref)
{
	(void)unref;
	free(list);
}

API libusb_device *libusb_ref_device(libusb_device *dev)
{
	return dev;
}

API void libusb_unref_device(libusb_device *dev)
{
	(void)dev;
}

API uint8_t libusb_get_bus_number(libusb_device *dev)
{
	(void)dev;
	return 1;
}

API uint8_t libusb_get_device_address(libusb_device *dev)
{
	(void)dev;
	return 2;
}

API int libusb_get_port_numbers(libusb_device *dev, uint8_t *ports, int len)
{
	(void)dev;
	if (len < 1)
		return LIBUSB_ERROR_OVERFLOW;
	ports[0] = 1;
	return 1;
}

/* ---- descriptors ---- */

API int libusb_get_device_descriptor(libusb_device *dev, struct libusb_device_descriptor *d)
{
	(void)dev;
	*d = (struct libusb_device_descriptor){
		.bLength = LIBUSB_DT_DEVICE_SIZE, .bDescriptorType = LIBUSB_DT_DEVICE,
		.bcdUSB = 0x0200, .bMaxPacketSize0 = 64, .idVendor = VID, .idProduct = PID,
		.bcdDevice = 0x0100, .iManufacturer = 1, .iProduct = 2, .iSerialNumber = 3,
		.bNumConfigurations = 1,
	};
	return 0;
}

/* One configuration, one vendor-specific interface (string "CMSIS-DAP v2"), bulk OUT then
 * bulk IN, as the CMSIS-DAP v2 specification orders them. One allocation. */
struct config_block {
	struct libusb_config_descriptor cfg;
	struct libusb_interface intf;
	struct libusb_interface_descriptor alt;
	struct libusb_endpoint_descriptor ep[2];
};

API int libusb_get_config_descriptor(libusb_device *dev, uint8_t index,
				     struct libusb_config_descriptor **config)
{
	struct config_block *b;
	uint16_t mps = (uint16_t)link_cfg().packet;

	(void)dev;
	if (index != 0)
		return LIBUSB_ERROR_NOT_FOUND;
	if (!(b = calloc(1, sizeof(*b))))
		return LIBUSB_ERROR_NO_MEM;
	for (int i = 0; i < 2; i++)
		b->ep[i] = (struct libusb_endpoint_descriptor){
			.bLength = LIBUSB_DT_ENDPOINT_SIZE, .bDescriptorType = LIBUSB_DT_ENDPOINT,
			.bEndpointAddress = i ? EP_IN : EP_OUT,
			.bmAttributes = LIBUSB_TRANSFER_TYPE_BULK, .wMaxPacketSize = mps,
		};
	b->alt = (struct libusb_interface_descriptor){
		.bLength = LIBUSB_DT_INTERFACE_SIZE, .bDescriptorType = LIBUSB_DT_INTERFACE,
		.bNumEndpoints = 2, .bInterfaceClass = LIBUSB_CLASS_VENDOR_SPEC, .iInterface = 4,
		.endpoint = b->ep,
	};
	b->intf = (struct libusb_interface){ .altsetting = &b->alt, .num_altsetting = 1 };
	b->cfg = (struct libusb_config_descriptor){
		.bLength = LIBUSB_DT_CONFIG_SIZE, .bDescriptorType = LIBUSB_DT_CONFIG,
		.wTotalLength = LIBUSB_DT_CONFIG_SIZE + LIBUSB_DT_INTERFACE_SIZE +
				2 * LIBUSB_DT_ENDPOINT_SIZE,
		.bNumInterfaces = 1, .bConfigurationValue = 1, .bmAttributes = 0x80,
		.MaxPower = 50, .interface = &b->intf,
	};
	*config = &b->cfg;
	return 0;
}

API int libusb_get_active_config_descriptor(libusb_device *dev,
					    struct libusb_config_descriptor **config)
{
	return libusb_get_config_descriptor(dev, 0, config);
}

API void libusb_free_config_descriptor(struct libusb_config_descriptor *config)
{
	free(config);	/* the config_block's first member */
}

/* GET_DESCRIPTOR (string) is the only control request this device answers. */
API int libusb_control_transfer(libusb_device_handle *h, uint8_t type, uint8_t req,
				uint16_t value, uint16_t index, unsigned char *data,
				uint16_t len, unsigned int timeout)
{
	unsigned idx = value & 0xFF;
	uint8_t d[256];
	size_t n;

	(void)h;
	(void)index;
	(void)timeout;
	if (type != LIBUSB_ENDPOINT_IN || req != LIBUSB_REQUEST_GET_DESCRIPTOR ||
	    value >> 8 != LIBUSB_DT_STRING || idx >= sizeof(strings) / sizeof(strings[0]))
		return LIBUSB_ERROR_PIPE;
	if (idx == 0) {	/* the language list: US English */
		d[2] = 0x09;
		d[3] = 0x04;
		n = 4;
	} else {
		n = 2;
		for (const char *s = strings[idx]; *s && n + 2 <= sizeof(d); s++) {
			d[n++] = (uint8_t)*s;
			d[n++] = 0;
		}
	}
	d[0] = (uint8_t)n;
	d[1] = LIBUSB_DT_STRING;
	if (n > len)
		n = len;
	memcpy(data, d, n);
	return (int)n;
}

API int libusb_get_string_descriptor_ascii(libusb_device_handle *h, uint8_t idx,
					   unsigned char *data, int len)
{
	(void)h;
	if (idx == 0 || idx >= sizeof(strings) / sizeof(strings[0]))
		return LIBUSB_ERROR_PIPE;
	if (len <= 0)
		return LIBUSB_ERROR_INVALID_PARAM;
	snprintf((char *)data, (size_t)len, "%s", strings[idx]);
	return (int)strlen((char *)data);
}

/* ---- handles and interfaces ---- */

API int libusb_open(libusb_device *dev, libusb_device_handle **h)
{
	(void)dev;
	if (!(*h = calloc(1, sizeof(**h))))
		return LIBUSB_ERROR_NO_MEM;
	(*h)->fd = -1;
	return 0;
}

API void libusb_close(libusb_device_handle *h)
{
	if (!h)
		return;
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

API libusb_device *libusb_get_device(libusb_device_handle *h)
{
	(void)h;
	return &g_dev;
}

/* Claiming the interface plugs the probe into the simulator: only a debugger does it (listing
 * probes opens the device for its strings and leaves tt-simtarget's one link free). */
API int libusb_claim_interface(libusb_device_handle *h, int n)
{
	const char *where = getenv("TT_SIM_DAP");

	if (n != 0)
		return LIBUSB_ERROR_NOT_FOUND;
	if (h->fd >= 0)
		return 0;
	if (!where || (h->fd = sim_connect(where)) < 0) {
		fprintf(stderr, "libtt-fakeusb: cannot reach tt-simtarget at TT_SIM_DAP=%s: %s\n",
			where ? where : "(unset)", strerror(errno));
		return LIBUSB_ERROR_NO_DEVICE;
	}
	return 0;
}

API int libusb_release_interface(libusb_device_handle *h, int n)
{
	(void)h;
	return n == 0 ? 0 : LIBUSB_ERROR_NOT_FOUND;
}

API int libusb_get_configuration(libusb_device_handle *h, int *config)
{
	(void)h;
	*config = 1;
	return 0;
}

API int libusb_set_configuration(libusb_device_handle *h, int config)
{
	(void)h;
	return config == 1 ? 0 : LIBUSB_ERROR_NOT_FOUND;
}

API int libusb_set_interface_alt_setting(libusb_device_handle *h, int n, int alt)
{
	(void)h;
	return n == 0 && alt == 0 ? 0 : LIBUSB_ERROR_NOT_FOUND;
}

API int libusb_set_auto_detach_kernel_driver(libusb_device_handle *h, int enable)
{
	(void)h;
	(void)enable;
	return 0;
}

API int libusb_detach_kernel_driver(libusb_device_handle *h, int n)
{
	(void)h;
	(void)n;
	return LIBUSB_ERROR_NOT_FOUND;	/* no kernel driver is attached */
}

API int libusb_clear_halt(libusb_device_handle *h, unsigned char ep)
{
	(void)h;
	(void)ep;
	return 0;
}

API int libusb_reset_device(libusb_device_handle *h)
{
	(void)h;
	return 0;
}

/* ---- bulk transfers: the probe ---- */

/* A command packet goes to tt-simtarget at once; its response waits in the queue until the
 * round trip has passed. */
static int bulk_out(libusb_device_handle *h, const unsigned char *data, int len)
{
	struct link_cfg c = link_cfg();
	uint8_t hdr[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)c.packet,
			   (uint8_t)(c.packet >> 8) };
	struct response *r;
	uint64_t t = now_ns();

	if (len < 0 || (unsigned)len > c.packet)
		return LIBUSB_ERROR_INVALID_PARAM;
	if (h->count == QUEUE)
		return LIBUSB_ERROR_BUSY;	/* the host never read the answers */
	r = &h->q[(h->head + h->count) % QUEUE];
	if (io_all(h->fd, hdr, 4, true) < 0 || io_all(h->fd, (uint8_t *)data, (size_t)len, true) < 0 ||
	    io_all(h->fd, hdr, 2, false) < 0)
		return LIBUSB_ERROR_IO;
	r->len = (uint16_t)(hdr[0] | hdr[1] << 8);
	if (r->len > c.packet || io_all(h->fd, r->data, r->len, false) < 0)
		return LIBUSB_ERROR_IO;
	if (!r->len)
		return 0;	/* a command without a response */
	r->ready_ns = t + c.rtt_ns;
	if (h->count) {
		const struct response *prev = &h->q[(h->head + h->count - 1) % QUEUE];

		if (r->ready_ns < prev->ready_ns)
			r->ready_ns = prev->ready_ns;
	}
	h->count++;
	return 0;
}

static int bulk_in(libusb_device_handle *h, unsigned char *data, int len, int *got,
		   unsigned timeout_ms)
{
	struct response *r = &h->q[h->head];
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;

	if (!h->count || (timeout_ms && r->ready_ns > deadline)) {
		if (timeout_ms)
			sleep_until(deadline);
		return LIBUSB_ERROR_TIMEOUT;	/* nothing (yet) from the probe */
	}
	sleep_until(r->ready_ns);
	*got = r->len < len ? r->len : len;
	memcpy(data, r->data, (size_t)*got);
	h->head = (h->head + 1) % QUEUE;
	h->count--;
	return 0;
}

API int libusb_bulk_transfer(libusb_device_handle *h, unsigned char ep, unsigned char *data,
			     int len, int *transferred, unsigned int timeout)
{
	int dummy, e;

	if (!transferred)
		transferred = &dummy;
	*transferred = 0;
	if (h->fd < 0)
		return LIBUSB_ERROR_NO_DEVICE;
	if (ep == EP_IN)
		return bulk_in(h, data, len, transferred, timeout);
	if (ep != EP_OUT)
		return LIBUSB_ERROR_NOT_FOUND;
	if ((e = bulk_out(h, data, len)) < 0)
		return e;
	*transferred = len;
	return 0;
}

/* ---- what this device does not do ---- */

API struct libusb_transfer *libusb_alloc_transfer(int iso_packets)
{
	return calloc(1, sizeof(struct libusb_transfer) +
			 (size_t)(iso_packets > 0 ? iso_packets : 0) *
				 sizeof(struct libusb_iso_packet_descriptor));
}

API void libusb_free_transfer(struct libusb_transfer *t)
{
	free(t);
}

API int libusb_submit_transfer(struct libusb_transfer *t)
{
	(void)t;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

API int libusb_cancel_transfer(struct libusb_transfer *t)
{
	(void)t;
	return LIBUSB_ERROR_NOT_FOUND;
}

API int libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv,
					       int *completed)
{
	(void)ctx;
	(void)tv;
	(void)completed;
	return 0;
}

API int libusb_handle_events_completed(libusb_context *ctx, int *completed)
{
	return libusb_handle_events_timeout_completed(ctx, NULL, completed);
}

API int libusb_has_capability(uint32_t cap)
{
	(void)cap;
	return 0;	/* no hot-plug: tracetap re-enumerates */
}

API int libusb_hotplug_register_callback(libusb_context *ctx, int events, int flags, int vid,
					 int pid, int dev_class,
					 libusb_hotplug_callback_fn cb, void *arg,
					 libusb_hotplug_callback_handle *handle)
{
	(void)ctx, (void)events, (void)flags, (void)vid, (void)pid, (void)dev_class;
	(void)cb, (void)arg, (void)handle;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

API void libusb_hotplug_deregister_callback(libusb_context *ctx,
					    libusb_hotplug_callback_handle handle)
{
	(void)ctx;
	(void)handle;
}

API const struct libusb_pollfd **libusb_get_pollfds(libusb_context *ctx)
{
	(void)ctx;
	return calloc(1, sizeof(struct libusb_pollfd *));	/* none: the list's NULL end */
}

API void libusb_free_pollfds(const struct libusb_pollfd **fds)
{
	free((void *)fds);
}

API void libusb_set_pollfd_notifiers(libusb_context *ctx, libusb_pollfd_added_cb added,
				     libusb_pollfd_removed_cb removed, void *arg)
{
	(void)ctx, (void)added, (void)removed, (void)arg;
}

API const char *libusb_error_name(int code)
{
	switch (code) {
	case LIBUSB_SUCCESS: return "LIBUSB_SUCCESS";
	case LIBUSB_ERROR_IO: return "LIBUSB_ERROR_IO";
	case LIBUSB_ERROR_INVALID_PARAM: return "LIBUSB_ERROR_INVALID_PARAM";
	case LIBUSB_ERROR_NO_DEVICE: return "LIBUSB_ERROR_NO_DEVICE";
	case LIBUSB_ERROR_NOT_FOUND: return "LIBUSB_ERROR_NOT_FOUND";
	case LIBUSB_ERROR_BUSY: return "LIBUSB_ERROR_BUSY";
	case LIBUSB_ERROR_TIMEOUT: return "LIBUSB_ERROR_TIMEOUT";
	case LIBUSB_ERROR_OVERFLOW: return "LIBUSB_ERROR_OVERFLOW";
	case LIBUSB_ERROR_PIPE: return "LIBUSB_ERROR_PIPE";
	case LIBUSB_ERROR_NO_MEM: return "LIBUSB_ERROR_NO_MEM";
	case LIBUSB_ERROR_NOT_SUPPORTED: return "LIBUSB_ERROR_NOT_SUPPORTED";
	default: return "LIBUSB_ERROR_OTHER";
	}
}

API const char *libusb_strerror(int code)
{
	return libusb_error_name(code);
}
