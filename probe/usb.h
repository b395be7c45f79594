/* probe/usb.h: which debug probes are plugged in (libusb), and hot-plug.
 *
 *   - tt_usb_classify(): pure table lookup from what a USB device says about itself to a probe
 *     kind and the OpenOCD interface config to use (no libusb, no I/O).
 *   - tt_usb_enumerate(): one synchronous pass over the USB devices (libusb).
 *   - tt_usb_watch_*(): arrival and removal of recognised probes on a libuv loop (libusb
 *     hot-plug, or re-enumeration every TT_USB_POLL_MS where libusb has none).
 *
 * Without libusb at build time (TT_HAVE_LIBUSB 0) the classifier still works; enumerate and
 * watch return -ENOTSUP. Errors: 0 or a negative errno, with a message in err when given.
 */
#ifndef TT_USB_H
#define TT_USB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Installed path of the udev rules, for "permission denied" messages: set by probe/meson.build
 * from the prefix (systemd/meson.build installs the file there). */
#ifndef TT_USB_UDEV_RULES
#define TT_USB_UDEV_RULES "/usr/lib/udev/rules.d/60-tracetap-probes.rules"
#endif

enum tt_usb_kind {
	TT_USB_UNKNOWN = 0,
	TT_USB_STLINK_V2,
	TT_USB_STLINK_V21,
	TT_USB_STLINK_V3,
	TT_USB_STLINK_LOADER,   /* ST-Link V3 in its firmware-update loader: not usable */
	TT_USB_CMSIS_DAP_V1,    /* HID */
	TT_USB_CMSIS_DAP_V2,    /* vendor-specific bulk interface */
	TT_USB_JLINK,
	TT_USB_FTDI,            /* FT2232/FT4232/FT232H based JTAG adapter */
	TT_USB_BLACKMAGIC,      /* a GDB server itself, not driven by OpenOCD */
	TT_USB_ESP_USB_JTAG,
	TT_USB_WCH_LINK_RISCV,  /* WCH-Link(E) in RISC-V mode: WCH's OpenOCD fork only */
};

/* What a device says about itself. Strings are borrowed and may be NULL (not readable). */
struct tt_usb_ident {
	uint16_t vid, pid;
	const char *product;
	/* An interface whose string contains "CMSIS-DAP": vendor-specific with bulk endpoints
	 * (v2), or any other, normally HID (v1). */
	bool dap_v2_interface;
	bool dap_v1_interface;
};

/* The verdict. All strings are static. */
struct tt_usb_match {
	enum tt_usb_kind kind;
	const char *name;        /* "ST-Link V2-1", "CMSIS-DAP v2", ... */
	const char *openocd_cfg; /* "interface/stlink.cfg" (for -f), or NULL when there is none
				  * or it cannot be told from the device (see note) */
	const char *note;        /* what the user needs to know, or NULL */
	/* OpenOCD command selecting this probe by serial, without the serial: "adapter serial"
	 * (all OpenOCD >= 0.11 drivers), or NULL when OpenOCD does not drive this probe. */
	const char *serial_cmd;
};

/* Classifies a device: true and *m filled when it is a debug probe this table knows; false
 * (m->kind TT_USB_UNKNOWN, m->name "unknown") otherwise, never a guess. */
bool tt_usb_classify(const struct tt_usb_ident *id, struct tt_usb_match *m);

/* Whether a device with this vid:pid might be a probe by its ids alone (a hint only:
 * CMSIS-DAP devices have arbitrary ids). */
bool tt_usb_known_id(uint16_t vid, uint16_t pid);

/* The fixed vid:pid table, for tests that cross-check the udev rules. Returns the number of
 * entries; *ids receives a static array of {vid, pid_first, pid_last} triples. */
size_t tt_usb_id_table(const uint16_t (**ids)[3]);

const char *tt_usb_kind_name(enum tt_usb_kind k);

/* One plugged-in device. */
struct tt_usb_probe {
	uint16_t vid, pid;
	uint8_t bus, address;
	char location[32];       /* "bus-port.port", as in /sys/bus/usb/devices */
	struct tt_usb_match match;
	char manufacturer[128], product[128], serial[128]; /* "" when unreadable */
	/* 0, or the negative errno of opening the device to read its strings (-EACCES: the udev
	 * rule is missing; access_msg says which rule and where). */
	int access_error;
	char access_msg[256];
};

enum { TT_USB_ALL = 1 }; /* tt_usb_enumerate flags: also list devices that are not probes */

/* Lists the plugged-in probes (with TT_USB_ALL, every non-hub device, unknown ones with
 * kind TT_USB_UNKNOWN). On success *out is a malloc'ed array of *n entries (NULL when 0):
 * caller frees with free(). Returns 0, -ENOTSUP (built without libusb), -ENODEV (no USB
 * on this system: libusb could not start), -ENOMEM. */
int tt_usb_enumerate(unsigned flags, struct tt_usb_probe **out, size_t *n, char *err,
		     size_t errlen);

/* ---- hot-plug ---- */

struct tt_usb_watch;

enum tt_usb_event { TT_USB_ARRIVED = 1, TT_USB_LEFT = 2 };

/* A recognised probe arrived or left. p is borrowed for the call; on TT_USB_LEFT it holds what
 * was read on arrival (strings cannot be read from a device that is gone). Called from the
 * loop, never inside tt_usb_watch_start/stop. Probes present at start are reported as
 * TT_USB_ARRIVED on the first loop iterations. */
typedef void (*tt_usb_watch_cb)(struct tt_usb_watch *w, enum tt_usb_event ev,
				const struct tt_usb_probe *p, void *arg);

/* Starts watching. *out is owned by the module until tt_usb_watch_stop. Returns 0, -ENOTSUP
 * (no libusb), -ENODEV (no USB), -ENOMEM; on error nothing is left to stop. */
int tt_usb_watch_start(uv_loop_t *loop, tt_usb_watch_cb cb, void *arg,
		       struct tt_usb_watch **out);
/* Whether libusb hot-plug is used (false: polling every TT_USB_POLL_MS). */
bool tt_usb_watch_is_hotplug(const struct tt_usb_watch *w);
#define TT_USB_POLL_MS 2000
/* Stops: no callback after this returns. Handles close asynchronously; the memory is freed
 * in their close callbacks, so run the loop once more before uv_loop_close. */
void tt_usb_watch_stop(struct tt_usb_watch *w);

#endif
