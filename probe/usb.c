/* probe/usb.c: libusb enumeration of debug probes and hot-plug on a libuv loop (see usb.h).
 *
 * Enumeration opens each non-hub device to read its strings (product, serial, interface
 * strings: CMSIS-DAP probes are recognised by them, not by ids). When a device cannot be
 * opened (no udev rule yet), the strings the kernel publishes in sysfs are used instead, so a
 * CMSIS-DAP probe is still recognised and the message names the missing rule.
 *
 * Hot-plug: libusb's own file descriptors are watched with uv_poll (libusb_get_pollfds, kept
 * current by libusb_set_pollfd_notifiers); when one is readable libusb handles its events with
 * a zero timeout, which runs our hot-plug callback. That callback only queues the device: the
 * queue is worked off after libusb returns, because reading strings from a device inside
 * libusb's event handling is not allowed. Without hot-plug support, a timer re-enumerates
 * every TT_USB_POLL_MS. No transfers are ever submitted asynchronously, so libusb needs no
 * timeouts from the loop.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tt_config.h"
#include "usb.h"

#if TT_HAVE_LIBUSB
#include <libusb.h>

static void set_err(char *err, size_t errlen, const char *fmt, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, what);
}

static int ctx_open(libusb_context **ctx, char *err, size_t errlen)
{
	int rc = libusb_init(ctx);

	if (rc < 0) {
		set_err(err, errlen, "libusb could not start (%s): no USB on this system?",
			libusb_strerror(rc));
		return rc == LIBUSB_ERROR_NO_MEM ? -ENOMEM : -ENODEV;
	}
	return 0;
}

/* A sysfs attribute of the device (world-readable, needs no open). */
static void read_sysfs(const char *location, const char *attr, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", location, attr);
	if (!(f = fopen(path, "r")))
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\r\n")] = 0;
	fclose(f);
}

static void read_string(libusb_device_handle *h, uint8_t idx, char *buf, size_t len)
{
	buf[0] = 0;
	if (idx && libusb_get_string_descriptor_ascii(h, idx, (unsigned char *)buf, (int)len) < 0)
		buf[0] = 0;
}

/* The serial number as OpenOCD compares it: printable ASCII as is; a binary serial (early
 * ST-Link V2 firmware) as upper-case hex of each character's low byte. */
static void read_serial(libusb_device_handle *h, uint8_t idx, char *buf, size_t len)
{
	unsigned char lang[4], d[256];
	int n;

	buf[0] = 0;
	if (!idx || libusb_get_string_descriptor(h, 0, 0, lang, sizeof(lang)) < 4)
		return;
	n = libusb_get_string_descriptor(h, idx, (uint16_t)(lang[2] | lang[3] << 8), d, sizeof(d));
	if (n < 2 || d[1] != LIBUSB_DT_STRING)
		return;
	int chars = (n - 2) / 2, printable = 1;
	for (int i = 0; i < chars; i++)
		if (d[3 + 2 * i] || d[2 + 2 * i] < 0x20 || d[2 + 2 * i] > 0x7e)
			printable = 0;
	size_t o = 0;
	for (int i = 0; i < chars && o + 3 <= len; i++) {
		unsigned c = d[2 + 2 * i];
		if (printable)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "%02X", c);
	}
	buf[o < len ? o : len - 1] = 0;
}

/* Interfaces whose string says CMSIS-DAP: v2 is vendor-specific with bulk endpoints. */
static void scan_interfaces(libusb_device *dev, libusb_device_handle *h, bool *v1, bool *v2)
{
	struct libusb_config_descriptor *cfg;
	char s[128];

	if (libusb_get_active_config_descriptor(dev, &cfg) < 0 &&
	    libusb_get_config_descriptor(dev, 0, &cfg) < 0)
		return;
	for (int i = 0; i < cfg->bNumInterfaces; i++) {
		for (int a = 0; a < cfg->interface[i].num_altsetting; a++) {
			const struct libusb_interface_descriptor *id = &cfg->interface[i].altsetting[a];
			read_string(h, id->iInterface, s, sizeof(s));
			if (!strstr(s, "CMSIS-DAP"))
				continue;
			bool bulk = false;
			for (int e = 0; e < id->bNumEndpoints; e++)
				if ((id->endpoint[e].bmAttributes & 3) == LIBUSB_TRANSFER_TYPE_BULK)
					bulk = true;
			if (id->bInterfaceClass == LIBUSB_CLASS_VENDOR_SPEC && bulk)
				*v2 = true;
			else
				*v1 = true;
		}
	}
	libusb_free_config_descriptor(cfg);
}

static void access_message(struct tt_usb_probe *p)
{
	const char *by = tt_usb_known_id(p->vid, p->pid) ? "" : " (by its CMSIS-DAP product string)";

	snprintf(p->access_msg, sizeof(p->access_msg),
		 "no permission to open %04x:%04x (%s): install %s, which matches it%s, put the "
		 "user in group plugdev, then replug the probe",
		 p->vid, p->pid, p->location, TT_USB_UDEV_RULES, by);
}

/* Fills p from dev. Returns true when the device is to be listed (a recognised probe, or any
 * non-hub device with TT_USB_ALL). */
static bool probe_fill(libusb_device *dev, unsigned flags, struct tt_usb_probe *p)
{
	struct libusb_device_descriptor dd;
	struct tt_usb_ident id = { 0 };
	libusb_device_handle *h = NULL;
	uint8_t ports[8];

	memset(p, 0, sizeof(*p));
	if (libusb_get_device_descriptor(dev, &dd) < 0 || dd.bDeviceClass == LIBUSB_CLASS_HUB)
		return false;
	p->vid = dd.idVendor;
	p->pid = dd.idProduct;
	p->bus = libusb_get_bus_number(dev);
	p->address = libusb_get_device_address(dev);
	int np = libusb_get_port_numbers(dev, ports, sizeof(ports));
	int o = snprintf(p->location, sizeof(p->location), "%u-", p->bus);
	for (int i = 0; i < np && o < (int)sizeof(p->location); i++)
		o += snprintf(p->location + o, sizeof(p->location) - (size_t)o, i ? ".%u" : "%u",
			      ports[i]);

	int rc = libusb_open(dev, &h);
	if (rc == 0) {
		read_string(h, dd.iManufacturer, p->manufacturer, sizeof(p->manufacturer));
		read_string(h, dd.iProduct, p->product, sizeof(p->product));
		read_serial(h, dd.iSerialNumber, p->serial, sizeof(p->serial));
		scan_interfaces(dev, h, &id.dap_v1_interface, &id.dap_v2_interface);
		libusb_close(h);
	} else {
		p->access_error = rc == LIBUSB_ERROR_ACCESS ? -EACCES
				  : rc == LIBUSB_ERROR_NO_DEVICE ? -ENODEV : -EIO;
		read_sysfs(p->location, "manufacturer", p->manufacturer, sizeof(p->manufacturer));
		read_sysfs(p->location, "product", p->product, sizeof(p->product));
		read_sysfs(p->location, "serial", p->serial, sizeof(p->serial));
	}
	id.vid = p->vid;
	id.pid = p->pid;
	id.product = p->product[0] ? p->product : NULL;
	bool known = tt_usb_classify(&id, &p->match);
	if (p->access_error == -EACCES && known)
		access_message(p);
	else if (p->access_error)
		snprintf(p->access_msg, sizeof(p->access_msg), "could not open %04x:%04x (%s): %s",
			 p->vid, p->pid, p->location, libusb_strerror(rc));
	return known || (flags & TT_USB_ALL);
}

int tt_usb_enumerate(unsigned flags, struct tt_usb_probe **out, size_t *n, char *err,
		     size_t errlen)
{
	libusb_context *ctx;
	libusb_device **list;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ctx_open(&ctx, err, errlen)) < 0)
		return rc;
	ssize_t cnt = libusb_get_device_list(ctx, &list);
	if (cnt < 0) {
		set_err(err, errlen, "listing USB devices: %s", libusb_strerror((int)cnt));
		libusb_exit(ctx);
		return -EIO;
	}
	struct tt_usb_probe *v = cnt ? calloc((size_t)cnt, sizeof(*v)) : NULL;
	if (cnt && !v) {
		libusb_free_device_list(list, 1);
		libusb_exit(ctx);
		return -ENOMEM;
	}
	size_t k = 0;
	for (ssize_t i = 0; i < cnt; i++)
		if (probe_fill(list[i], flags, &v[k]))
			k++;
	libusb_free_device_list(list, 1);
	libusb_exit(ctx);
	if (!k) {
		free(v);
		v = NULL;
	}
	*out = v;
	*n = k;
	return 0;
}

/* ---- hot-plug ---- */

struct poll_fd {
	uv_poll_t h;
	int fd;
	struct tt_usb_watch *w;
	struct poll_fd *next;
};

struct known {
	libusb_device *dev;   /* a reference we hold */
	bool recognised, seen;
	struct tt_usb_probe p;
};

struct pending {
	libusb_device *dev;   /* a reference we hold */
	enum tt_usb_event ev;
};

struct tt_usb_watch {
	uv_loop_t *loop;
	libusb_context *ctx;
	tt_usb_watch_cb cb;
	void *arg;
	bool hotplug, stopping;
	libusb_hotplug_callback_handle hh;
	uv_timer_t timer;         /* hot-plug: first delivery; fallback: the 2 s scan */
	struct poll_fd *polls;
	int open_handles;
	struct known *known;
	size_t nknown, capknown;
	struct pending *pending;
	size_t npending, cappending;
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 8;
	void *nv = realloc(*v, nc * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static struct known *known_find(struct tt_usb_watch *w, libusb_device *dev)
{
	for (size_t i = 0; i < w->nknown; i++)
		if (w->known[i].dev == dev)
			return &w->known[i];
	return NULL;
}

static void known_add(struct tt_usb_watch *w, libusb_device *dev)
{
	struct known k = { .dev = dev, .seen = true };

	if (known_find(w, dev) || grow((void **)&w->known, &w->capknown, w->nknown + 1,
				       sizeof(*w->known)) < 0)
		return;
	k.recognised = probe_fill(dev, 0, &k.p);
	w->known[w->nknown++] = k;
	libusb_ref_device(dev);
	if (k.recognised)
		w->cb(w, TT_USB_ARRIVED, &k.p, w->arg);
}

static void known_remove(struct tt_usb_watch *w, size_t i)
{
	struct known k = w->known[i];

	w->known[i] = w->known[--w->nknown];
	if (k.recognised && !w->stopping)
		w->cb(w, TT_USB_LEFT, &k.p, w->arg);
	libusb_unref_device(k.dev);
}

static void pending_drain(struct tt_usb_watch *w)
{
	/* Reading strings runs libusb events, which may queue more: take from the front. */
	while (w->npending && !w->stopping) {
		struct pending p = w->pending[0];
		memmove(w->pending, w->pending + 1, --w->npending * sizeof(*w->pending));
		if (p.ev == TT_USB_ARRIVED) {
			known_add(w, p.dev);
		} else {
			struct known *k = known_find(w, p.dev);
			if (k)
				known_remove(w, (size_t)(k - w->known));
		}
		libusb_unref_device(p.dev);
	}
}

static int LIBUSB_CALL on_hotplug(libusb_context *ctx, libusb_device *dev,
				  libusb_hotplug_event event, void *arg)
{
	struct tt_usb_watch *w = arg;

	if (grow((void **)&w->pending, &w->cappending, w->npending + 1, sizeof(*w->pending)) < 0)
		return 0; /* dropped: the fallback is not worth an allocation failure path */
	w->pending[w->npending++] = (struct pending){
		.dev = libusb_ref_device(dev),
		.ev = event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED ? TT_USB_ARRIVED : TT_USB_LEFT,
	};
	return 0;
}

static void scan(struct tt_usb_watch *w)
{
	libusb_device **list;
	ssize_t cnt = libusb_get_device_list(w->ctx, &list);

	if (cnt < 0)
		return;
	for (size_t i = 0; i < w->nknown; i++)
		w->known[i].seen = false;
	for (ssize_t i = 0; i < cnt && !w->stopping; i++) {
		struct known *k = known_find(w, list[i]);
		if (k)
			k->seen = true;
		else
			known_add(w, list[i]);
	}
	for (size_t i = w->nknown; i-- > 0;)
		if (!w->known[i].seen)
			known_remove(w, i);
	libusb_free_device_list(list, 1);
}

static void on_timer(uv_timer_t *t)
{
	struct tt_usb_watch *w = t->data;

	if (w->hotplug)
		pending_drain(w);
	else
		scan(w);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
	struct poll_fd *pf = h->data;
	struct tt_usb_watch *w = pf->w;
	struct timeval zero = { 0, 0 };

	libusb_handle_events_timeout_completed(w->ctx, &zero, NULL);
	pending_drain(w);
}

static void on_handle_closed(uv_handle_t *h)
{
	struct tt_usb_watch *w = h->data;

	if (h->type == UV_POLL) {
		struct poll_fd *pf = h->data;
		w = pf->w;
		free(pf);
	}
	if (--w->open_handles)
		return;
	for (size_t i = 0; i < w->npending; i++)
		libusb_unref_device(w->pending[i].dev);
	for (size_t i = 0; i < w->nknown; i++)
		libusb_unref_device(w->known[i].dev);
	libusb_exit(w->ctx);
	free(w->pending);
	free(w->known);
	free(w);
}

static void LIBUSB_CALL on_fd_added(int fd, short events, void *arg)
{
	struct tt_usb_watch *w = arg;
	struct poll_fd *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return;
	if (uv_poll_init(w->loop, &pf->h, fd) < 0) {
		free(pf);
		return;
	}
	pf->fd = fd;
	pf->w = w;
	pf->h.data = pf;
	pf->next = w->polls;
	w->polls = pf;
	w->open_handles++;
	uv_poll_start(&pf->h, ((events & POLLIN) ? UV_READABLE : 0) |
				      ((events & POLLOUT) ? UV_WRITABLE : 0), on_poll);
}

static void LIBUSB_CALL on_fd_removed(int fd, void *arg)
{
	struct tt_usb_watch *w = arg;

	for (struct poll_fd **pp = &w->polls; *pp; pp = &(*pp)->next) {
		if ((*pp)->fd == fd) {
			struct poll_fd *pf = *pp;
			*pp = pf->next;
			uv_close((uv_handle_t *)&pf->h, on_handle_closed);
			return;
		}
	}
}

static int watch_hotplug_setup(struct tt_usb_watch *w)
{
	const struct libusb_pollfd **fds = libusb_get_pollfds(w->ctx);

	if (!fds)
		return -EIO;
	for (size_t i = 0; fds[i]; i++)
		on_fd_added(fds[i]->fd, fds[i]->events, w);
	libusb_free_pollfds(fds);
	libusb_set_pollfd_notifiers(w->ctx, on_fd_added, on_fd_removed, w);
	int rc = libusb_hotplug_register_callback(
		w->ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT,
		LIBUSB_HOTPLUG_ENUMERATE, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
		LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, w, &w->hh);
	return rc < 0 ? -EIO : 0;
}

int tt_usb_watch_start(uv_loop_t *loop, tt_usb_watch_cb cb, void *arg,
		       struct tt_usb_watch **out)
{
	struct tt_usb_watch *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	if ((rc = ctx_open(&w->ctx, NULL, 0)) < 0)
		goto fail_ctx;
	w->loop = loop;
	w->cb = cb;
	w->arg = arg;
	w->hotplug = libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG) &&
		     getenv("TT_USB_NO_HOTPLUG") == NULL; /* test hook: force the fallback */
	uv_timer_init(loop, &w->timer);
	w->timer.data = w;
	w->open_handles = 1;
	if (w->hotplug && (rc = watch_hotplug_setup(w)) < 0) {
		/* Hot-plug refused at run time: fall back to polling. */
		libusb_set_pollfd_notifiers(w->ctx, NULL, NULL, NULL);
		w->hotplug = false;
	}
	/* First delivery on the next loop iteration, never inside this call. */
	uv_timer_start(&w->timer, on_timer, 0, w->hotplug ? 0 : TT_USB_POLL_MS);
	*out = w;
	return 0;

fail_ctx:
	free(w);
	return rc;
}

bool tt_usb_watch_is_hotplug(const struct tt_usb_watch *w)
{
	return w->hotplug;
}

void tt_usb_watch_stop(struct tt_usb_watch *w)
{
	if (!w || w->stopping)
		return;
	w->stopping = true;
	if (w->hotplug) {
		libusb_hotplug_deregister_callback(w->ctx, w->hh);
		libusb_set_pollfd_notifiers(w->ctx, NULL, NULL, NULL);
	}
	while (w->polls) {
		struct poll_fd *pf = w->polls;
		w->polls = pf->next;
		uv_close((uv_handle_t *)&pf->h, on_handle_closed);
	}
	uv_close((uv_handle_t *)&w->timer, on_handle_closed);
}

#else /* !TT_HAVE_LIBUSB */

int tt_usb_enumerate(unsigned flags, struct tt_usb_probe **out, size_t *n, char *err,
		     size_t errlen)
{
	*out = NULL;
	*n = 0;
	if (err && errlen)
		snprintf(err, errlen, "built without libusb (meson setup -Dlibusb=enabled, "
				      "Debian package libusb-1.0-0-dev)");
	return -ENOTSUP;
}

int tt_usb_watch_start(uv_loop_t *loop, tt_usb_watch_cb cb, void *arg,
		       struct tt_usb_watch **out)
{
	return -ENOTSUP;
}

bool tt_usb_watch_is_hotplug(const struct tt_usb_watch *w)
{
	return false;
}

void tt_usb_watch_stop(struct tt_usb_watch *w)
{
}

#endif
